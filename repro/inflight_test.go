package repro

import (
	"math"
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

func TestInFlightModelClosedForms(t *testing.T) {
	// One key: every get reads it, written at 5% of T.
	m := newInFlightModel(1)
	const T, w = 200.0, 300 * time.Millisecond
	if got, want := m.q(0.05, T, w), 1-math.Exp(-0.05*T*w.Seconds()); math.Abs(got-want) > 1e-9 {
		t.Errorf("one key: q = %v, want %v", got, want)
	}
	m = newInFlightModel(10000)
	if m.q(0.05, 0, w) != 0 {
		t.Errorf("no throughput, q = %v", m.q(0.05, 0, w))
	}
	if a, b := m.q(0.05, 1000, w), m.q(0.05, 2000, w); !(a < b) {
		t.Errorf("q not increasing with throughput: %v then %v", a, b)
	}
	tmax := m.maxThroughput(0.05, 0.02, w)
	if got := m.q(0.05, tmax, w); math.Abs(got-0.02) > 1e-6 {
		t.Errorf("q(maxThroughput) = %v, want 0.02", got)
	}
}

func TestMinInFlightWindow(t *testing.T) {
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	// rings {a, b} and {c}: from a the far ring is c (120 ms), from b and
	// from c the far replica is 90 ms away.
	if got := minInFlightWindow(topo); got != 90*time.Millisecond {
		t.Errorf("local3: %v, want 90ms", got)
	}
}

// TestSimulatedInFlightReadsAboveTheModel runs Karma and checks that the
// share of gets that read an in-flight value is at least the model's lower
// bound at the run's own throughput, and that accesses under a ring
// restriction are at least as common: a middle man that declared versions
// stable too early, or a CC that lifted restrictions too soon, would fall
// below.
func TestSimulatedInFlightReadsAboveTheModel(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2 s simulation of 256 threads")
	}
	topo, err := topology.Preset("karma-aws8")
	if err != nil {
		t.Fatal(err)
	}
	p, err := protocol.Lookup("karma")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.RunSim(bench.SimSpec{Protocol: p, Topology: topo, Workload: w, Seed: 1, Duration: 2 * time.Second,
		Clients: 256, ServiceTime: 100 * time.Microsecond, OpTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Check.OK {
		t.Fatalf("checker: %+v", res.Check.Violations)
	}
	getShare := 1 - w.UpdateProportion
	// Gets the write buffer answered found their key in flight too.
	measured := (res.ProtocolMetrics["inflight_read_fraction"] + res.ProtocolMetrics["wb_hit_fraction"]) / getShare
	bound := newInFlightModel(w.RecordCount).q(w.UpdateProportion, res.ThroughputOpsS, minInFlightWindow(topo))
	t.Logf("throughput %.0f ops/s: in-flight gets %.3f, model bound %.3f, drr %.3f", res.ThroughputOpsS, measured, bound, res.ProtocolMetrics["drr_fraction"])
	if measured < bound {
		t.Errorf("%.3f of gets read in-flight values, below the model's lower bound %.3f", measured, bound)
	}
	if drr := res.ProtocolMetrics["drr_fraction"]; drr < res.ProtocolMetrics["inflight_read_fraction"] {
		t.Errorf("drr_fraction %.3f below the in-flight read fraction %.3f", drr, res.ProtocolMetrics["inflight_read_fraction"])
	}
}
