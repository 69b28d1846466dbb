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

// BenchmarkSimulator reports how many simulated messages the simulator
// handles per CPU-second (the garbage collector's included), running the
// demo's configuration: cops on karma-aws8 with ycsb-95-5, 32 sessions,
// ±20 ms jitter, the run's history recorded and checked — and, in the
// same process and interleaved with it so that a shared machine's load
// hits both alike, its reference: the no-op relay (noop_test.go) on the
// same topology, messages per CPU-second of the event loop alone.
// ratio-to-noop is the figure to compare across runs.
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
	var msgs, ops, ref int64
	var cpu, refCPU time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c0 := cpuTime(b)
		res, err := RunSim(SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: uint64(i + 1),
			Duration: 2 * time.Second, Clients: 32, ServiceTime: 100 * time.Microsecond,
			Jitter: 20 * time.Millisecond, OpTimeout: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		c1 := cpuTime(b)
		ref += runRelay(tp, 32, 2*time.Second, 20*time.Millisecond)
		refCPU += cpuTime(b) - c1
		cpu += c1 - c0
		msgs += *res.Messages
		ops += res.Ops
	}
	rate := float64(msgs) / cpu.Seconds()
	refRate := float64(ref) / refCPU.Seconds()
	b.ReportMetric(rate, "msgs/cpu-s")
	b.ReportMetric(float64(ops)/cpu.Seconds(), "client-ops/cpu-s")
	b.ReportMetric(float64(msgs)/float64(ops), "msgs/op")
	b.ReportMetric(refRate, "noop-msgs/cpu-s")
	b.ReportMetric(rate/refRate, "ratio-to-noop")
}
