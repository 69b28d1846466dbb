package bench

import (
	"testing"
	"time"
)

// TestOpsPerClient checks the fixed operation count: every session
// completes exactly OpsPerClient operations, the run ends at the last
// completion, long before its Duration cap, and throughput counts up to
// it.
func TestOpsPerClient(t *testing.T) {
	spec := smallSpec(t, "cops", "local3", 1, false)
	spec.Duration = time.Minute
	spec.OpsPerClient = 7
	var last Progress
	spec.Progress = func(p Progress) { last = p }
	res, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(spec.Clients * spec.OpsPerClient); res.Ops+res.Errors["get"]+res.Errors["put"] != want {
		t.Errorf("%d sessions × %d: %d operations and %v errors, want %d in all", spec.Clients, spec.OpsPerClient, res.Ops, res.Errors, want)
	}
	if res.DurationS <= 0 || res.DurationS >= spec.Duration.Seconds()/10 {
		t.Errorf("ran %v s of a %v cap: did not stop at the last operation", res.DurationS, spec.Duration)
	}
	if got := float64(res.Ops) / res.DurationS; res.ThroughputOpsS < 0.99*got || res.ThroughputOpsS > 1.01*got {
		t.Errorf("throughput %v, want ops/duration %v", res.ThroughputOpsS, got)
	}
	if last.Done != last.Total {
		t.Errorf("last progress %v of %v, want all the operations", last.Done, last.Total)
	}
	if !res.Check.OK {
		t.Errorf("checker: %s", res.Check.FirstViolation())
	}
}
