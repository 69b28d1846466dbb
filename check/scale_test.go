package check

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/causeway/causeway/history"
)

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeGenSC writes genSC's history of n operations (64 sessions, 10,000
// keys) to a file in dir.
func writeGenSC(tb testing.TB, dir string, n int) string {
	path := filepath.Join(dir, "h.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w := history.NewWriter(bw)
	genSCEach(n, 64, 10_000, 7, func(op history.Op) {
		if err := w.Write(op); err != nil {
			tb.Fatal(err)
		}
	})
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// checkFile runs CheckReader over path and returns the CPU time it took
// and the live heap (bytes) while the checker's state was held.
func checkFile(tb testing.TB, path string) (cpu time.Duration, live uint64) {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var at runtime.MemStats
	afterRunHook = func() {
		runtime.GC()
		runtime.ReadMemStats(&at)
	}
	defer func() { afterRunHook = nil }()
	c0 := cpuTime(tb)
	res, err := CheckReader(f, Options{})
	cpu = cpuTime(tb) - c0
	if err != nil {
		tb.Fatal(err)
	}
	if !res.OK {
		tb.Fatalf("generated causal history fails: %s", Summary(res))
	}
	if at.HeapAlloc > before.HeapAlloc {
		live = at.HeapAlloc - before.HeapAlloc
	}
	return cpu, live
}

// BenchmarkCheckScaling reads and checks genSC histories of 100,000 and
// 4,000,000 operations from files (CheckReader: parse and check in one
// pass) and reports the CPU time per operation of each, their ratio
// (linear time: 1), and the bytes per operation held at 4M (the
// columns and the checker's state, measured after a GC). The GC's CPU
// (which a GC'd language pays for held memory) is included.
func BenchmarkCheckScaling(b *testing.B) {
	var cpuSmall, cpuLarge time.Duration
	var live uint64
	for b.Loop() {
		b.StopTimer()
		small := writeGenSC(b, b.TempDir(), 100_000)
		large := writeGenSC(b, b.TempDir(), 4_000_000)
		b.StartTimer()
		// The small history several times, so its figure is not one
		// short measurement.
		for range 5 {
			c, _ := checkFile(b, small)
			cpuSmall += c
		}
		c, l := checkFile(b, large)
		cpuLarge += c
		live = max(live, l)
	}
	usSmall := float64(cpuSmall.Microseconds()) / float64(5*100_000*b.N)
	usLarge := float64(cpuLarge.Microseconds()) / float64(4_000_000*b.N)
	b.ReportMetric(usSmall, "cpu-us/op@100k")
	b.ReportMetric(usLarge, "cpu-us/op@4M")
	b.ReportMetric(usLarge/usSmall, "ratio-4M/100k")
	b.ReportMetric(float64(live)/4_000_000, "bytes/op@4M")
}
