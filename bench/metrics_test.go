package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

func lookup(t *testing.T, proto, topo string) (protocol.Protocol, *topology.Topology) {
	t.Helper()
	p, err := protocol.Lookup(proto)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topology.Lookup(topo)
	if err != nil {
		t.Fatal(err)
	}
	return p, tp
}

// TestDistributionPercentiles checks the aggregation of one per-operation
// metric: exact nearest-rank percentiles and mean for few distinct values
// (including zeros), percentiles within 0.1% and an exact mean once it
// holds too many distinct values for the exact form, and invalid values
// left out.
func TestDistributionPercentiles(t *testing.T) {
	within := func(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want)+1e-9 }
	check := func(name string, d *distribution, p50, p90, p99, mean, rel float64) {
		t.Helper()
		if got := d.quantile(50); !within(got, p50, rel) {
			t.Errorf("%s: p50 %v, want %v", name, got, p50)
		}
		if got := d.quantile(90); !within(got, p90, rel) {
			t.Errorf("%s: p90 %v, want %v", name, got, p90)
		}
		if got := d.quantile(99); !within(got, p99, rel) {
			t.Errorf("%s: p99 %v, want %v", name, got, p99)
		}
		if got := d.mean(); !within(got, mean, 1e-12) {
			t.Errorf("%s: mean %v, want %v", name, got, mean)
		}
	}
	rounds := newDistribution()
	for i := range 100 {
		switch {
		case i < 90:
			rounds.add(0)
		case i < 99:
			rounds.add(1)
		default:
			rounds.add(2)
		}
	}
	check("wan_rounds-like", rounds, 0, 0, 1, 0.11, 0)
	if rounds.hist != nil {
		t.Errorf("three distinct values left the exact form")
	}
	frac := newDistribution()
	for i := 1; i <= 100; i++ {
		frac.add(float64(i) / 4) // 0.25 .. 25
	}
	check("fractional", frac, 12.5, 22.5, 24.75, 12.625, 0)
	many := newDistribution()
	const n = 10 * exactDistinct
	for i := 1; i <= n; i++ {
		many.add(float64(i) * 0.37)
	}
	if many.hist == nil {
		t.Fatalf("%d distinct values kept exactly", n)
	}
	check("histogram", many, 0.37*n/2, 0.37*n*0.9, 0.37*n*0.99, 0.37*(n+1)/2, 0.001)
	bad := newDistribution()
	for _, v := range []float64{math.NaN(), math.Inf(1), -1, 3} {
		bad.add(v)
	}
	if bad.n != 1 || bad.invalid != 3 || bad.quantile(50) != 3 {
		t.Errorf("invalid values: n %d, invalid %d, p50 %v; want 1, 3, 3", bad.n, bad.invalid, bad.quantile(50))
	}
}

// TestRecorderReportsMetricsOnlyWhereCarried checks protocol_metrics:
// each metric's p50/p90/p99/mean over the operations that carry it (a
// failed operation's metric is not counted), nothing for a metric no
// operation carried — absent, never zero — and tags' fractions as before.
func TestRecorderReportsMetricsOnlyWhereCarried(t *testing.T) {
	p, tp := lookup(t, "cops", "local3")
	get := protocol.Request{Op: protocol.OpGet, Key: "k"}
	bare := NewRecorder(p, tp)
	bare.Done("a", get, protocol.Reply{Op: protocol.OpGet}, 0, time.Millisecond)
	var res Result
	bare.fill(&res, time.Second)
	if res.ProtocolMetrics != nil || res.AllLocalFraction != nil {
		t.Errorf("no operation carried a metric, yet protocol_metrics %v, all_local_fraction %v", res.ProtocolMetrics, res.AllLocalFraction)
	}
	rec := NewRecorder(p, tp)
	for i := range 10 {
		rep := protocol.Reply{Op: protocol.OpGet, Tags: []string{"hit"}}
		rep.SetWANRounds(i / 8) // eight 0s, two 1s
		if i == 0 {
			rep.SetMetric("staleness_ms", 2.5)
		}
		rec.Done("a", get, rep, 0, time.Millisecond)
	}
	failed := protocol.Reply{Op: protocol.OpGet, Err: protocol.ErrTimeout}
	failed.SetWANRounds(7)
	rec.Done("a", get, failed, 0, time.Millisecond)
	res = Result{}
	rec.fill(&res, time.Second)
	want := map[string]float64{
		"hit_fraction":   1,
		"wan_rounds_p50": 0, "wan_rounds_p90": 1, "wan_rounds_p99": 1, "wan_rounds_mean": 0.2,
		"staleness_ms_p50": 2.5, "staleness_ms_p90": 2.5, "staleness_ms_p99": 2.5, "staleness_ms_mean": 2.5,
	}
	if fmt.Sprint(res.ProtocolMetrics) != fmt.Sprint(want) {
		t.Errorf("protocol_metrics %v\nwant %v", res.ProtocolMetrics, want)
	}
	if res.AllLocalFraction == nil || *res.AllLocalFraction != 0.8 || res.LocalFraction == nil || *res.LocalFraction != 0.8 {
		t.Errorf("all_local_fraction %v, local_fraction %v; want 0.8 both", deref(res.AllLocalFraction), deref(res.LocalFraction))
	}
}

