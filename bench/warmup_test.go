package bench

import (
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/workload"
)

// TestWarmupLeavesEarlyOperationsOutOfTheMetrics: with a warm-up of half
// the run, the operations issued in the first half still run and are
// checked (the checker sees every operation), but the result counts only
// the later ones, its throughput is over the second half, and it says
// how long the warm-up was, and OnDone sees the operations it counts;
// without one, every operation is counted.
func TestWarmupLeavesEarlyOperationsOutOfTheMetrics(t *testing.T) {
	p, tp := lookup(t, "cops", "local3")
	w, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 100
	spec := SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: 1, Duration: 2 * time.Second,
		Clients: 3, ServiceTime: 100 * time.Microsecond, OpTimeout: time.Second}
	full, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Warmup = time.Second
	seen := int64(0)
	spec.OnDone = func(_ string, _ protocol.Request, rep protocol.Reply, start, _ time.Duration) {
		if start < spec.Warmup {
			t.Errorf("OnDone saw an operation issued at %v, in the warm-up", start)
		}
		if rep.Err == protocol.OK {
			seen++
		}
	}
	warm, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !full.Check.OK || !warm.Check.OK {
		t.Fatalf("checker: %s / %s", full.Check.FirstViolation(), warm.Check.FirstViolation())
	}
	if full.Ops != int64(full.Check.Operations) || full.WarmupS != 0 {
		t.Errorf("without a warm-up: %d ops counted, %d checked, warmup_s %v; want all counted, no warmup_s",
			full.Ops, full.Check.Operations, full.WarmupS)
	}
	if warm.Check.Operations != full.Check.Operations {
		t.Errorf("with a warm-up the checker saw %d operations, without %d: the same run must be checked whole",
			warm.Check.Operations, full.Check.Operations)
	}
	if warm.Ops <= 0 || warm.Ops*10 > full.Ops*6 || warm.Ops*10 < full.Ops*4 {
		t.Errorf("with a warm-up of half the run %d of %d operations counted, want about half", warm.Ops, full.Ops)
	}
	if seen != warm.Ops {
		t.Errorf("OnDone saw %d successful operations, the result counts %d", seen, warm.Ops)
	}
	if warm.WarmupS != 1 || warm.ThroughputOpsS != float64(warm.Ops) {
		t.Errorf("warmup_s %v, throughput %v ops/s for %d ops in the last second", warm.WarmupS, warm.ThroughputOpsS, warm.Ops)
	}
	spec.Warmup = spec.Duration
	if _, err := RunSim(spec); err == nil {
		t.Error("a warm-up as long as the run was accepted")
	}
}
