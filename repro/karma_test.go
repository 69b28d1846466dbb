package repro

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
)

// TestKarmaReportHasEveryFigure runs a tiny reproduction and checks that
// the report has each figure with the paper's numbers and its plot, the
// checker's verdict over all runs, and that congesting Europe slows the
// gets of COPS-PR, whose clients in the US and Europe ring cannot avoid
// it (karma.txt §6.2).
func TestKarmaReportHasEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 22 simulations")
	}
	dir := t.TempDir()
	const runs = 22 // 4 protocols × 2 thread counts, 6 mixes, 2 loads, 2×2 congestion, 2 object sizes
	var calls int
	k, err := karma(Options{Dir: dir, Duration: 150 * time.Millisecond, Threads: []int{16, 32},
		CongestionDuration: 3 * time.Second, CongestionThreads: 16, CongestionRate: 5, CongestionDelays: []time.Duration{600 * time.Millisecond},
		ValueSizes: []int{200, 1024},
		Progress: func(i, n int, _ string) {
			calls++
			if i != calls || n != runs {
				t.Errorf("progress %d/%d at call %d, want %d/%d", i, n, calls, calls, runs)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != runs {
		t.Errorf("progress called %d times, want %d", calls, runs)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(data)
	for _, want := range []string{
		"## Fig. 7", "+43%", "visibility / bound p50, p99", "## Figs. 8 and 9", "### Fig. 8", "### Fig. 9", "120 s", "from 1s to 2s",
		"## Fig. 10", "+32%", "## Fig. 11", "< 0.02", "## Fig. 12", "~0.77",
		"## §6.4", "CAPEX", "OPEX", "32–43%", "8–26%", "14%", "1,645 B",
		"## §6.5", "within 13%", "## Where and why we differ",
		"Every one of the 22 runs below passed the causal+ checker",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, fig := range []string{"fig7", "fig8", "fig9", "fig10", "fig11", "fig12", "fig14", "object-size"} {
		if !strings.Contains(report, "]("+fig+".png)") || !strings.Contains(report, "("+fig+".svg)") {
			t.Errorf("report does not link %s's plots", fig)
		}
		for _, ext := range []string{".png", ".svg"} {
			if fi, err := os.Stat(filepath.Join(dir, fig+ext)); err != nil || fi.Size() < 1000 {
				t.Errorf("plot %s%s: %v", fig, ext, err)
			}
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}

	// Congestion: COPS-PR's gets issued while Europe is congested are
	// slower than before it in the same run, and than in the same window
	// of the uncongested run.
	c := k.cong
	r := c.worst("cops-pr")
	before, during, base := c.before(r), c.during(r), c.during(c.base["cops-pr"])
	if during.getMs <= 1.5*before.getMs || during.getMs <= 1.5*base.getMs {
		t.Errorf("cops-pr +%v: mean get %.1f ms while congested, %.1f ms before, %.1f ms uncongested",
			r.delay, during.getMs, before.getMs, base.getMs)
	}
	if len(r.res.Timeline) != timelineBuckets {
		t.Errorf("congestion run has %d intervals, want %d", len(r.res.Timeline), timelineBuckets)
	}
}

// TestSaturationSweepStopsWhenThroughputStopsRising checks Fig. 7's
// adaptive sweep (§5: threads "increased till the system saturates") on
// made-up throughputs: a protocol's sweep stops at the first doubling
// that gains less than SaturationGain, its best run is its saturation
// point, and the runs it skips leave the progress total.
func TestSaturationSweepStopsWhenThroughputStopsRising(t *testing.T) {
	thr := map[string]map[int]float64{
		"flat":   {256: 1000, 512: 1050, 1024: 5000},
		"rising": {256: 1000, 512: 2000, 1024: 3000, 2048: 3200, 4096: 9999},
	}
	k := &karmaRunner{opts: Options{}.withDefaults(), protos: []string{"flat", "rising"}}
	k.total = len(k.protos) * len(k.sweepPlan())
	k.simulate = func(s spec) (*run, error) {
		return &run{protocol: s.protocol, threads: s.threads, res: &bench.Result{ThroughputOpsS: thr[s.protocol][s.threads]}}, nil
	}
	if err := k.saturation(); err != nil {
		t.Fatal(err)
	}
	if got := k.sweep["flat"]; !slices.Equal(got, []int{256, 512}) {
		t.Errorf("flat swept %v, want [256 512]", got)
	}
	if got := k.sweep["rising"]; !slices.Equal(got, []int{256, 512, 1024, 2048}) {
		t.Errorf("rising swept %v, want [256 512 1024 2048]", got)
	}
	if k.sat["flat"].threads != 512 || k.sat["rising"].threads != 2048 {
		t.Errorf("saturation at %d and %d threads, want 512 and 2048", k.sat["flat"].threads, k.sat["rising"].threads)
	}
	if want := 2*len(k.sweepPlan()) - 3 - 1; k.total != want {
		t.Errorf("progress total %d after the sweep, want %d", k.total, want)
	}
}
