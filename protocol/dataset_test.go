package protocol

import (
	"strings"
	"testing"
)

// TestDataset checks which keys a dataset holds and their loaded values.
func TestDataset(t *testing.T) {
	d := &Dataset{Records: 1000, KeyPrefix: "user", KeyDigits: 8, ValueSize: 64}
	for _, c := range []struct {
		key string
		has bool
	}{
		{"user00000000", true}, {"user00000999", true}, {"user00001000", false},
		{"user0000042", false}, {"user000000042", false}, {"x", false}, {"k1", false},
		{"user", false}, {"user0000004a", false}, {"usr00000042", false}, {"", false},
	} {
		if got := d.Has(c.key); got != c.has {
			t.Errorf("Has(%q) = %v, want %v", c.key, got, c.has)
		}
		v := d.Value(c.key)
		if (v != nil) != c.has {
			t.Errorf("Value(%q) = %q, want a value: %v", c.key, v, c.has)
		}
		if v == nil {
			continue
		}
		if len(v) != 64 || !IsLoaded(v) || !strings.HasPrefix(string(v), LoadedPrefix+c.key+"#") {
			t.Errorf("Value(%q) = %q (%d bytes)", c.key, v, len(v))
		}
		if string(d.Value(c.key)) != string(v) {
			t.Errorf("Value(%q) is not deterministic", c.key)
		}
	}
	big := &Dataset{Records: 1 << 40, KeyPrefix: "user", KeyDigits: 8, ValueSize: 0}
	if !big.Has("user123456789012") || big.Has("user0123456789012") {
		t.Errorf("keys beyond the padding: Has wrong")
	}
	if v := big.Value("user00000001"); string(v) != LoadedPrefix+"user00000001#" {
		t.Errorf("short value size: %q", v)
	}
	var none *Dataset
	if none.Has("user00000001") || none.Value("user00000001") != nil {
		t.Errorf("a nil dataset holds something")
	}
	if IsLoaded([]byte("c1-1#abc")) || IsLoaded(nil) {
		t.Errorf("IsLoaded of a written value")
	}
}
