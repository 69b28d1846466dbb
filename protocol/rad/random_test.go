package rad_test

import (
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	_ "github.com/causeway/causeway/protocol/all"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// txnSpec is a short, contended run of RAD on k2-emulab6 with the txn
// workload (gets, puts, read_txn and write_txn of 4 keys) on a few hot
// keys, so that write-only transactions overlap and read-only ones need
// their second round.
func txnSpec(t testing.TB, seed uint64, records int) bench.SimSpec {
	t.Helper()
	p, err := protocol.Lookup("rad")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topology.Lookup("k2-emulab6")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("txn")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = records
	w.ValueSize = 16
	return bench.SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: seed, Duration: 3 * time.Second,
		Clients: 36, ServiceTime: 200 * time.Microsecond, Jitter: 10 * time.Millisecond, OpTimeout: 3 * time.Second}
}

// TestPassesUnderRandomFaults runs RAD over seeds with random crashes,
// restarts and partitions: every history passes the causal+ checker, and
// once the faults heal every node quiesces (nothing pending, nothing
// unreplicated) and the replicas converge (RunSim fails otherwise).
func TestPassesUnderRandomFaults(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 2
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		spec := txnSpec(t, seed, 20)
		spec.Faults = faults.Random(sim.NewRand(seed, "fault-schedule"), spec.Topology, spec.Protocol.Nodes(spec.Topology), spec.Duration)
		res, err := bench.RunSim(spec)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		t.Logf("seed %d: %d ops, errors %v, %d faults, second round %.3f", seed, res.Ops, res.Errors, len(res.Faults), res.ProtocolMetrics["second_round_fraction"])
		if res.Ops < 50 {
			t.Errorf("seed %d: only %d operations completed", seed, res.Ops)
		}
		if !res.Check.OK {
			t.Errorf("seed %d: failed the checker: %s\nreplay: %s\nfaults: %v", seed, res.Check.FirstViolation(),
				bench.ReplayCommand(spec, ""), res.Faults)
		}
	}
}
