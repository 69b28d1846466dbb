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
// broken, failed writes read back) and on a long causal one with many
// sessions (concurrent writes, covers that lag).
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
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 11))
		b := make([]byte, 4*(20+r.IntN(780)))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		Check(&history.History{Ops: opsFromBytes(b, 2+int(seed%6))}, Options{})
	}
	n := 60_000
	if raceEnabled || testing.Short() {
		n = 15_000
	}
	Check(genSC(n, 64, 500, 3), Options{})
	for _, s := range bad {
		t.Error(s)
	}
	if walks < 10_000 || nonEmpty < 1_000 {
		t.Errorf("%d walks, %d with candidates: the walk is not exercised", walks, nonEmpty)
	}
	t.Logf("%d walks, %d with candidates", walks, nonEmpty)
}

func fmtEntries(es []pentry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "(node %d s%d@%d)", e.node, e.sess, e.idx)
	}
	return "[" + b.String() + "]"
}
