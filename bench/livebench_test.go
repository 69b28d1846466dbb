package bench

import (
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/runtime/node/nodetest"
	"github.com/causeway/causeway/workload"
)

// BenchmarkLiveCops runs the live store's throughput figure in one
// process, where a CPU profile sees the nodes, the transport and the
// benchmark's clients together: a local3 cops cluster (real gRPC
// transport, Pebble, WAN delay on), 1,000 records loaded, then
// ycsb-95-5 from 96 clients for 3 s with the interleaved no-op ceiling.
// It reports ops/s, the ceiling and their ratio, then runs the workload
// alone and the pings alone for the CPU the whole process spends per
// client operation and per ping (the runs', not the load's; with
// CAUSEWAY_LIVE_CPUPROFILE set, CPU profiles of the interleaved run, the
// workload alone and the pings alone go to the file it names, and that
// name plus ".work" and ".ping"; CAUSEWAY_LIVE_DURATION sets the run's
// length):
//
//	CAUSEWAY_LIVE_CPUPROFILE=/tmp/cpu.out go test -run '^$' -bench BenchmarkLiveCops -benchtime 1x ./bench/
func BenchmarkLiveCops(b *testing.B) {
	w, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		b.Fatal(err)
	}
	w.RecordCount = 1000
	cfg, err := cluster.Load(nodetest.StartLocal(b, "local3", "cops"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := RunLoad(LoadSpec{Cluster: cfg, Workload: w}); err != nil {
		b.Fatal(err)
	}
	d := 3 * time.Second
	if v := os.Getenv("CAUSEWAY_LIVE_DURATION"); v != "" {
		if d, err = time.ParseDuration(v); err != nil {
			b.Fatal(err)
		}
	}
	var ops, opsS, ceil, workOps, pings float64
	var workCPU, pingCPU time.Duration
	run := func(spec LiveSpec) (*Result, time.Duration) {
		c0 := cpuTime(b)
		res, err := RunLive(spec)
		if err != nil {
			b.Fatal(err)
		}
		if !res.Check.OK {
			b.Fatalf("checker: %s", res.Check.FirstViolation())
		}
		return res, cpuTime(b) - c0
	}
	prof := os.Getenv("CAUSEWAY_LIVE_CPUPROFILE")
	// profiled runs spec with a CPU profile in prof+suffix, if prof is set.
	profiled := func(spec LiveSpec, suffix string) (*Result, time.Duration) {
		if prof == "" {
			return run(spec)
		}
		out, err := os.Create(prof + suffix)
		if err != nil {
			b.Fatal(err)
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
		return run(spec)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		spec := LiveSpec{Cluster: cfg, Workload: w, Seed: uint64(i + 1), Duration: d, Clients: 96}
		res, _ := profiled(spec, "")
		ops += float64(res.Ops)
		opsS += res.ThroughputOpsS
		if res.CeilingOpsS != nil {
			ceil += *res.CeilingOpsS
		}
		// The workload alone, then the pings alone, for the CPU each costs.
		spec.Ceiling = -1
		res, c := profiled(spec, ".work")
		workCPU += c
		workOps += float64(res.Ops)
		spec.NoopOnly, spec.Duration = true, d/4
		res, c = profiled(spec, ".ping")
		pingCPU += c
		pings += float64(res.Ops)
	}
	n := float64(b.N)
	b.ReportMetric(opsS/n, "ops/s")
	b.ReportMetric(ceil/n, "ceiling/s")
	if ceil > 0 {
		b.ReportMetric(opsS/ceil, "fraction")
	}
	b.ReportMetric(float64(workCPU.Microseconds())/workOps, "cpu-µs/op")
	b.ReportMetric(float64(pingCPU.Microseconds())/pings, "cpu-µs/ping")
}
