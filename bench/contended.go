package bench

import (
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// ContendedSpec is a short contended run of the named protocol on the
// named topology preset, as the protocols' randomized tests use: 3 s of
// ycsb-50-50 over 30 keys of 16 B (keys drawn from every partition, so
// migrating sessions migrate often), two sessions per DC, 200 µs of
// service time, 10 ms of jitter, a 3 s operation timeout and, with
// withFaults, faults.Random's crashes and partitions drawn from seed.
func ContendedSpec(proto, topo string, seed uint64, withFaults bool) (SimSpec, error) {
	p, err := protocol.Lookup(proto)
	if err != nil {
		return SimSpec{}, err
	}
	tp, err := topology.Lookup(topo)
	if err != nil {
		return SimSpec{}, err
	}
	w, err := workload.Lookup("ycsb-50-50")
	if err != nil {
		return SimSpec{}, err
	}
	w.RecordCount = 30
	w.ValueSize = 16
	s := SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: seed, Duration: 3 * time.Second,
		Clients: 2 * len(tp.Datacenters), ServiceTime: 200 * time.Microsecond, Jitter: 10 * time.Millisecond,
		OpTimeout: 3 * time.Second}
	if withFaults {
		s.Faults = faults.Random(sim.NewRand(seed, "fault-schedule"), tp, p.Nodes(tp), s.Duration)
	}
	return s, nil
}
