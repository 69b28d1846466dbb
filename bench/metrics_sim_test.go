package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/workload"
)

// opRecord is one completed operation of a simulated run.
type opRecord struct {
	dc  string
	req protocol.Request
	rep protocol.Reply
}

// simOps runs closed-loop sessions of workload wl, one per DC times
// perDC, for d of virtual time and returns every completed operation.
func simOps(t *testing.T, proto, topo, wl string, records, perDC int, d time.Duration) []opRecord {
	t.Helper()
	p, tp := lookup(t, proto, topo)
	w, err := workload.Lookup(wl)
	if err != nil {
		t.Fatal(err)
	}
	if records > 0 {
		w.RecordCount = records
	}
	s, err := sim.New(sim.Config{Topology: tp, Protocol: p, Seed: 1, ServiceTime: 100 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	var out []opRecord
	for i := range perDC * len(tp.Datacenters) {
		dc, name := tp.DCNames()[i%len(tp.Datacenters)], fmt.Sprintf("c%d", i)
		id, err := s.AddSession(dc, name)
		if err != nil {
			t.Fatal(err)
		}
		gen := w.NewClient(name, sim.NewRand(1, "workload/"+name))
		var next func()
		next = func() {
			req := gen.Next()
			if err := s.Submit(id, req, func(now time.Duration, rep protocol.Reply) {
				out = append(out, opRecord{dc, req, rep})
				if now < d {
					next()
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
		s.At(0, next)
	}
	s.RunUntil(d + 6*time.Second)
	return out
}

// TestWANRoundsOfEveryOperation checks wan_rounds operation by operation
// in simulated runs: cops and eventual answer everything in the
// session's DC (0); Karma's gets take 0 or 1, with some 1s on karma-aws8,
// its puts 0 (the CC acknowledges them), its get-transactions 0 to 2 with
// some 2s; and every reply's WideArea is wan_rounds > 0.
func TestWANRoundsOfEveryOperation(t *testing.T) {
	type want struct{ max, someAt float64 } // someAt: some operation has this many rounds
	for _, tc := range []struct {
		proto, topo, workload string
		records               int
		d                     time.Duration
		want                  map[protocol.Op]want
	}{
		{"cops", "local3", "ycsb-a", 0, time.Second, map[protocol.Op]want{protocol.OpGet: {0, 0}, protocol.OpPut: {0, 0}}},
		{"eventual", "local3", "ycsb-a", 0, time.Second, map[protocol.Op]want{protocol.OpGet: {0, 0}, protocol.OpPut: {0, 0}}},
		{"karma", "karma-aws8", "ycsb-95-5", 0, 2 * time.Second, map[protocol.Op]want{protocol.OpGet: {1, 1}, protocol.OpPut: {0, 0}}},
		{"karma", "karma-aws8", "read-txn", 20, 2 * time.Second, map[protocol.Op]want{
			protocol.OpGet: {1, 1}, protocol.OpPut: {0, 0}, protocol.OpReadTxn: {2, 2}}},
	} {
		t.Run(tc.proto+"/"+tc.topo+"/"+tc.workload, func(t *testing.T) {
			if tc.workload == "read-txn" && (testing.Short() || raceEnabled) {
				t.Skip("six seconds of CPU without the race detector")
			}
			ops := simOps(t, tc.proto, tc.topo, tc.workload, tc.records, 2, tc.d)
			seen := map[protocol.Op]map[float64]int{}
			for _, o := range ops {
				if o.rep.Err != protocol.OK {
					continue
				}
				n, ok := o.rep.Metrics.Get(protocol.MetricWANRounds)
				if !ok {
					t.Fatalf("%v in %s: no wan_rounds", o.req.Op, o.dc)
				}
				if o.rep.WideArea != (n > 0) {
					t.Errorf("%v in %s: wan_rounds %v but WideArea %v", o.req.Op, o.dc, n, o.rep.WideArea)
				}
				if seen[o.req.Op] == nil {
					seen[o.req.Op] = map[float64]int{}
				}
				seen[o.req.Op][n]++
			}
			for op, w := range tc.want {
				if len(seen[op]) == 0 {
					t.Errorf("no %v completed", op)
				}
				for n := range seen[op] {
					if n > w.max || n != float64(int(n)) {
						t.Errorf("%v: %d operations with wan_rounds %v, want integers up to %v", op, seen[op][n], n, w.max)
					}
				}
				if seen[op][w.someAt] == 0 {
					t.Errorf("%v: no operation with wan_rounds %v (seen %v)", op, w.someAt, seen[op])
				}
			}
			t.Logf("wan_rounds per operation type: %v", seen)
		})
	}
}

// TestResultBreakdownAddsUp checks a whole run's result: per-DC operation
// and error counts sum to the run's, every figure of visibility from issue
// is at least the one from acknowledgement (overall and per DC), the
// bound is reported beside them, and local_fraction (from WideArea) equals
// all_local_fraction (from wan_rounds).
func TestResultBreakdownAddsUp(t *testing.T) {
	for _, tc := range []struct{ proto, topo string }{{"cops", "local3"}, {"karma", "karma-aws8"}} {
		t.Run(tc.proto, func(t *testing.T) {
			spec := smallSpec(t, tc.proto, tc.topo, 3, false)
			spec.Duration = 2 * time.Second
			res, err := RunSim(spec)
			if err != nil {
				t.Fatal(err)
			}
			var ops, errs int64
			for _, d := range res.PerDC {
				ops += d.Ops
				errs += d.Errors
			}
			if ops != res.Ops || errs != res.errorCount() || len(res.PerDC) != len(spec.Topology.Datacenters) {
				t.Errorf("per_dc sums to %d ops and %d errors over %d DCs; the run: %d and %d over %d",
					ops, errs, len(res.PerDC), res.Ops, res.errorCount(), len(spec.Topology.Datacenters))
			}
			if res.LocalFraction == nil || res.AllLocalFraction == nil || *res.LocalFraction != *res.AllLocalFraction {
				t.Errorf("local_fraction %v, all_local_fraction %v", deref(res.LocalFraction), deref(res.AllLocalFraction))
			}
			if tc.proto == "cops" && *res.AllLocalFraction != 1 {
				t.Errorf("cops all_local_fraction %v, want 1", *res.AllLocalFraction)
			}
			// A DC may have no write whose visibility completed (a write
			// overwritten before it reached every replica never does).
			checkVis := func(where string, ack, issue, bound *Percentiles, optional bool) {
				t.Helper()
				if optional && ack == nil && issue == nil && bound == nil {
					return
				}
				if ack == nil || issue == nil || bound == nil {
					t.Errorf("%s: visibility %v, from issue %v, bound %v: want all three", where, ack, issue, bound)
					return
				}
				if issue.P50 < ack.P50 || issue.P99 < ack.P99 {
					t.Errorf("%s: visibility from issue %+v below visibility from ack %+v", where, *issue, *ack)
				}
				if bound.P50 <= 0 || bound.P99 < bound.P50 {
					t.Errorf("%s: bound %+v", where, *bound)
				}
			}
			checkVis("run", res.VisibilityMs, res.VisibilityFromIssueMs, res.VisibilityBoundMs, false)
			for name, d := range res.PerDC {
				checkVis(name, d.VisibilityMs, d.VisibilityFromIssueMs, d.VisibilityBoundMs, true)
			}
		})
	}
}
