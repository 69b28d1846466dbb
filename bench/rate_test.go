package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/runtime/node/nodetest"
	"github.com/causeway/causeway/workload"
)

// TestClientRate checks that ClientRate caps each session's operations per
// second, and that a session slower than the cap is not held back.
func TestClientRate(t *testing.T) {
	spec := smallSpec(t, "cops", "local3", 1, false)
	spec.Duration = 2 * time.Second
	spec.ClientRate = 20
	res, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	// cops answers in the session's DC within milliseconds, so every
	// session keeps to the rate: 2 s × 20 ops/s each (and one more when
	// an operation is due at the very end).
	limit := int64(float64(spec.Clients) * spec.ClientRate * spec.Duration.Seconds())
	if res.Ops > limit+int64(spec.Clients) || res.Ops < limit*9/10 {
		t.Errorf("%d sessions at %v ops/s for %v completed %d operations, want about %d",
			spec.Clients, spec.ClientRate, spec.Duration, res.Ops, limit)
	}
	if !res.Check.OK {
		t.Errorf("checker: %s", res.Check.FirstViolation())
	}
	// A cap far above what the sessions can do changes nothing.
	spec.ClientRate = 1e6
	capped, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.ClientRate = 0
	free, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	if capped.Ops < free.Ops*9/10 {
		t.Errorf("a cap of 1e6 ops/s per session cut %d operations to %d", free.Ops, capped.Ops)
	}
}

// TestLiveClientRateCapsOperations: on a live cluster, an open loop at
// ClientRate (bench --target divided over the sessions) keeps each session
// to its schedule, so no run can complete more than one operation per
// session per interval, plus the first.
func TestLiveClientRateCapsOperations(t *testing.T) {
	w, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 20
	cfg, err := cluster.Load(nodetest.StartLocal(t, "local3", "cops"))
	if err != nil {
		t.Fatal(err)
	}
	const clients, rate = 6, 4.0
	d := time.Second
	res, err := RunLive(LiveSpec{Cluster: cfg, Workload: w, Seed: 1, Duration: d, Clients: clients, Ceiling: -1, ClientRate: rate, OpenLoop: true})
	if err != nil {
		t.Fatal(err)
	}
	if limit := int64(clients * (rate*d.Seconds() + 1)); res.Ops == 0 || res.Ops > limit || !res.Check.OK {
		t.Errorf("%d sessions at %v ops/s for %v: %d operations (at most %d), checker ok %v", clients, rate, d, res.Ops, limit, res.Check.OK)
	}
}

// TestReplayCommandCarriesTheRate: a run with a client rate replays with
// --target, the rate over all its clients.
func TestReplayCommandCarriesTheRate(t *testing.T) {
	spec := smallSpec(t, "cops", "local3", 1, false)
	spec.ClientRate, spec.OpenLoop = 20, true
	cmd := ReplayCommand(spec, "f.yaml")
	if want := fmt.Sprintf("--target %d", 20*spec.Clients); !strings.Contains(cmd, want) || strings.Contains(cmd, "not expressible") {
		t.Errorf("replay of a %v ops/s run: %s; want %s", spec.ClientRate, cmd, want)
	}
}

// TestOpenLoopShowsQueueing offers more than servers can serve: paced
// sessions (ClientRate alone) slow down with the system and keep their
// latency, while an open loop keeps its schedule, so its latencies, counted
// from when operations were due, grow with the backlog. Below capacity
// the two agree.
func TestOpenLoopShowsQueueing(t *testing.T) {
	run := func(rate float64, open bool) *Result {
		t.Helper()
		spec := smallSpec(t, "cops", "local3", 1, false)
		spec.Duration, spec.ServiceTime = 2*time.Second, 2*time.Millisecond
		spec.ClientRate, spec.OpenLoop = rate, open
		res, err := RunSim(spec)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Check.OK {
			t.Fatalf("checker: %s", res.Check.FirstViolation())
		}
		return res
	}
	paced, open := run(1000, false), run(1000, true)
	if p, o := paced.LatencyMs["get"].P99, open.LatencyMs["get"].P99; o < 10*p {
		t.Errorf("overloaded: open-loop get p99 %.1f ms, paced %.1f ms; want the open loop's queueing to show", o, p)
	}
	paced, open = run(5, false), run(5, true)
	if paced.Ops != open.Ops || paced.LatencyMs["get"].P99 != open.LatencyMs["get"].P99 {
		t.Errorf("below capacity: open loop %d ops, p99 %.1f ms; paced %d ops, p99 %.1f ms; want the same",
			open.Ops, open.LatencyMs["get"].P99, paced.Ops, paced.LatencyMs["get"].P99)
	}
}
