package saturn_test

import (
	"testing"

	"github.com/causeway/causeway/bench"
	_ "github.com/causeway/causeway/protocol/all"
)

// TestPassesUnderRandomFaults runs saturn over seeds, alternating local3
// and c3-azure9, with random crashes (of storage servers and serializers)
// and partitions (seed 1 without): every history passes the checker, the
// replicas converge and every serializer is quiescent once the faults
// heal, and sessions migrate.
func TestPassesUnderRandomFaults(t *testing.T) {
	seeds := uint64(8)
	if testing.Short() {
		seeds = 2
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		topo := map[bool]string{true: "local3", false: "c3-azure9"}[seed%2 == 1]
		spec, err := bench.ContendedSpec("saturn", topo, seed, seed > 1)
		if err != nil {
			t.Fatal(err)
		}
		res, err := bench.RunSim(spec)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		t.Logf("seed %d on %s: %d ops, migrate_ms mean %.0f, verdict %s", seed, topo, res.Ops,
			res.ProtocolMetrics["migrate_ms_mean"], res.Check.Verdict())
		if res.Ops < 50 {
			t.Errorf("seed %d on %s: only %d operations", seed, topo, res.Ops)
		}
		if res.ProtocolMetrics["migrate_ms_mean"] <= 0 {
			t.Errorf("seed %d on %s: no session migrated", seed, topo)
		}
		if !res.Check.OK {
			t.Errorf("seed %d on %s: %s", seed, topo, res.Check.FirstViolation())
		}
	}
}
