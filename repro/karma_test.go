package repro

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKarmaReportHasEveryFigure runs a tiny reproduction and checks that
// the report has each figure, the paper's numbers and the checker's
// verdict over all runs.
func TestKarmaReportHasEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 14 simulations")
	}
	dir := t.TempDir()
	var calls int
	err := Karma(Options{Dir: dir, Duration: 150 * time.Millisecond, Threads: []int{16, 32},
		Progress: func(i, n int, _ string) {
			calls++
			if i != calls || n != 14 {
				t.Errorf("progress %d/%d at call %d, want %d/14", i, n, calls, calls)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(data)
	for _, want := range []string{"## Fig. 7", "## Fig. 10", "## Fig. 11", "## Fig. 12", "+43%", "~0.77", "< 0.02",
		"Every one of the 14 runs below passed the causal+ checker", "## Where and why we differ"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if calls != 14 {
		t.Errorf("progress called %d times, want 14", calls)
	}
}
