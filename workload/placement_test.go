package workload

import (
	"math"
	"testing"

	"github.com/causeway/causeway/protocol"
)

// evenLocal is a placement oracle: keys with an even index are stored in
// the client's DC.
func evenLocal(t *testing.T) func(string) bool {
	return func(key string) bool { return keyIndex(t, key)%2 == 0 }
}

// TestPlacement checks the local and remote modes: with LocalKeys and no
// remote fraction every key is local; with a remote fraction about that
// share of operations touch only remote keys (all keys of a transaction
// in one mode); without LocalKeys, or without an oracle, keys are drawn
// unrestricted.
func TestPlacement(t *testing.T) {
	const ops = 20000
	// count returns the share of operations whose keys are all local, all
	// remote, and whether any mixed the two.
	count := func(w Workload, oracle bool) (local, remote float64, mixed bool) {
		c := w.NewClient("p", newRand(21))
		if oracle {
			c.SetPlacement(evenLocal(t))
		}
		nl, nr := 0, 0
		for range ops {
			req := c.Next()
			keys := req.Keys
			if req.Key != "" {
				keys = []string{req.Key}
			}
			for _, kv := range req.Writes {
				keys = append(keys, kv.Key)
			}
			l := 0
			for _, k := range keys {
				if keyIndex(t, k)%2 == 0 {
					l++
				}
			}
			switch l {
			case len(keys):
				nl++
			case 0:
				nr++
			default:
				mixed = true
			}
		}
		return float64(nl) / ops, float64(nr) / ops, mixed
	}
	w := mustLookup(t, "txn")
	w.LocalKeys = true
	if l, _, _ := count(w, true); l != 1 {
		t.Errorf("local mode: %.3f of operations local, want all", l)
	}
	w.RemoteFraction = 0.3
	l, r, mixed := count(w, true)
	if mixed || math.Abs(r-0.3) > 0.02 || math.Abs(l-0.7) > 0.02 {
		t.Errorf("remote fraction 0.3: local %.3f remote %.3f mixed %v", l, r, mixed)
	}
	w.LocalKeys, w.RemoteFraction = false, 0
	if l, _, _ := count(w, true); l > 0.9 {
		t.Errorf("without LocalKeys, %.3f of operations local: restricted anyway", l)
	}
	w.LocalKeys = true
	if l, _, _ := count(w, false); l > 0.9 {
		t.Errorf("without an oracle, %.3f of operations local: restricted anyway", l)
	}
}

// TestPlacementBounded checks that an oracle no key satisfies does not
// hang the client: it falls back to an unrestricted key.
func TestPlacementBounded(t *testing.T) {
	w := mustLookup(t, "ycsb-a")
	w.LocalKeys = true
	c := w.NewClient("p", newRand(2))
	c.SetPlacement(func(string) bool { return false })
	for range 100 {
		if req := c.Next(); req.Op != protocol.OpGet && req.Op != protocol.OpPut {
			t.Fatalf("unexpected %v", req.Op)
		}
	}
}
