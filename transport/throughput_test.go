//go:build unix

package transport

import (
	"errors"
	"runtime"
	"strconv"
	"sync"
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

// BenchmarkRoundTrip has `clients` goroutines each send a small frame
// from a dialing transport (as a client process's) to a serving one,
// whose Handler replies to it on the same stream (Reply), and wait for
// the reply before sending the next: a closed loop, as the bench's
// sessions. It reports the process's CPU time per round trip (both ends)
// and the round trips per second, with Config.InlineWrites off, on at the
// client (as runtime/node sets it), and on at both ends.
func BenchmarkRoundTrip(b *testing.B) {
	for _, clients := range []int{1, 16} {
		for _, mode := range []string{"queued", "inline", "inline-both"} {
			b.Run("clients="+strconv.Itoa(clients)+"/"+mode, func(b *testing.B) {
				benchRoundTrip(b, clients, mode != "queued", mode == "inline-both")
			})
		}
	}
}

func benchRoundTrip(b *testing.B, clients int, inline, serverInline bool) {
	var srv *Transport
	srv, err := New(Config{
		Self:         "127.0.0.1:0",
		InlineWrites: serverInline,
		Routable:     func(string) bool { return true },
		Handler: func(from, to string, msg proto.Message) {
			if err := srv.Reply(to, from, msg); err != nil {
				b.Error(err)
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	replies := make([]chan struct{}, clients)
	for i := range replies {
		replies[i] = make(chan struct{}, 1)
	}
	cl, err := New(Config{InlineWrites: inline, Handler: func(_, to string, _ proto.Message) {
		i, _ := strconv.Atoi(to[len("c"):])
		replies[i] <- struct{}{}
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	msg := wrapperspb.Bytes(make([]byte, 100))
	to := srv.Addr()
	var next atomic.Int64
	cpu0, t0 := cpuTime(), time.Now()
	b.ResetTimer()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "c" + strconv.Itoa(c)
			for next.Add(1) <= int64(b.N) {
				if err := cl.Send(to, id, "s", msg); err != nil {
					b.Error(err)
					return
				}
				select {
				case <-replies[c]:
				case <-time.After(patience):
					b.Error("no reply")
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	cpu, wall := cpuTime()-cpu0, time.Since(t0)
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/rt")
	b.ReportMetric(float64(b.N)/wall.Seconds(), "rt/s")
}