// near reports whether a histogram's figure is within its 0.1% of want.
func near(got, want float64) bool { return math.Abs(got-want) <= 0.001*want }

// about reports whether both percentiles of p are close to want ms.
func about(p *Percentiles, want float64) bool {
	return p != nil && near(p.P50, want) && near(p.P99, want)
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// withVisibleAt is a protocol whose writes must also become visible at
// extra nodes (as at K2's metadata-only replicas).
type withVisibleAt struct {
	protocol.Protocol
	extra []protocol.NodeID
}

func (w withVisibleAt) VisibleAt(t *topology.Topology, key string) []protocol.NodeID {
	return append(w.Replicas(t, key), w.extra...)
}

// TestVisibilityFromAckIssueAndBound follows writes on local3 (one-way
// delays: a-b 20 ms, a-c 60 ms): visibility from acknowledgement and
// from issue, the bound (from the writer's DC to the farthest DC it must
// reach), the writer's DC in per_dc, a metadata-only report that comes
// before any data report being tied to its write by version, and reports
// from nodes outside VisibleAt not counting.
func TestVisibilityFromAckIssueAndBound(t *testing.T) {
	cops, tp := lookup(t, "cops", "local3")
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	const key = "k"
	value := workload.MakeValue("c0-1", 16)
	put := protocol.Request{Op: protocol.OpPut, Key: key, Value: value}
	replicas := cops.Replicas(tp, key)
	at := map[string]time.Duration{"a": ms(5), "b": ms(30), "c": ms(70)}
	dataReports := func(rec *Recorder, dcs ...string) {
		for _, n := range replicas {
			if slices.Contains(dcs, n.DC()) {
				rec.Visible(at[n.DC()], n, protocol.Visibility{Key: key, Value: value, Version: 7})
			}
		}
	}

	rec := NewRecorder(cops, tp)
	rec.Visible(ms(1), "a/not-a-replica", protocol.Visibility{Key: key, Value: value, Version: 7})
	dataReports(rec, "a", "b")
	rec.Done("a", put, protocol.Reply{Op: protocol.OpPut}, 0, ms(10))
	var res Result
	if rec.fill(&res, time.Second); res.VisibilityMs != nil {
		t.Fatalf("visibility %v before c has the write", res.VisibilityMs)
	}
	dataReports(rec, "c")
	rec.fill(&res, time.Second)
	if !about(res.VisibilityMs, 60) || !about(res.VisibilityFromIssueMs, 70) || !about(res.VisibilityBoundMs, 60) {
		t.Errorf("visibility, from issue, bound: %v %v %v, want 60, 70, 60 ms", res.VisibilityMs, res.VisibilityFromIssueMs, res.VisibilityBoundMs)
	}
	if d := res.PerDC["a"]; d == nil || !about(d.VisibilityMs, 60) || !about(d.VisibilityFromIssueMs, 70) || !about(d.VisibilityBoundMs, 60) {
		t.Errorf("per_dc a: %+v, want visibility 60, 70, 60 ms", d)
	}

	meta := protocol.NodeID("b/m0")
	rec = NewRecorder(withVisibleAt{cops, []protocol.NodeID{meta}}, tp)
	rec.Visible(ms(90), meta, protocol.Visibility{Key: key, Version: 7}) // before any data report
	dataReports(rec, "a", "b", "c")
	rec.Done("a", put, protocol.Reply{Op: protocol.OpPut}, 0, ms(10))
	res = Result{}
	rec.fill(&res, time.Second)
	if !about(res.VisibilityMs, 80) || !about(res.VisibilityFromIssueMs, 90) {
		t.Errorf("with a metadata-only replica at 90 ms: visibility, from issue %v %v, want 80, 90 ms", res.VisibilityMs, res.VisibilityFromIssueMs)
	}

	rec = NewRecorder(withVisibleAt{cops, []protocol.NodeID{meta}}, tp)
	rec.Visible(ms(90), meta, protocol.Visibility{Key: key, Version: 8}) // another version
	dataReports(rec, "a", "b", "c")
	rec.Done("a", put, protocol.Reply{Op: protocol.OpPut}, 0, ms(10))
	res = Result{}
	rec.fill(&res, time.Second)
	if res.VisibilityMs != nil {
		t.Errorf("the metadata-only replica reported another version, yet visibility %v", res.VisibilityMs)
	}
}

// TestPerDCSumsEqualTotals checks the per-DC breakdown against the totals
// on a recorder fed by hand: operations, errors and visible writes of
// every DC add up to the run's, and each DC's latency and local fraction
// are its own.
func TestPerDCSumsEqualTotals(t *testing.T) {
	p, tp := lookup(t, "cops", "local3")
	rec := NewRecorder(p, tp)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for i, dc := range []string{"a", "a", "a", "b", "b", "c"} {
		value := workload.MakeValue(fmt.Sprintf("c%d-1", i), 16)
		key := fmt.Sprintf("k%d", i)
		rep := protocol.Reply{Op: protocol.OpPut}
		rep.SetWANRounds(i % 2)
		rec.Done(dc, protocol.Request{Op: protocol.OpPut, Key: key, Value: value}, rep, 0, ms(i+1))
		for _, n := range p.Replicas(tp, key) {
			rec.Visible(ms(100), n, protocol.Visibility{Key: key, Value: value})
		}
	}
	rec.Done("c", protocol.Request{Op: protocol.OpGet, Key: "x"}, protocol.Reply{Op: protocol.OpGet, Err: protocol.ErrTimeout}, 0, ms(1))
	var res Result
	rec.fill(&res, time.Second)
	var ops, errs, vis int64
	for _, name := range []string{"a", "b", "c"} {
		d := res.PerDC[name]
		if d == nil {
			t.Fatalf("no per_dc entry for %s: %v", name, res.PerDC)
		}
		ops += d.Ops
		errs += d.Errors
		vis += rec.perDC[name].vis.ack.TotalCount()
	}
	if ops != res.Ops || errs != res.errorCount() || vis != rec.vis.ack.TotalCount() || ops != 6 || vis != 6 {
		t.Errorf("per-DC sums: %d ops, %d errors, %d visible writes; totals %d, %d, %d", ops, errs, vis, res.Ops, res.errorCount(), rec.vis.ack.TotalCount())
	}
	a, c := res.PerDC["a"], res.PerDC["c"]
	if a.Ops != 3 || !near(a.LatencyMs["put"].P99, 3) || *a.LocalFraction != round3(2.0/3) || *a.AllLocalFraction != round3(2.0/3) {
		t.Errorf("per_dc a: %d ops, put p99 %v ms, local %v, all local %v; want 3, 3, 0.667, 0.667",
			a.Ops, a.LatencyMs["put"].P99, *a.LocalFraction, *a.AllLocalFraction)
	}
	if c.Ops != 1 || c.Errors != 1 || !near(c.LatencyMs["put"].P50, 6) {
		t.Errorf("per_dc c: %d ops, %d errors, put p50 %v ms; want 1, 1, 6", c.Ops, c.Errors, c.LatencyMs["put"].P50)
	}
}

// TestDCTableRows checks the per-DC table: one row per DC in name order,
// then the run's row, with "-" where a figure does not apply.
func TestDCTableRows(t *testing.T) {
	one := 1.0
	r := &Result{Ops: 30, LatencyMs: map[string]Latency{"get": {P50: 2}}, LocalFraction: &one,
		PerDC: map[string]*DCResult{
			"tokyo":  {Ops: 10, LatencyMs: map[string]Latency{"get": {P50: 5}}},
			"brazil": {Ops: 20, LatencyMs: map[string]Latency{"get": {P50: 1}}, LocalFraction: &one},
		}}
	var b strings.Builder
	if err := WriteDCTable(&b, r); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(b.String(), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 1 && f[0] != "(ms)" {
			rows = append(rows, strings.Join(f[:4], " ")+" "+f[7])
		}
	}
	want := []string{"brazil 20 0 1.0 1.00", "tokyo 10 0 5.0 -", "(all) 30 0 2.0 1.00"}
	if !slices.Equal(rows, want) {
		t.Errorf("rows (dc ops ops/s get-p50 local) %q\nwant %q", rows, want)
	}
}

// TestVisibilityBoundAddsProcessingAndRatio: the bound of a write from a
// to c on local3 is the 60 ms one-way delay plus the processing set
// (10 ms: 70 ms), and visibility_ratio is visibility from issue over that
// bound (a write visible 105 ms after its issue: 1.5), overall and per DC.
func TestVisibilityBoundAddsProcessingAndRatio(t *testing.T) {
	cops, tp := lookup(t, "cops", "local3")
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	value := workload.MakeValue("c0-1", 16)
	rec := NewRecorder(cops, tp)
	rec.SetProcessing(ms(10))
	for _, n := range cops.Replicas(tp, "k") {
		rec.Visible(ms(105), n, protocol.Visibility{Key: "k", Value: value, Version: 1})
	}
	rec.Done("a", protocol.Request{Op: protocol.OpPut, Key: "k", Value: value}, protocol.Reply{Op: protocol.OpPut}, 0, ms(5))
	var res Result
	rec.fill(&res, time.Second)
	if !about(res.VisibilityBoundMs, 70) || !about(res.VisibilityFromIssueMs, 105) {
		t.Errorf("bound %v, visibility from issue %v: want 70 and 105 ms", res.VisibilityBoundMs, res.VisibilityFromIssueMs)
	}
	for where, r := range map[string]*Ratio{"run": res.VisibilityRatio, "per_dc a": res.PerDC["a"].VisibilityRatio} {
		if r == nil || r.P50 != 1.5 || r.P99 != 1.5 {
			t.Errorf("%s: visibility_ratio %+v, want 1.5", where, r)
		}
	}
}

// TestRemoteGetBesideNearestReplica: a get of DC a answered from another
// DC is recorded with the round trip to the key's nearest replica (cops on
// local3 holds every key in a: a's own round trip); a restricted get (tag
// drr) and a local one are not.
func TestRemoteGetBesideNearestReplica(t *testing.T) {
	cops, tp := lookup(t, "cops", "local3")
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	rec := NewRecorder(cops, tp)
	get := protocol.Request{Op: protocol.OpGet, Key: "k"}
	rec.Done("a", get, protocol.Reply{Op: protocol.OpGet, WideArea: true}, 0, ms(41))
	rec.Done("a", get, protocol.Reply{Op: protocol.OpGet, WideArea: true, Tags: []string{"drr"}}, 0, ms(500))
	rec.Done("a", get, protocol.Reply{Op: protocol.OpGet}, 0, ms(1))
	var res Result
	rec.fill(&res, time.Second)
	d := res.PerDC["a"]
	local := float64(tp.RTT("a", "a").Microseconds()) / 1000
	if !about(d.RemoteGetMs, 41) || !about(d.NearestReplicaRTTMs, local) {
		t.Errorf("remote get %v, nearest replica rtt %v: want 41 ms and %v ms", d.RemoteGetMs, d.NearestReplicaRTTMs, local)
	}
	if !about(d.RemoteGetExcessMs, 41-local) {
		t.Errorf("remote get excess %v, want %v ms", d.RemoteGetExcessMs, 41-local)
	}
	if res.PerDC["a"] == nil || res.PerDC["b"] != nil {
		t.Errorf("per_dc %v", res.PerDC)
	}
}
