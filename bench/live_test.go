package bench

import (
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/node/nodetest"
	"github.com/causeway/causeway/workload"
)

// TestLiveHistoriesPassForEveryCausalProtocol runs every protocol that
// claims causal+ consistency as a live cluster (every node in this process,
// real gRPC transport, Pebble, WAN delay) under a short contended
// workload: the live history must pass the checker, and the no-op ceiling
// must have been measured in the same run.
func TestLiveHistoriesPassForEveryCausalProtocol(t *testing.T) {
	w, err := workload.Lookup("ycsb-80-20")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 20
	for _, name := range protocol.Names() {
		p, err := protocol.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Guarantee() != protocol.CausalPlus {
			continue
		}
		t.Run(name, func(t *testing.T) {
			cfg, err := cluster.Load(nodetest.StartLocal(t, "local3", name))
			if err != nil {
				t.Fatal(err)
			}
			// Two seconds: the ceiling's slices now alternate with the
			// workload's, and under -race on a loaded machine one second
			// left cops-pr 7 operations.
			res, err := RunLive(LiveSpec{Cluster: cfg, Workload: w, Seed: 1, Duration: 2 * time.Second,
				Clients: 6, Ceiling: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if res.Ops < 20 || res.CeilingFraction == nil || *res.CeilingOpsS <= 0 {
				t.Errorf("%s: %d operations, ceiling %v", name, res.Ops, res.CeilingOpsS)
			}
			if !res.Check.OK {
				t.Errorf("%s failed the checker on a live run: %s", name, res.Check.FirstViolation())
			}
		})
	}
}

// TestLiveKarmaGetTransactions runs Karma's get-transactions (§4.5) live:
// the read_txns of a contended workload must complete and be snapshots.
func TestLiveKarmaGetTransactions(t *testing.T) {
	w, err := workload.Lookup("read-txn")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 10
	w.ReadProportion, w.ReadTxnProportion = 0.35, 0.5 // enough transactions even on a slow machine
	cfg, err := cluster.Load(nodetest.StartLocal(t, "local3", "karma"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunLive(LiveSpec{Cluster: cfg, Workload: w, Seed: 1, Duration: 2 * time.Second, Clients: 6, Ceiling: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.LatencyMs["read_txn"]; !ok {
		t.Errorf("no read_txn completed in %d operations: %+v, errors %v", res.Ops, res.LatencyMs, res.Errors)
	}
	if !res.Check.OK {
		t.Errorf("karma's live get-transactions failed the checker: %s", res.Check.FirstViolation())
	}
}
