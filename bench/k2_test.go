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
				w, ok := rep.Metrics.Get(protocol.MetricWANRounds)
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
					if rep.Metrics.Value("remote_fetch_waited") != 0 || rep.Metrics.Value("remote_fetch_missing") != 0 {
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

// TestK2ConvergesAfterLongFaults replays `causeway sim --protocol k2
// --topology local3 --workload txn --clients-per-dc 3 --faults random
// --duration 15s` for seeds 2 and 5, whose partitions leave one DC
// thousands of replicated transactions behind while the others keep
// committing locally at full speed. Every unacknowledged transaction used
// to be retransmitted every maxBackoff while the receiving DC was still
// working through its queue, which kept that queue longer than
// maxBackoff: the run never went quiet within the 120 s quiesce limit and
// the replicas diverged. With retransmissions budgeted per tick
// (server.resendDue) both runs converge and pass the checker.
func TestK2ConvergesAfterLongFaults(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("two 15 s runs of thousands of transactions: minutes of CPU; make seeds runs it without -race")
	}
	p, err := protocol.Lookup("k2")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("txn")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{2, 5} {
		d := 15 * time.Second
		spec := SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: seed, Duration: d,
			Clients: 3 * len(tp.Datacenters), ServiceTime: 100 * time.Microsecond, OpTimeout: 5 * time.Second,
			Faults: faults.Random(sim.NewRand(seed, "fault-schedule"), tp, p.Nodes(tp), d)}
		res, err := RunSim(spec)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !res.Check.OK || res.Check.Converged == nil || !*res.Check.Converged {
			t.Errorf("seed %d: not converged or failed the checker: %s", seed, res.Check.FirstViolation())
		}
		if res.VisibilityMs != nil {
			t.Logf("seed %d: %d ops, visibility p99 %.0f ms", seed, res.Ops, res.VisibilityMs.P99)
		}
	}
}

// TestK2WarmReadsStartTheCacheWarm: with SimSpec.WarmReads a k2 run on
// K2's setting starts with its DC caches as that many reads would have
// left them (server.prewarm), so its read-only transactions are all-local
// far more often from the first second than in a cold run of the same
// seed, and the history still passes the checker.
func TestK2WarmReadsStartTheCacheWarm(t *testing.T) {
	p, err := protocol.Lookup("k2")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topology.Lookup("k2-emulab6")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("k2-default")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 20_000
	local := map[int]float64{}
	for _, warm := range []int{0, 8000} {
		res, err := RunSim(SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: 3, Duration: 2 * time.Second,
			Clients: 24, ServiceTime: 100 * time.Microsecond, WarmReads: warm})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Check.OK {
			t.Fatalf("warm reads %d: %s", warm, res.Check.FirstViolation())
		}
		if res.AllLocalFraction == nil {
			t.Fatal("no all_local_fraction")
		}
		local[warm] = *res.AllLocalFraction
	}
	t.Logf("all-local: cold %.3f, warm %.3f", local[0], local[8000])
	if local[8000] < local[0]+0.2 {
		t.Errorf("all-local share %.3f with 8000 warm reads, %.3f cold: want the warm run far ahead", local[8000], local[0])
	}
}
