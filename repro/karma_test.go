package repro

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/runtime/sim"
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
	cost, err := sim.LoadCostModel("default") // per-byte cost: §6.5 is run
	if err != nil {
		t.Fatal(err)
	}
	var jsons []string
	k, err := karma(Options{Dir: dir, Duration: 150 * time.Millisecond, Threads: []int{16, 32}, Cost: cost,
		RunDone:            func(_ string, _ *bench.Result, file string) { jsons = append(jsons, file) },
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
	// Each run's JSON beside the report, listed in it, readable as a result.
	if len(jsons) != runs {
		t.Errorf("%d run JSONs reported, want %d", len(jsons), runs)
	}
	for i, file := range jsons {
		var res bench.Result
		data, err := os.ReadFile(file)
		if err == nil {
			err = json.Unmarshal(data, &res)
		}
		if err != nil || res.Ops == 0 || !res.Check.OK {
			t.Errorf("run %d's JSON %s: %v (%d ops)", i+1, file, err, res.Ops)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(data)
	for _, want := range []string{
		"## Fig. 7", "+43%", "visibility / bound p50, p99", "visibility / queued bound p50, p99",
		"### Where a write's visibility goes", "| karma | 16 |", "| cops | 32 |", "of the queueing-free bound;",
		"of the queued bound.", "## Figs. 8 and 9", "### Fig. 8", "### Fig. 9", "120 s", "from 1s to 2s",
		"## Fig. 10", "+32%", "## Fig. 11", "< 0.02", "measured W p50 | model q(T, W)", "## Fig. 12", "~0.77",
		"## §6.4", "CAPEX", "OPEX", "32–43%", "8–26%", "14%", "1,645 B",
		"## §6.5", "within 13%", "## Where and why we differ",
		"Every one of the 22 runs below passed the causal+ checker",
		"## Runs", "](runs/01-cops-ycsb-95-5-16t.json)",
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
	k := &karmaRunner{runner: runner{opts: Options{}.withDefaults()}, protos: []string{"flat", "rising"}}
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

// TestBreakdownRunsFillTheSweepPlan: the visibility breakdown's
// protocols run at every thread count of the plan their own sweep skipped,
// and the progress total counts those runs.
func TestBreakdownRunsFillTheSweepPlan(t *testing.T) {
	thr := map[string]map[int]float64{
		"cops":     {256: 1000, 512: 1050},
		"karma":    {256: 1000, 512: 2000, 1024: 4000, 2048: 8000, 4096: 16000},
		"karma-nc": {256: 1000, 512: 1000},
		"cops-pr":  {256: 1000, 512: 2000, 1024: 2100},
	}
	k := &karmaRunner{runner: runner{opts: Options{}.withDefaults()}, protos: []string{"cops", "karma", "karma-nc", "cops-pr"}}
	k.total = len(k.protos) * len(k.sweepPlan())
	k.simulate = func(s spec) (*run, error) {
		r := &run{protocol: s.protocol, workload: s.workload.Name, threads: s.threads, res: &bench.Result{ThroughputOpsS: thr[s.protocol][s.threads]}}
		k.runs = append(k.runs, r)
		return r, nil
	}
	if err := k.saturation(); err != nil {
		t.Fatal(err)
	}
	before := len(k.runs)
	if err := k.breakdownRuns(); err != nil {
		t.Fatal(err)
	}
	if added := len(k.runs) - before; added != 5 { // cops 1024, 2048, 4096; cops-pr 2048, 4096
		t.Errorf("%d breakdown runs, want 5", added)
	}
	for _, p := range breakdownProtos {
		for _, n := range k.sweepPlan() {
			if k.find(p, "ycsb-95-5", n) == nil {
				t.Errorf("no %s run at %d threads", p, n)
			}
		}
	}
	if k.find("karma-nc", "ycsb-95-5", 1024) != nil {
		t.Errorf("karma-nc ran at 1024 threads for the breakdown")
	}
	if want := 4*len(k.sweepPlan()) - 3 - 3 - 2 + 5; k.total != want {
		t.Errorf("progress total %d, want %d", k.total, want)
	}
}

// TestDoublingTicksLabelEachPowerOfTwo checks the log axis of Fig. 7's
// thread sweep: one tick per doubling, none outside the range.
func TestDoublingTicksLabelEachPowerOfTwo(t *testing.T) {
	var got []string
	for _, tk := range (doublingTicks{}).Ticks(256/1.4, 4096*1.4) {
		got = append(got, tk.Label)
	}
	if want := []string{"256", "512", "1024", "2048", "4096"}; !slices.Equal(got, want) {
		t.Errorf("ticks %v, want %v", got, want)
	}
}

// TestObjectSizesNeedAPerByteCost checks that §6.5 is not run, and says
// why, when the cost model charges nothing per byte: its table could not
// show an effect.
func TestObjectSizesNeedAPerByteCost(t *testing.T) {
	k := &karmaRunner{runner: runner{opts: Options{}.withDefaults()}}
	if err := k.objectSizes(); err != nil || k.sizes != nil {
		t.Fatalf("object sizes ran without a per-byte cost: %v, %v", err, k.sizes)
	}
	var b strings.Builder
	k.writeObjectSize(printer{&b}, figure{})
	if !strings.Contains(b.String(), "Not run") || strings.Contains(b.String(), "| object size |") {
		t.Errorf("§6.5 without a per-byte cost:\n%s", b.String())
	}
}

// TestKarmaInterruptKeepsTheRunsSoFar cancels the reproduction as its
// first run completes (Ctrl-C): Karma returns ErrInterrupted, no report is
// written, and the runs so far are kept as JSON.
func TestKarmaInterruptKeepsTheRunsSoFar(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var files []string
	_, err := karma(Options{Dir: dir, Duration: 100 * time.Millisecond, Threads: []int{8, 16}, Context: ctx,
		RunDone: func(_ string, _ *bench.Result, file string) {
			files = append(files, file)
			cancel()
		}})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("karma after cancel: %v, want ErrInterrupted", err)
	}
	if len(files) != 1 {
		t.Fatalf("%d runs after the interrupt, want 1", len(files))
	}
	if _, err := os.Stat(files[0]); err != nil {
		t.Errorf("the completed run's JSON: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err == nil {
		t.Error("a report was written for an interrupted reproduction")
	}
}
