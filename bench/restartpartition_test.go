package bench

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// restartThenPartition is issue #12's schedule on local3 (rings {a, b} and
// {c}): a storage server of ring {a, b} crashes and restarts, then DC c is
// cut off from a and b for a second.
const (
	restartOnly = `
- {at: 300ms, crash: "node:b/s1"}
- {at: 800ms, restart: "node:b/s1"}
`
	restartThenPartition = restartOnly + `
- {at: 1200ms, partition: [[c], [a, b]]}
- {at: 2200ms, heal: partitions}
`
	partitionAt = 1200 * time.Millisecond
	healAt      = 2200 * time.Millisecond
)

// failedIn runs the schedule on local3 with read-txn over 200 records, 12
// clients and a 1 s operation timeout, checks the history, and returns the
// failed operations of DCs a and b.
func failedIn(t *testing.T, proto, schedule string, seed uint64) []history.Op {
	t.Helper()
	tp, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("read-txn")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 200
	s, err := faults.Parse([]byte(schedule), tp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := protocol.Lookup(proto)
	if err != nil {
		t.Fatal(err)
	}
	var hist bytes.Buffer
	res, err := RunSim(SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: seed, Duration: 3 * time.Second,
		Clients: 12, ServiceTime: 100 * time.Microsecond, OpTimeout: time.Second, Faults: s, History: &hist})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Check.OK {
		t.Errorf("%s seed %d failed the checker: %s", proto, seed, res.Check.FirstViolation())
	}
	h, err := history.Parse(&hist)
	if err != nil {
		t.Fatal(err)
	}
	var out []history.Op
	for _, op := range h.Ops {
		if op.OK != nil && !*op.OK && op.DC != "c" {
			out = append(out, op)
		}
	}
	return out
}

func describe(ops []history.Op) string {
	var b bytes.Buffer
	for _, op := range ops {
		fmt.Fprintf(&b, " %s/%s %s@%.0fms", op.DC, op.Session, op.Op, op.StartMs)
	}
	return b.String()
}

// TestKarmaAnswersAfterRestartThenPartition keeps issue #12's schedule:
// a restart of b/s1, then DC c cut off from a and b for a second (local3,
// read-txn, 200 records, 12 clients, 1 s operation timeout, seeds 1–5,
// karma and karma-nc). Before the fix, a read b/s1 left unanswered
// doubled the CC's estimate of all of DC b — and a get-transaction's
// timeout that of every DC it read, the CC's own included — so reads of
// ring {a, b} went to c long after the restart; a thread bound to a ring
// waited out those doubled estimates before asking again, so reads
// bound to ring {a, b} failed after the restart, and reads bound to c
// failed for a second after the heal. Now a timeout penalizes only the
// silent server, the penalty goes with its first answer, and a bound
// read is asked again at the pace of its round trip (latency.go):
//
//   - the restart alone fails no operation of DCs a and b;
//   - with the partition, no operation of a and b fails at all (since
//     session 15, see its paragraph below; before, only those issued
//     after the heal were required to succeed: the stall did not outlast
//     the partition, where before the fixes of latency.go it did, by
//     seconds).
//
// What still failed until session 15 were operations of threads bound to ring {c}
// by an in-flight write of a DC c client they read while b/s1 was down
// or before the partition: §4.4's corner case of a DC cut off with the CC
// that wrote what the thread read ("data in the failed DC is no longer
// available to the client"), made likely by write windows at c that last
// seconds (issue #12's propagation work). Most were pending when the
// partition began; a few are issued just after it by a thread bound
// before it (seed 1: a get at 1200.27 ms of a thread that had read c's
// in-flight writes). The issue asks for none: tighten this to zero once
// the windows shrink.
//
// With pipelined propagation (issue #12's designs 2 and 3, write windows
// near 300 ms p50 on karma-aws8) the count did not move: over seeds 1-5,
// 35 operations pending at the cut fail for karma and for karma-nc, and
// 0 / 2 issued during the partition (session 10 logged 35 / 35 and
// 1 / 4). As above, they are bound by the partition, not by a window's
// length: a thread bound to ring {c} by a DC c client's write stays bound
// while c is cut off, since that write cannot complete whatever the
// pipeline does — §4.4's own case, where the paper says such a client
// "may be indefinitely bound to the ring with the failed DC. Data in the
// failed DC is no longer available to the client". So the expectation
// stays: nothing fails after the restart alone or after the heal.
//
// With one put-after dependency per writer thread (protocol/karma,
// writers.go) it is 31 / 0 for karma and 30 / 0 for karma-nc (32 / 1
// and 30 / 2 for the commit before, run beside it): the
// restart still leaves DC c's writes about a second behind in ring
// {a, b} (protocol/karma doc.go, "One put-after dependency per writer"),
// so threads of a and b still read them in flight before the cut, where
// the partition alone fails 3 operations over seeds 1-5. With held reads'
// probes besides (protocol/karma, probe_held.go) it is 32 / 0 and
// 30 / 0.
//
// Session 15 (protocol/karma doc.go, "Moving home"): a thread bound away
// from its DC's ring is moved back once its restrictions are installed
// there, and a restarted MM asks every CC at once for the writes it lost
// and makes them send again the reads waiting for it. No operation of a
// and b fails any more (against 6 7 8 5 6 for karma and 7 6 7 3 7 for
// karma-nc over seeds 1-5 on the commit before, run beside it), and the
// test asserts none: the partition alone cuts off only DC c's ring, and
// every thread of a and b is back on its own ring, or can be moved there,
// before the cut.
func TestKarmaAnswersAfterRestartThenPartition(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("20 simulated runs; make test runs them without -race")
	}
	for _, proto := range []string{"karma", "karma-nc"} {
		pending, during, late := 0, 0, 0
		for seed := uint64(1); seed <= 5; seed++ {
			if ops := failedIn(t, proto, restartOnly, seed); len(ops) > 0 {
				t.Errorf("%s seed %d, restart alone: %d operations of DCs a and b failed, want 0:%s", proto, seed, len(ops), describe(ops))
			}
			failed := failedIn(t, proto, restartThenPartition, seed)
			for _, op := range failed {
				start := time.Duration(op.StartMs * float64(time.Millisecond))
				switch {
				case start >= healAt:
					late++
				case start <= partitionAt:
					pending++
				default:
					during++
				}
			}
			if len(failed) > 0 {
				t.Errorf("%s seed %d, restart then partition: %d operations of DCs a and b failed, want 0:%s",
					proto, seed, len(failed), describe(failed))
			}
		}
		t.Logf("%s: over seeds 1-5, of the operations of DCs a and b, %d pending when the partition began failed, %d issued during it and %d after the heal",
			proto, pending, during, late)
	}
}
