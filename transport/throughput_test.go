//go:build unix

package transport

import (
	"errors"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// BenchmarkLinkThroughput sends b.N small frames from one transport to
// another on loopback as fast as the link's queue takes them, and reports
// the process's CPU time per frame delivered (both ends), the frames per
// gRPC message and the frames per second.
func BenchmarkLinkThroughput(b *testing.B) {
	var got atomic.Int64
	done := make(chan struct{})
	want := int64(b.N)
	rx, err := New(Config{Self: "127.0.0.1:0", Handler: func(string, string, proto.Message) {
		if got.Add(1) == want {
			close(done)
		}
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer rx.Close()
	tx, err := New(Config{Self: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Close()
	msg := wrapperspb.Bytes(make([]byte, 200))
	to := rx.Addr()
	cpu0, t0 := cpuTime(), time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; {
		switch err := tx.Send(to, "dc1/s0", "dc2/s0", msg); {
		case err == nil:
			i++
		case errors.Is(err, ErrQueueFull):
			runtime.Gosched()
		default:
			b.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(patience + time.Duration(b.N)*time.Millisecond):
		b.Fatalf("%d of %d frames arrived", got.Load(), b.N)
	}
	b.StopTimer()
	cpu, wall := cpuTime()-cpu0, time.Since(t0)
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/frame")
	b.ReportMetric(float64(b.N)/wall.Seconds(), "frames/s")
	if s := tx.Stats(); s.Messages > 0 {
		b.ReportMetric(float64(s.Sent)/float64(s.Messages), "frames/msg")
	}
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
