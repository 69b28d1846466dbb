package workload

import "testing"

// TestWithValueSize checks that the variant writes values of the new size
// and is named after it, and that the original is untouched.
func TestWithValueSize(t *testing.T) {
	base := mustLookup(t, "ycsb-95-5")
	for _, tt := range []struct {
		size int
		name string
	}{{200, "ycsb-95-5@200B"}, {1024, "ycsb-95-5@1KB"}, {4096, "ycsb-95-5@4KB"}, {1000, "ycsb-95-5@1000B"}} {
		w := base.WithValueSize(tt.size)
		if w.Name != tt.name || w.ValueSize != tt.size {
			t.Errorf("WithValueSize(%d) = %q, %d bytes; want %q", tt.size, w.Name, w.ValueSize, tt.name)
		}
		c := w.NewClient("s", newRand(1))
		for range 200 {
			if req := c.Next(); req.Value != nil && len(req.Value) != tt.size {
				t.Fatalf("%s: value of %d bytes", w.Name, len(req.Value))
			}
		}
	}
	if base.Name != "ycsb-95-5" || base.ValueSize != DefaultValueSize {
		t.Errorf("WithValueSize changed its receiver: %+v", base)
	}
}
