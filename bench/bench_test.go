package bench

import (
	"syscall"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSimulator reports how many simulated messages (each encoded and
// decoded by the wire codec) the simulator handles per CPU-second (the
// garbage collector's included), running the demo's configuration: cops on
// karma-aws8 with ycsb-95-5, 32 sessions, ±20 ms jitter.
func BenchmarkSimulator(b *testing.B) {
	p, err := protocol.Lookup("cops")
	if err != nil {
		b.Fatal(err)
	}
	tp, err := topology.Lookup("karma-aws8")
	if err != nil {
		b.Fatal(err)
	}
	w, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		b.Fatal(err)
	}
	var msgs, ops int64
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := RunSim(SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: uint64(i + 1),
			Duration: 2 * time.Second, Clients: 32, ServiceTime: 100 * time.Microsecond,
			Jitter: 20 * time.Millisecond, OpTimeout: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		msgs += *res.Messages
		ops += res.Ops
	}
	secs := (cpuTime(b) - cpu0).Seconds()
	b.ReportMetric(float64(msgs)/secs, "msgs/cpu-s")
	b.ReportMetric(float64(ops)/secs, "client-ops/cpu-s")
}
