package bench

import (
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's target without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestTuneGCForSim: RunSim's GC target holds while runs overlap and the
// setting from before the first comes back after the last; with GOGC set,
// nothing changes.
func TestTuneGCForSim(t *testing.T) {
	t.Setenv("GOGC", "")
	old := debug.SetGCPercent(123)
	defer debug.SetGCPercent(old)
	a := tuneGCForSim()
	b := tuneGCForSim()
	if p := gcPercent(); p != SimGCPercent {
		t.Fatalf("during two runs: GC percent %d, want %d", p, SimGCPercent)
	}
	a()
	if p := gcPercent(); p != SimGCPercent {
		t.Fatalf("one run still going: GC percent %d, want %d", p, SimGCPercent)
	}
	b()
	if p := gcPercent(); p != 123 {
		t.Fatalf("after the runs: GC percent %d, want 123", p)
	}
	t.Setenv("GOGC", "150")
	c := tuneGCForSim()
	if p := gcPercent(); p != 123 {
		t.Fatalf("GOGC set: GC percent %d, want 123 untouched", p)
	}
	c()
}
