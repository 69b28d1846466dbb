package repro

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChainReactionReportHasEveryFigure runs a tiny reproduction and
// checks that the report has each figure with the paper's numbers and
// its plot and the checker's verdict, the geo figures included.
func TestChainReactionReportHasEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 104 simulations")
	}
	dir := t.TempDir()
	var calls, total int
	k, err := chainReaction(CROptions{Options: Options{Dir: dir, Duration: 150 * time.Millisecond,
		Progress: func(i, n int, _ string) { calls, total = i, n }},
		Clients: 8, FailDuration: 2 * time.Second, FailAt: 800 * time.Millisecond, FailThreads: 8})
	if err != nil {
		t.Fatal(err)
	}
	if calls != total || calls != len(k.runs) {
		t.Errorf("progress ended at %d/%d after %d runs", calls, total, len(k.runs))
	}
	for _, r := range k.runs {
		if !r.res.Check.OK {
			t.Errorf("%s %s: %s: %s", r.protocol, r.workload, r.res.Check.Verdict(), r.res.Check.FirstViolation())
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(data)
	for _, want := range []string{"## Fig. 2a", "+178%", "## Fig. 2b", "4.3×", "**Done-when:**", "## Figs. 3 and 4",
		"## Figs. 8 and 9", "two DCs", "## Fig. 10", "## Geo: Figs. 5, 6 and 7", "### Fig. 5a", "+56%", "### Fig. 5b", "+1,249%",
		"### Figs. 6 and 7", "## Fig. 11", "16,300", "passed the causal+ checker", "## Runs"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, fig := range []string{"fig2a", "fig2b", "fig3", "fig4", "fig5a", "fig5b", "fig6", "fig7", "fig8", "fig9", "fig10", "fig11"} {
		for _, ext := range []string{".png", ".svg"} {
			if _, err := os.Stat(filepath.Join(dir, fig+ext)); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestChainReactionFigures runs only the groups selected, says which were
// not, and rejects an unknown group.
func TestChainReactionFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 9 simulations")
	}
	dir := t.TempDir()
	k, err := chainReaction(CROptions{Options: Options{Dir: dir, Duration: 150 * time.Millisecond}, Clients: 8, Figures: "meta"})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(crMetaSystems) * len(crMetaMixes); len(k.runs) != want || k.total != want {
		t.Errorf("%d runs of %d planned, want %d", len(k.runs), k.total, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Fig. 11", "## Not run", "Figs. 2–4 (site)", "Figs. 5–7 (geo)"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if _, err := chainReaction(CROptions{Options: Options{Dir: dir}, Figures: "site,fig5"}); err == nil || !strings.Contains(err.Error(), "fig5") {
		t.Errorf("unknown group: err = %v", err)
	}
}
