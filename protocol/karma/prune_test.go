package karma_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/karma"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// mmEntries runs karma in the simulator (local3, ycsb-95-5) for d and
// returns, summed over the middle men alive at the end (after the run
// has quiesced), the entries of each of their per-version maps.
func mmEntries(t *testing.T, d time.Duration) map[string]int {
	t.Helper()
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	wl, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		t.Fatal(err)
	}
	base, err := protocol.Lookup(karma.NameKarma)
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[protocol.Node]bool{}
	p := karma.WatchNodes(base.(*karma.Protocol), func(n protocol.Node) { nodes[n] = true })
	res, err := bench.RunSim(bench.SimSpec{Protocol: p, Topology: topo, Workload: wl, Seed: 1, Duration: d, Clients: 12})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Check.OK {
		t.Fatalf("checker: %s", res.Check.FirstViolation())
	}
	sum := map[string]int{}
	for n := range nodes {
		for k, v := range karma.MMEntries(n) {
			sum[k] += v
		}
	}
	return sum
}

func show(m map[string]int) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, " %s=%d", k, m[k])
	}
	return b.String()
}

// TestMiddleMenStayBounded runs the same workload for 2 s and for 8 s:
// the middle men's per-version state at the end must not grow with the
// run's length (doc.go, "Pruning"). Before pruning every map below grew
// about 4.5x (committed 774 -> 3536, keyOf 968 -> 4499). The
// multiversion window (old, aging) holds what the last txnWindow
// superseded, so it grows until the run is longer than that.
func TestMiddleMenStayBounded(t *testing.T) {
	short, long := mmEntries(t, 2*time.Second), mmEntries(t, 8*time.Second)
	t.Logf("2s:%s", show(short))
	t.Logf("8s:%s", show(long))
	for _, k := range []string{"committed", "readyAt", "installed", "keyOf", "knownReady", "knownWritten",
		"knownInstalled", "selfWritten", "knownSelfWritten", "early", "tracked", "waiters", "stab"} {
		if long[k] > 2*short[k]+50 {
			t.Errorf("%s: %d entries after 2 s, %d after 8 s: grows with the run", k, short[k], long[k])
		}
	}
}
