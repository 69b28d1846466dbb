package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestWANByKindAddsUpToWANBytes runs cops without faults, where every
// message sent is delivered before the run ends: the kinds' bytes must add
// up to wan_bytes exactly, and a put must cost its Replicate copies.
func TestWANByKindAddsUpToWANBytes(t *testing.T) {
	spec := smallSpec(t, "cops", "local3", 1, false)
	spec.Duration, spec.WANByKind = 300*time.Millisecond, true
	res, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	k := res.WANByKind
	if k == nil || k.Puts == 0 || k.Ops != res.Ops {
		t.Fatalf("wan_by_kind = %+v, want puts > 0 and ops = %d", k, res.Ops)
	}
	var sum int64
	for _, v := range k.Kinds {
		sum += v.Bytes
	}
	if sum != *res.WANBytes {
		t.Errorf("kinds add up to %d bytes, wan_bytes is %d", sum, *res.WANBytes)
	}
	// local3 has three DCs: each put is replicated to the two others.
	if got := k.Kinds["Replicate"].Messages; got < 2*k.Puts {
		t.Errorf("%d Replicate messages for %d puts, want at least two a put", got, k.Puts)
	}
	var out bytes.Buffer
	if err := WriteKindTable(&out, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Replicate") || !strings.Contains(out.String(), "(all)") {
		t.Errorf("table lacks rows:\n%s", out.String())
	}
}
