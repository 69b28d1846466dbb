package c3_test

import (
	"testing"

	"github.com/causeway/causeway/bench"
	_ "github.com/causeway/causeway/protocol/all"
)

// spec is a short contended run of c3 on topo (bench.ContendedSpec).
func spec(t *testing.T, topo string, seed uint64, withFaults bool) bench.SimSpec {
	t.Helper()
	s, err := bench.ContendedSpec("c3", topo, seed, withFaults)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPassesUnderRandomFaults runs c3 over seeds with random crashes (of
// storage servers and layers) and partitions: every history passes the
// checker, the replicas converge and every layer is quiescent once the
// faults heal.
func TestPassesUnderRandomFaults(t *testing.T) {
	seeds := uint64(8)
	if testing.Short() {
		seeds = 2
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		topo := "local3"
		if seed%2 == 0 {
			topo = "c3-azure9"
		}
		res, err := bench.RunSim(spec(t, topo, seed, seed > 1))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		migrations := res.ProtocolMetrics["migrate_ms_mean"]
		t.Logf("seed %d on %s: %d ops, migrate_ms mean %.0f, verdict %s", seed, topo, res.Ops, migrations, res.Check.Verdict())
		if res.Ops < 50 {
			t.Errorf("seed %d on %s: only %d operations", seed, topo, res.Ops)
		}
		if !res.Check.OK {
			t.Errorf("seed %d on %s: %s", seed, topo, res.Check.FirstViolation())
		}
	}
}

// TestSessionsHearOnlyFromNodesTheyAsked checks the live runtime's rule
// (ARCHITECTURE.md, "Replies to sessions"): a node sends to a session only
// if the session sent it something since the node started, for the live
// transport has no other way back to it. A target layer's MigrateResponse
// sent straight to the session broke it and stalled every migration live.
// Without faults none may be sent; a layer restarted between a session's
// ClientMigrate and the answer it relays does lose one (the session asks
// again after migrateResend).
func TestSessionsHearOnlyFromNodesTheyAsked(t *testing.T) {
	for _, topo := range []string{"local3", "c3-azure9"} {
		res, err := bench.RunSim(spec(t, topo, 1, false))
		if err != nil {
			t.Fatal(err)
		}
		if res.ProtocolMetrics["migrate_ms_mean"] <= 0 {
			t.Errorf("%s: no session migrated", topo)
		}
		if n := *res.UnroutedReplies; n != 0 {
			t.Errorf("%s: %d messages to a session from a node it never sent to", topo, n)
		}
	}
}
