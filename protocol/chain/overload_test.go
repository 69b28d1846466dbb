package chain_test

import (
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// TestOverloadConverges runs FAWN-KV past saturation (200 threads of
// cr-ycsb-f, 2 ms per message under the default cost model) with no
// fault: the replicas must converge. Before retransmissions were paced
// (server.resendDue, an adaptive timeout per successor, Client.Resend's
// backoff) and a late Pong counted, each tick's retransmission of every
// unstable version filled the successors' queues past the master's ping
// timeout: live servers were removed, rejoined and removed again, and
// the run diverged (replicas not converged 120 s after it).
func TestOverloadConverges(t *testing.T) {
	p, _ := protocol.Lookup("fawn-kv")
	tp, _ := topology.Lookup("chainreaction-1dc")
	w, _ := workload.Lookup("cr-ycsb-f")
	w.RecordCount = 10000
	res, err := bench.RunSim(bench.SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: 1, Duration: 2 * time.Second,
		Clients: 200, ServiceTime: 2 * time.Millisecond, OpTimeout: 5 * time.Second, Cost: sim.DefaultCostModel()})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Check.OK {
		t.Fatalf("%s", res.Check.FirstViolation())
	}
	if n := res.Errors["put"] + res.Errors["get"]; n > 0 {
		t.Errorf("%d operations failed (timeouts: live servers were removed?)", n)
	}
}
