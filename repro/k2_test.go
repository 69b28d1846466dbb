package repro

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
)

// TestK2ReportHasEveryFigure runs a tiny K2 reproduction and checks that
// the report has each figure of k2.txt §VII with the paper's numbers, its
// plots, the cost model's settings and the checker's verdict over all
// runs, and that the progress count matches the runs made.
func TestK2ReportHasEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 40 simulations")
	}
	dir := t.TempDir()
	// 8 settings × 3 protocols, then Fig. 9's two points (their own runs,
	// at Options.PeakServiceTime) for k2 and rad in its 7 settings that
	// change rad's, and k2's alone in the two cache sizes (rad's are the
	// default's).
	const runs = 24 + 7*2*2 + 2*2
	calls := 0
	cost, err := sim.LoadCostModel("default")
	if err != nil {
		t.Fatal(err)
	}
	k, err := k2(Options{Dir: dir, Cost: cost, Duration: 400 * time.Millisecond, Warmup: 100 * time.Millisecond, LatencyClients: 12,
		Threads: []int{12, 24}, Records: 2000, PeakDuration: 400 * time.Millisecond,
		Progress: func(i, n int, _ string) {
			calls++
			if i != calls || n != runs {
				t.Errorf("progress %d/%d at call %d, want %d/%d", i, n, calls, calls, runs)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != runs || len(k.runs) != runs {
		t.Errorf("%d progress calls and %d runs, want %d", calls, len(k.runs), runs)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(data)
	for _, want := range []string{
		"## Fig. 8", "53–165", "88–297", "19–83%", "< 6%", "91–98%", "8f: f = 1",
		"## TAO", "73%", "## Fig. 9", "46.3", "85.4", "## §VII-D — write latency", "23 ms", "147 ms",
		"## §VII-D — staleness", "516–1117", "## RAD's second round", "## Where and why we differ",
		"Cost model settings", "RemoteTxn", "ReadRequest",
		"Every one of the 56 runs below passed the causal+ checker", "start warm", "4ms per message", "Cache 1%", "30.9", "44.3", "exact LRU, 1M keys", "## Runs", "](runs/01-k2-k2-default-12t.json)", "k2-peak",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, fig := range []string{"fig8", "fig8-local", "fig9", "staleness"} {
		if !strings.Contains(report, "]("+fig+".png)") || !strings.Contains(report, "("+fig+".svg)") {
			t.Errorf("report does not link %s's plots", fig)
		}
		for _, ext := range []string{".png", ".svg"} {
			if fi, err := os.Stat(filepath.Join(dir, fig+ext)); err != nil || fi.Size() < 1000 {
				t.Errorf("plot %s%s: %v", fig, ext, err)
			}
		}
	}
	// Every latency run kept its read-only transactions after the warm-up.
	for id, byProto := range k.lat {
		for proto, r := range byProto {
			if len(rots(r)) == 0 {
				t.Errorf("%s %s: no read-only transaction after the warm-up", id, proto)
			}
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
}

// TestOpStatsSharesAndPercentiles checks that opStats computes shares
// over the operations carrying the metric (bench.SimSpec.Warmup keeps the
// warm-up's from it: bench's TestWarmupLeavesEarlyOperationsOutOfTheMetrics).
func TestOpStatsSharesAndPercentiles(t *testing.T) {
	s := newOpStats()
	rep := func(rounds float64) protocol.Reply {
		return protocol.Reply{Metrics: protocol.Metrics{{Name: protocol.MetricWANRounds, Value: rounds}}}
	}
	req := protocol.Request{Op: protocol.OpReadTxn}
	s.add("", req, rep(0), time.Second, time.Second+10*time.Millisecond)
	s.add("", req, rep(2), 2*time.Second, 2*time.Second+300*time.Millisecond)
	if n := s.count(protocol.OpReadTxn); n != 2 {
		t.Fatalf("%d operations kept, want 2", n)
	}
	if got := s.share(protocol.OpReadTxn, protocol.MetricWANRounds, func(v float64) bool { return v == 0 }); got != 0.5 {
		t.Errorf("all-local share %v, want 0.5", got)
	}
	if got := percentile(s.lat[protocol.OpReadTxn], 50); got != 10 {
		t.Errorf("p50 %v ms, want 10", got)
	}
}

// TestLRUModelBounds: the exact-LRU model gives every transaction all
// local once a cache as large as the key space is warm, almost none with
// a cache of one key under a mild skew, and more under more skew.
func TestLRUModelBounds(t *testing.T) {
	if got := lruModel(100, 1.2, 1, 2, 6, 5, 5000, 1000); got != 1 {
		t.Errorf("a cache of every key: all-local %v, want 1", got)
	}
	if got := lruModel(1000, 0.9, 0.001, 2, 6, 5, 5000, 1000); got > 0.05 {
		t.Errorf("a cache of one key: all-local %v, want about 0", got)
	}
	lo, hi := lruModel(10000, 0.9, 0.05, 2, 6, 5, 5000, 2000), lruModel(10000, 1.4, 0.05, 2, 6, 5, 5000, 2000)
	if !(lo < hi) {
		t.Errorf("zipf 0.9 all-local %v, zipf 1.4 %v: want more under more skew", lo, hi)
	}
}
