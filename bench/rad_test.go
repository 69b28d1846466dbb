package bench

import (
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// TestRADKeepsUpWithAOneDCGroup replays `causeway sim --protocol rad
// --topology local3 --workload read-txn --records 100 --value-size 200
// --distribution zipfian --seed 60 --duration 15s --clients 6
// --service-time 100us --op-timeout 2s --txn-keys 4`, a fault-free run of
// torture's availability campaign. On local3 with f=2 the replica group
// {b} is one DC, whose clients write at local speed (~500 writes/s), while
// the group {a, c} commits a chain of dependent replicated writes one
// wide-area one-way per link (~50/s): without backpressure 3,600 writes
// were still uncommitted when the clients stopped, the run did not go
// quiet within the 120 s quiesce limit and b and c disagreed on a hot key.
// With receivers reporting their backlog (protocol/rad/backpressure.go)
// the run converges and visibility stays within seconds.
func TestRADKeepsUpWithAOneDCGroup(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a 15 s run of ~10,000 operations; make seeds runs it without -race")
	}
	p, err := protocol.Lookup("rad")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("read-txn")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount, w.ValueSize, w.Distribution, w.TxnKeys = 100, 200, "zipfian", 4
	res, err := RunSim(SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: 60, Duration: 15 * time.Second,
		Clients: 6, ServiceTime: 100 * time.Microsecond, OpTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Check.OK || res.Check.Converged == nil || !*res.Check.Converged {
		t.Fatalf("not converged or failed the checker: %s", res.Check.FirstViolation())
	}
	if res.VisibilityMs == nil || res.VisibilityMs.P99 > 30_000 {
		t.Errorf("visibility %+v: want p99 under 30 s", res.VisibilityMs)
	}
	t.Logf("%d ops, visibility p50 %.0f ms, p99 %.0f ms", res.Ops, res.VisibilityMs.P50, res.VisibilityMs.P99)
}
