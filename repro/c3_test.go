package repro

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
)

// TestC3ReportHasEveryFigure runs a tiny reproduction (two loads, a few
// operations per client) and checks that the report has Figs. 1–3 with
// their plots, Table 3's paper numbers beside ours with the bound, the
// done-when checks, the checker's verdict, Saturn or the note that it is
// not built, and every run's JSON, each causal run passing the checker.
func TestC3ReportHasEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs up to 20 simulations")
	}
	dir := t.TempDir()
	_, saturnErr := protocol.Lookup(protoSaturn)
	protos := 4
	if saturnErr == nil {
		protos = 5
	}
	runs := protos * 2 * 2 // two loads, two modes
	var calls int
	var jsons []string
	c, err := c3Repro(Options{Dir: dir, Clients: []int{9, 18}, Scale: 5000, // 180 operations per run
		RunDone: func(_ string, _ *bench.Result, file string) { jsons = append(jsons, file) },
		Progress: func(i, n int, _ string) {
			calls++
			if i != calls || n != runs {
				t.Errorf("progress %d/%d at call %d, want %d/%d", i, n, calls, calls, runs)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != runs || len(jsons) != runs {
		t.Errorf("%d progress calls and %d run JSONs, want %d", calls, len(jsons), runs)
	}
	if !slices.Equal(c.ops, []int{20, 10}) {
		t.Errorf("operations per client %v, want [20 10] (180 per run)", c.ops)
	}
	for _, file := range jsons {
		var res bench.Result
		data, err := os.ReadFile(file)
		if err == nil {
			err = json.Unmarshal(data, &res)
		}
		if err != nil || res.Ops == 0 {
			t.Errorf("run JSON %s: %v (%d ops)", file, err, res.Ops)
			continue
		}
		if causal(res.Guarantee) && !res.Check.OK {
			t.Errorf("%s: %s failed the checker: %s", file, res.Protocol, res.Check.FirstViolation())
		}
		if res.Ops+res.Errors["get"]+res.Errors["put"] != 180 {
			t.Errorf("%s: %d operations and %v errors, want 180 in all", file, res.Ops, res.Errors)
		}
		if res.VisibilityFromIssueMs == nil || res.VisibilityFromIssueMs.Mean <= 0 || res.VisibilityBoundMs.Mean <= 0 {
			t.Errorf("%s: no mean visibility or bound", file)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(data)
	want := []string{
		"Scaled down 5000×", "c3-local", "c3-remote", "## Done-when checks", "within 1.5×",
		"## Fig. 1", "E-LQ", "E-Q", "E-EQ", "## Fig. 2", "## Fig. 3 and Table 3", "6656", "27991", "paper / ours (bound)",
		"## Where and why we differ", "64×", "## Runs", "](runs/01-c3-c3-local-9t.json)",
		"causal runs (C3, Saturn) passed the causal+ checker",
	}
	if saturnErr == nil {
		want = append(want, "C-SAT |")
	} else {
		want = append(want, "saturn not built")
	}
	for _, w := range want {
		if !strings.Contains(report, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	for _, fig := range []string{"fig1", "fig2", "fig3"} {
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
}

// TestC3DoneWhenChecks feeds the report made-up results and checks its
// verdicts on issue #15's targets: C3 within 1.5× of the bound at the
// lightest load, Saturn at least 2.5× slower to make writes visible at
// every load, C3 ahead of Saturn in remote mode.
func TestC3DoneWhenChecks(t *testing.T) {
	fake := func(vis, bound, tput float64) *run {
		return &run{res: &bench.Result{ThroughputOpsS: tput, Guarantee: "causal+",
			VisibilityFromIssueMs: &bench.Percentiles{Mean: vis}, VisibilityBoundMs: &bench.Percentiles{Mean: bound}}}
	}
	check := func(c3Vis, satVis, c3Tput, satTput float64) string {
		c := &c3Runner{runner: runner{opts: Options{Scale: DefaultC3Scale}}, clients: []int{18, 36}, saturn: true,
			protos: []string{protoC3, protoSaturn}}
		c.byMode = map[string]map[string][]*run{modeLocal: {}, modeRemote: {}}
		for _, m := range []string{modeLocal, modeRemote} {
			c.byMode[m][protoC3] = []*run{fake(c3Vis, 100, c3Tput), fake(c3Vis, 100, c3Tput)}
			c.byMode[m][protoSaturn] = []*run{fake(satVis, 100, satTput), fake(satVis, 100, satTput)}
		}
		var b strings.Builder
		c.writeDoneWhen(printer{&b})
		return b.String()
	}
	if got := check(140, 400, 2000, 1000); strings.Contains(got, "FAIL") {
		t.Errorf("every target met, yet:\n%s", got)
	}
	for _, tc := range []struct {
		name                           string
		c3Vis, satVis, c3Tput, satTput float64
		failing                        string
	}{
		{"C3 far from its bound", 160, 1000, 2000, 1000, "within 1.5×"},
		{"Saturn close to C3", 140, 300, 2000, 1000, "≥ 2.5×"},
		{"Saturn ahead in remote mode", 140, 400, 900, 1000, "remote mode"},
	} {
		got := check(tc.c3Vis, tc.satVis, tc.c3Tput, tc.satTput)
		for _, line := range strings.Split(got, "\n") {
			if strings.Contains(line, tc.failing) && !strings.Contains(line, "FAIL") {
				t.Errorf("%s: not failed:\n%s", tc.name, got)
			}
		}
	}
}

// TestC3ClientsScaleThePaper checks the default loads: the paper's seven
// client counts divided by the scale, each client running the paper's
// operation count (25,000 per instance over its threads).
func TestC3ClientsScaleThePaper(t *testing.T) {
	if got, want := c3Clients(Options{Scale: 100}), []int{18, 36, 54, 72, 90, 108, 126}; !slices.Equal(got, want) {
		t.Errorf("clients %v, want %v", got, want)
	}
	if got := c3Clients(Options{Scale: 100, Clients: []int{40, 20}}); !slices.Equal(got, []int{20, 40}) {
		t.Errorf("explicit clients %v, want [20 40]", got)
	}
}
