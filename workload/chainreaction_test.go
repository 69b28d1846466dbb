package workload

import (
	"math/rand/v2"
	"testing"

	"github.com/causeway/causeway/protocol"
)

// TestChainReactionWorkloads checks the cr-* presets against
// chainreaction.txt §7: 1M × 1 KB records for YCSB, one key for the
// single-object mixes, and 2–5 distinct keys per get-transaction over
// 10,000 objects.
func TestChainReactionWorkloads(t *testing.T) {
	for _, y := range []string{"a", "b", "c", "d", "f"} {
		w, err := Lookup("cr-ycsb-" + y)
		if err != nil {
			t.Fatal(err)
		}
		base, _ := Lookup("ycsb-" + y)
		if w.RecordCount != CRRecords || w.ValueSize != CRValueSize || w.ReadProportion != base.ReadProportion ||
			w.Distribution != base.Distribution {
			t.Errorf("%s: %+v", w.Name, w)
		}
	}
	for _, m := range CRSingleObjectMixes {
		w, err := Lookup(CRSingleObjectName(m[0]))
		if err != nil {
			t.Fatal(err)
		}
		c := w.NewClient("s", rand.New(rand.NewPCG(1, 2)))
		puts := 0
		for range 1000 {
			req := c.Next()
			if req.Key != Key(0) {
				t.Fatalf("%s: key %q", w.Name, req.Key)
			}
			if req.Op == protocol.OpPut {
				puts++
			}
		}
		if lo, hi := m[0]*10-50, m[0]*10+50; puts < lo || puts > hi {
			t.Errorf("%s: %d puts in 1000", w.Name, puts)
		}
	}
	for _, m := range CRTxnMixes {
		w, err := Lookup(CRTxnName(m[0], m[1], m[2]))
		if err != nil {
			t.Fatal(err)
		}
		c := w.NewClient("s", rand.New(rand.NewPCG(3, 4)))
		sizes := map[int]int{}
		txns := 0
		for range 20000 {
			req := c.Next()
			if req.Op != protocol.OpReadTxn {
				continue
			}
			txns++
			sizes[len(req.Keys)]++
			seen := map[string]bool{}
			for _, k := range req.Keys {
				if seen[k] {
					t.Fatalf("%s: key %s twice in %v", w.Name, k, req.Keys)
				}
				seen[k] = true
			}
		}
		if txns < 800 || txns > 1200 {
			t.Errorf("%s: %d get-transactions in 20000 operations, want ≈5%%", w.Name, txns)
		}
		for n := CRTxnKeysMin; n <= CRTxnKeysMax; n++ {
			if sizes[n] == 0 {
				t.Errorf("%s: no get-transaction of %d keys (%v)", w.Name, n, sizes)
			}
		}
		if len(sizes) != CRTxnKeysMax-CRTxnKeysMin+1 {
			t.Errorf("%s: key counts %v", w.Name, sizes)
		}
	}
}
