package bench

import (
	"testing"
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// k2Spec is a short contended run of K2 or PaRiS* with multi-key
// operations (read_txn and write_txn of 4 keys over 50 keys).
func k2Spec(t testing.TB, proto, topo string, seed uint64, withFaults bool) SimSpec {
	t.Helper()
	p, err := protocol.Lookup(proto)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topology.Lookup(topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("txn")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 50
	w.ValueSize = 16
	spec := SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: seed, Duration: 3 * time.Second,
		Clients: 2 * len(tp.Datacenters), ServiceTime: 200 * time.Microsecond, Jitter: 10 * time.Millisecond,
		OpTimeout: 2 * time.Second}
	if withFaults {
		spec.Faults = faults.Random(sim.NewRand(seed, "fault-schedule"), tp, spec.Protocol.Nodes(tp), spec.Duration)
	}
	return spec
}

// TestK2PassesUnderRandomFaults runs K2 and PaRiS* over seeds with random
// faults (crashes of servers and DCs, partitions, loss, skew): every
// history passes the causal+ checker (atomic visibility of write_txn
// included), the replicas converge and every node is quiescent after the
// heal.
func TestK2PassesUnderRandomFaults(t *testing.T) {
	for _, proto := range []string{"k2", "paris"} {
		t.Run(proto, func(t *testing.T) {
			seeds := seedCount(t, 8, 2)
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				topo := "local3"
				if seed%4 == 0 {
					topo = "k2-emulab6"
				}
				spec := k2Spec(t, proto, topo, seed, true)
				res, err := RunSim(spec)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if res.Ops < 100 {
					t.Errorf("seed %d: only %d operations completed", seed, res.Ops)
				}
				if !res.Check.OK {
					t.Errorf("seed %d on %s: %s failed the checker: %s\n%s",
						seed, topo, proto, res.Check.FirstViolation(), replay(t, spec, res))
				}
			}
		})
	}
}

// TestK2ROTsTakeAtMostOneWANRound checks Design Goal 1 (k2.txt §II-B) on
// K2's setting without faults: every read-only transaction and get takes
// at most one wide-area round, every put and write_txn none, and no remote
// fetch waits at or misses in the replica DC it asks.
func TestK2ROTsTakeAtMostOneWANRound(t *testing.T) {
	for _, proto := range []string{"k2", "paris"} {
		t.Run(proto, func(t *testing.T) {
			spec := k2Spec(t, proto, "k2-emulab6", 7, false)
			spec.Workload.RecordCount = 2000
			spec.Clients = 24
			var rots, remote int
			spec.OnDone = func(dc string, req protocol.Request, rep protocol.Reply, _, _ time.Duration) {
				if rep.Err != protocol.OK {
					return
				}
				w, ok := rep.Metrics[protocol.MetricWANRounds]
				if !ok {
					t.Errorf("%v in %s reports no wan_rounds", req.Op, dc)
					return
				}
				switch req.Op {
				case protocol.OpGet, protocol.OpReadTxn:
					rots++
					if w > 1 {
						t.Errorf("%v in %s took %v wide-area rounds", req.Op, dc, w)
					}
					if w == 1 {
						remote++
					}
					if rep.Metrics["remote_fetch_waited"] != 0 || rep.Metrics["remote_fetch_missing"] != 0 {
						t.Errorf("%v in %s: a remote fetch waited or missed: %v", req.Op, dc, rep.Metrics)
					}
				default:
					if w != 0 {
						t.Errorf("%v in %s took %v wide-area rounds", req.Op, dc, w)
					}
				}
			}
			res, err := RunSim(spec)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Check.OK {
				t.Fatalf("%s failed the checker: %s", proto, res.Check.FirstViolation())
			}
			if rots < 100 || remote == 0 || remote == rots {
				t.Errorf("%d read-only transactions, %d remote: want many, some remote, some local", rots, remote)
			}
			t.Logf("%s: %d ROTs, %d with one wide-area round", proto, rots, remote)
		})
	}
}
