package bench

import (
	"bytes"
	"testing"
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/runtime/sim"
)

// TestDeletesInSimulatedRuns: a workload with deletes (puts of tombstones)
// on every protocol family records dels and reads of their tombstones in
// the history, and the causal protocols pass the checker and converge
// with them, faults included; eventual, which ignores causality, is still
// caught.
func TestDeletesInSimulatedRuns(t *testing.T) {
	for _, tc := range []struct {
		proto, topo string
		seed        uint64
		faults      bool
		wantOK      bool
	}{
		{"cops", "local3", 1, true, true},
		{"karma", "karma-aws8", 2, true, true},
		{"cops-pr", "local3", 3, false, true},
		{"eventual", "local3", 4, false, false},
	} {
		spec := smallSpec(t, tc.proto, tc.topo, tc.seed, false)
		spec.Workload.ReadProportion = 0.6
		spec.Workload.UpdateProportion = 0.2
		spec.Workload.DeleteProportion = 0.2
		spec.Duration = time.Second
		if tc.faults {
			spec.Faults = faults.Random(sim.NewRand(tc.seed, "fault-schedule"), spec.Topology, spec.Protocol.Nodes(spec.Topology), spec.Duration)
		}
		var hist bytes.Buffer
		spec.History = &hist
		res, err := RunSim(spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.proto, err)
		}
		h, err := history.Parse(&hist)
		if err != nil {
			t.Fatalf("%s: %v", tc.proto, err)
		}
		dels := map[string]bool{}
		for _, op := range h.Ops {
			if op.Op == history.Del && !op.Failed() {
				dels[*op.Value] = true
			}
		}
		seen := 0
		for _, op := range h.Ops {
			if op.Op == history.Get && !op.Failed() && op.Value != nil && dels[*op.Value] {
				seen++
			}
		}
		if len(dels) == 0 || seen == 0 {
			t.Errorf("%s: %d dels, %d gets that saw one: the run did not exercise deletes", tc.proto, len(dels), seen)
		}
		if res.Check.OK != tc.wantOK {
			t.Errorf("%s on %s, seed %d: checker OK = %v, want %v: %s", tc.proto, tc.topo, tc.seed, res.Check.OK, tc.wantOK, res.Check.FirstViolation())
		}
		if tc.wantOK && (res.Check.Converged == nil || !*res.Check.Converged) {
			t.Errorf("%s: replicas did not converge", tc.proto)
		}
		t.Logf("%s: %d ops, %d dels, %d gets saw a delete, ok=%v", tc.proto, len(h.Ops), len(dels), seen, res.Check.OK)
	}
}
