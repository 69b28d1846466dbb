package check

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/causeway/causeway/history"
)

// TestWalkFindsTheGroupsCandidates checks that, for every read whose
// candidates chainCandidates found by walking the writes visited after
// the returned write's cover, searching every writing session's writes
// (groupCandidates) finds the same ones: on random histories (every rule
// broken, failed writes read back), on a causal one with many sessions
// (concurrent writes, covers that lag) and on bursts of concurrent
// writes to one key, with the rings of latest writes at their size and
// at 1, 2 and 4 entries.
func TestWalkFindsTheGroupsCandidates(t *testing.T) {
	var walks, nonEmpty int
	var bad []string
	crossCheckHook = func(walk, groups []pentry) {
		walks++
		if len(walk) > 0 {
			nonEmpty++
		}
		// groupCandidates leaves node order to the walk's entries;
		// compare what consider sees: node, by session.
		if !slices.EqualFunc(walk, groups, func(a, b pentry) bool { return a.node == b.node && a.sess == b.sess && a.idx == b.idx }) && len(bad) < 5 {
			bad = append(bad, "walk "+fmtEntries(walk)+" groups "+fmtEntries(groups))
		}
	}
	defer func() { crossCheckHook = nil }()
	n, seeds := 60_000, uint64(300)
	if raceEnabled || testing.Short() {
		n, seeds = 15_000, 100
	}
	defer func(m int32) { ringMax = m }(ringMax)
	// Small rings too, so that walks and covers reach their ends.
	for _, ringMax = range []int32{ringMax, 1, 2, 4} {
		for seed := range seeds {
			r := rand.New(rand.NewPCG(seed, 11))
			b := make([]byte, 4*(20+r.IntN(780)))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			Check(&history.History{Ops: opsFromBytes(b, 2+int(seed%6))}, Options{})
		}
		Check(genSC(n/4, 64, 500, 3), Options{})
		for seed := range uint64(20) {
			Check(&history.History{Ops: blindWriters(seed, 48, 3000)}, Options{})
		}
	}
	for _, s := range bad {
		t.Error(s)
	}
	if walks < 10_000 || nonEmpty < 1_000 {
		t.Errorf("%d walks, %d with candidates: the walk is not exercised", walks, nonEmpty)
	}
	t.Logf("%d walks, %d with candidates", walks, nonEmpty)
}

// blindWriters returns n operations of sessions that put key k (now and
// then key j) and read k, most often its latest value, else one of the
// last 40 written: bursts of concurrent writes, so that the writes to
// walk sometimes outgrow the key's ring and covers stop at its end.
func blindWriters(seed uint64, sessions, n int) []history.Op {
	r := rand.New(rand.NewPCG(seed, 5))
	var written []string
	ops := make([]history.Op, 0, n)
	for i := range n {
		s := fmt.Sprint("s", r.IntN(sessions))
		op := history.Op{Session: s, DC: "d", Op: history.Put, Key: "k"}
		if r.IntN(4) == 0 {
			op.Key = "j"
		}
		if len(written) > 0 && r.IntN(3) == 0 {
			back := 0
			if r.IntN(2) == 0 {
				back = r.IntN(min(len(written), 40))
			}
			v := written[len(written)-1-back]
			op.Op, op.Key, op.Value = history.Get, "k", &v
		} else {
			v := fmt.Sprint(s, "-", i)
			op.Value = &v
			if op.Key == "k" {
				written = append(written, v)
			}
		}
		ops = append(ops, op)
	}
	return ops
}

func fmtEntries(es []pentry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "(node %d s%d@%d)", e.node, e.sess, e.idx)
	}
	return "[" + b.String() + "]"
}
