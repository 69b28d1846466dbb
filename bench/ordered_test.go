package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/workload"
)

// TestOrderedBound follows one session of DC c on local3 (rings [a, b]
// and [c]; one-way delays a-b 20 ms, a-c 60 ms, b-c 45 ms) under karma,
// which keeps one replica of each key per ring:
//   - its first write, to a key stored at a and c, issued at 0, has no
//     earlier write: its ordered bound is its per-write bound, 60 ms;
//   - its second, to a key stored at b and c, issued at 1 ms, is visible
//     at b no earlier than b can know the first is stored at a (60 ms +
//     20 ms): 79 ms from its issue, against a per-write bound of 45 ms;
//   - the two writes of a write-only transaction issued at 2 ms follow
//     both, not each other.
//
// cops, which orders nothing across DCs, has no ordered bound.
func TestOrderedBound(t *testing.T) {
	karma, tp := lookup(t, "karma", "local3")
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	keyAt := func(dc string, skip int) string {
		for i := 0; ; i++ {
			k := fmt.Sprintf("k%d", i)
			for _, n := range karma.Replicas(tp, k) {
				if n.DC() == dc {
					if skip == 0 {
						return k
					}
					skip--
				}
			}
		}
	}
	kA, kB := keyAt("a", 0), keyAt("b", 0)
	rec := NewRecorder(karma, tp)
	write := func(key, id string, issue time.Duration) protocol.KV {
		kv := protocol.KV{Key: key, Value: workload.MakeValue(id, 16)}
		for _, n := range karma.Replicas(tp, key) {
			rec.Visible(ms(500), n, protocol.Visibility{Key: key, Value: kv.Value, Version: uint64(issue) + 1})
		}
		return kv
	}
	w1, w2 := write(kA, "c0-1", 0), write(kB, "c0-2", ms(1))
	rec.Done("c", protocol.Request{Op: protocol.OpPut, Key: w1.Key, Value: w1.Value}, protocol.Reply{Op: protocol.OpPut}, 0, ms(1))
	rec.Done("c", protocol.Request{Op: protocol.OpPut, Key: w2.Key, Value: w2.Value}, protocol.Reply{Op: protocol.OpPut}, ms(1), ms(2))
	var res Result
	rec.fill(&res, time.Second)
	if b := res.VisibilityBoundOrderedMs; b == nil || !near(b.P50, 60) || !near(b.P99, 79) {
		t.Errorf("ordered bounds %+v, want p50 60 ms (first write) and p99 79 ms (second)", b)
	}
	if r := res.VisibilityRatioOrdered; r == nil || !near(r.P99, 500.0/60) {
		t.Errorf("ordered ratio %+v, want p99 %.3f", r, 500.0/60)
	}

	// A transaction's writes, one to a (and c) and one to b (and c),
	// follow the first two writes: at a no earlier than b's 46 ms plus
	// 20 (64 ms from their issue at 2 ms), at b no earlier than 80 ms
	// (78 ms). They are not ordered between themselves: b need not wait
	// for the one at a (62 + 20 ms, 80 ms from their issue).
	t1, t2 := write(keyAt("a", 1), "c0-3", ms(2)), write(kB, "c0-4", ms(2))
	rec.Done("c", protocol.Request{Op: protocol.OpWriteTxn, Writes: []protocol.KV{t1, t2}}, protocol.Reply{Op: protocol.OpWriteTxn}, ms(2), ms(3))
	rec.fill(&res, time.Second)
	if b := res.VisibilityBoundOrderedMs; b == nil || !near(b.P50, 64) || !near(b.P99, 79) || !near(b.Mean, (60+79+64+78)/4.0) {
		t.Errorf("with the transaction, ordered bounds %+v, want p50 64 ms, p99 79 ms, mean 70.25 ms", b)
	}

	cops, _ := lookup(t, "cops", "local3")
	crec := NewRecorder(cops, tp)
	cw := protocol.KV{Key: kA, Value: workload.MakeValue("c0-1", 16)}
	for _, n := range cops.Replicas(tp, kA) {
		crec.Visible(ms(100), n, protocol.Visibility{Key: kA, Value: cw.Value, Version: 1})
	}
	crec.Done("c", protocol.Request{Op: protocol.OpPut, Key: kA, Value: cw.Value}, protocol.Reply{Op: protocol.OpPut}, 0, ms(1))
	var cres Result
	crec.fill(&cres, time.Second)
	if cres.VisibilityFromIssueMs == nil || cres.VisibilityBoundOrderedMs != nil {
		t.Errorf("cops: visibility %v, ordered bound %v: want a visibility and no ordered bound", cres.VisibilityFromIssueMs, cres.VisibilityBoundOrderedMs)
	}
}
