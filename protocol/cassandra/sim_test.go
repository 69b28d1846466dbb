package cassandra_test

import (
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
)

// spec is a short contended run of proto on topo (bench.ContendedSpec),
// with a 2 s operation timeout.
func spec(t *testing.T, proto, topo string, seed uint64, withFaults bool) bench.SimSpec {
	t.Helper()
	s, err := bench.ContendedSpec(proto, topo, seed, withFaults)
	if err != nil {
		t.Fatal(err)
	}
	s.OpTimeout = 2 * time.Second
	return s
}

// TestPresetsConvergeUnderRandomFaults runs every preset under random
// crashes and partitions: whatever the checker says of their histories
// (they are eventual), every replica of every key must hold the same value
// once the faults heal, and no hint or operation may be left behind.
func TestPresetsConvergeUnderRandomFaults(t *testing.T) {
	seeds := uint64(4)
	if testing.Short() {
		seeds = 1
	}
	for _, proto := range []string{"cassandra-lq", "cassandra-q", "cassandra-eq", "cassandra-e", "cassandra-l"} {
		for seed := uint64(1); seed <= seeds; seed++ {
			topo := "local3"
			switch {
			case proto == "cassandra-e" || proto == "cassandra-l":
				topo = "chainreaction-2dc"
			case seed%2 == 0:
				topo = "c3-azure9"
			}
			res, err := bench.RunSim(spec(t, proto, topo, seed, true))
			if err != nil {
				t.Fatalf("%s seed %d: %v", proto, seed, err)
			}
			if res.Ops < 20 { // EACH_QUORUM stops during a partition
				t.Errorf("%s seed %d on %s: only %d operations", proto, seed, topo, res.Ops)
			}
			if res.Check.Converged == nil || !*res.Check.Converged || res.Check.Quiescent == nil || !*res.Check.Quiescent {
				t.Errorf("%s seed %d on %s: not converged or not quiescent: %s", proto, seed, topo, res.Check.FirstViolation())
			}
		}
	}
}

// TestLQCaught shows the checker catching cassandra-lq (c3.txt's E-LQ):
// on c3-azure9 under random faults (seed 2: a session reads a key it
// wrote at TWO in another DC and misses its own write) and on local3 with
// no faults at all (seed 1: a read in one DC sees a write whose causal
// past has not reached that DC's local quorum). The seeds were found by
// running seeds 1-8; the test starts at the known seed and tries the
// others only if a change elsewhere (the simulator, the workload) moved
// the anomaly, so it stays a test of the checker catching E-LQ rather
// than of one schedule.
func TestLQCaught(t *testing.T) {
	for _, tc := range []struct {
		topo   string
		seed   uint64
		faults bool
	}{{"c3-azure9", 2, true}, {"local3", 1, false}} {
		caught := false
		for i := uint64(0); i < 8 && !caught; i++ {
			seed := (tc.seed+i-1)%8 + 1
			res, err := bench.RunSim(spec(t, "cassandra-lq", tc.topo, seed, tc.faults))
			if err != nil {
				t.Fatal(err)
			}
			if res.Check.Converged == nil || !*res.Check.Converged {
				t.Errorf("cassandra-lq on %s, seed %d: replicas did not converge", tc.topo, seed)
			}
			if caught = !res.Check.OK; caught {
				t.Logf("%s seed %d (faults %v): %s", tc.topo, seed, tc.faults, res.Check.FirstViolation())
			}
		}
		if !caught {
			t.Errorf("cassandra-lq on %s (faults %v) passed the checker on seeds 1-8, want a violation", tc.topo, tc.faults)
		}
	}
}
