package chain_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	_ "github.com/causeway/causeway/protocol/all"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// TestRandomFaults runs the chain protocols with random faults (node and
// DC crashes, partitions, loss, delay): every history must pass the causal+
// checker and the replicas must converge once the faults heal.
func TestRandomFaults(t *testing.T) {
	seeds := 4
	if s := os.Getenv("CHAIN_SEEDS"); s != "" {
		seeds, _ = strconv.Atoi(s)
	}
	for _, name := range chainProtocols {
		for _, topo := range []string{"chainreaction-1dc", "chainreaction-2dc", "local3"} {
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				p, _ := protocol.Lookup(name)
				tp, _ := topology.Lookup(topo)
				w, _ := workload.Lookup("ycsb-80-20")
				w.RecordCount = 30
				w.ValueSize = 16
				spec := bench.SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: seed, Duration: 3 * time.Second,
					Clients: 4, ServiceTime: 200 * time.Microsecond, Jitter: 10 * time.Millisecond, OpTimeout: 2 * time.Second}
				spec.Faults = faults.Random(sim.NewRand(seed, "fault-schedule"), tp, p.Nodes(tp), spec.Duration)
				res, err := bench.RunSim(spec)
				if err != nil {
					t.Fatalf("%s %s seed %d: %v", name, topo, seed, err)
				}
				if res.Ops < 20 {
					t.Errorf("%s %s seed %d: only %d operations", name, topo, seed, res.Ops)
				}
				if !res.Check.OK {
					t.Errorf("%s %s seed %d: %s (faults %v)", name, topo, seed, res.Check.FirstViolation(), spec.Faults)
				}
			}
		}
	}
}
