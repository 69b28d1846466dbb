package transport

import (
	"sort"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestLoweredDelayDoesNotReorder lowers a link's delay while frames sent
// with the higher one are in the delay line: the frames sent afterwards,
// due earlier by their own delay, must still arrive after them, each no
// earlier than its own delay; another link's frames are not held behind
// them.
func TestLoweredDelayDoesNotReorder(t *testing.T) {
	const slow, fast = 100 * time.Millisecond, time.Millisecond
	a := start(t, "a", Config{})
	b := start(t, "b", Config{})
	c := start(t, "c", Config{})
	a.SetDelay(b.Addr(), slow)
	start := time.Now()
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 0, 10)
	a.SetDelay(b.Addr(), fast)
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 10, 20)
	// c's link is independent: its frame arrives while b's wait.
	sendInts(t, a.Transport, c.Addr(), "dc1/s0", "dc3/s0", 0, 1)
	cGot := c.expectInts(t, "dc1/s0", 0)
	got := b.expectInts(t, "dc1/s0", ints(0, 20)...)
	for i, d := range got[:10] {
		if took := d.at.Sub(start); took < slow {
			t.Errorf("frame %d delivered %v after Send, before its %v delay", i, took, slow)
		}
	}
	if !cGot[0].at.Before(got[0].at) {
		t.Errorf("c's frame (no delay) arrived at %v, after b's delayed frames (%v): links are not independent",
			cGot[0].at.Sub(start), got[0].at.Sub(start))
	}
}

// TestDelayLineManyDestinations sends frames with different delays to
// several links, interleaved: each arrives no earlier than its delay and
// every link stays FIFO.
func TestDelayLineManyDestinations(t *testing.T) {
	a := start(t, "a", Config{})
	peers := []*node{start(t, "b", Config{}), start(t, "c", Config{}), start(t, "d", Config{})}
	delays := []time.Duration{0, 3 * time.Millisecond, 20 * time.Millisecond}
	for i, p := range peers {
		a.SetDelay(p.Addr(), delays[i])
	}
	var sentAt []time.Time
	for i := range int64(30) {
		sentAt = append(sentAt, time.Now())
		for _, p := range peers {
			sendInts(t, a.Transport, p.Addr(), "dc1/s0", "dc2/s0", i, i+1)
		}
	}
	for i, p := range peers {
		for j, d := range p.expectInts(t, "dc1/s0", ints(0, 30)...) {
			if took := d.at.Sub(sentAt[j]); took < delays[i] {
				t.Errorf("peer %d frame %d delivered %v after Send, before its %v delay", i, j, took, delays[i])
			}
		}
	}
}

// BenchmarkDelayAccuracy measures the one-way delay the transport adds
// against the delay configured: round trips between two transports on
// loopback, with no delay (the base) and with each configured delay on
// both directions. It reports added/configured, the mean one-way delay
// added beyond the base divided by the delay configured (1 is exact), and
// the median extra microseconds per hop.
func BenchmarkDelayAccuracy(b *testing.B) {
	for _, d := range []time.Duration{250 * time.Microsecond, time.Millisecond, 5 * time.Millisecond} {
		b.Run(d.String(), func(b *testing.B) {
			base := pingPong(b, 0, 200)
			var delayed []time.Duration
			for b.Loop() {
				delayed = append(delayed, pingPong(b, d, 20)...)
			}
			med := func(xs []time.Duration) time.Duration {
				s := append([]time.Duration(nil), xs...)
				sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
				return s[len(s)/2]
			}
			// One way = half a round trip.
			added := (med(delayed) - med(base)) / 2
			b.ReportMetric(float64(added)/float64(d), "added/configured")
			b.ReportMetric(float64(added-d)/float64(time.Microsecond), "extra-µs/hop")
		})
	}
}

// pingPong returns n round-trip times between two fresh transports whose
// links both delay frames by d.
func pingPong(b *testing.B, d time.Duration, n int) []time.Duration {
	b.Helper()
	echo := make(chan struct{}, 1)
	back := make(chan struct{}, 1)
	var x, y *Transport
	var err error
	x, err = New(Config{Self: "127.0.0.1:0", Handler: func(string, string, proto.Message) { back <- struct{}{} }})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	y, err = New(Config{Self: "127.0.0.1:0", Handler: func(string, string, proto.Message) { echo <- struct{}{} }})
	if err != nil {
		b.Fatal(err)
	}
	defer y.Close()
	x.SetDelay(y.Addr(), d)
	y.SetDelay(x.Addr(), d)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-echo:
			}
			if err := y.Send(x.Addr(), "dc2/s0", "dc1/s0", wrapperspb.Int64(0)); err != nil {
				return
			}
		}
	}()
	out := make([]time.Duration, 0, n)
	for i := range n + 5 { // 5 to warm the links up
		at := time.Now()
		if err := x.Send(y.Addr(), "dc1/s0", "dc2/s0", wrapperspb.Int64(int64(i))); err != nil {
			b.Fatal(err)
		}
		<-back
		if i >= 5 {
			out = append(out, time.Since(at))
		}
	}
	return out
}

// armWaiter records how the delay line sets its timer.
type armWaiter struct{ armed []time.Duration }

func (w *armWaiter) arm(d time.Duration) { w.armed = append(w.armed, d) }
func (w *armWaiter) wait()               {}
func (w *armWaiter) close()              {}

// TestDelayLineArmsForAFrameAlreadyDue: a frame that goes into the line
// already due (sent with no delay behind its link's delayed frames, which
// the line moved out meanwhile; or a delay that passed before the line's
// lock was taken) must set the timer to go off now, not disarm it (a
// negative duration), which would leave the frame waiting for the next
// frame sent.
func TestDelayLineArmsForAFrameAlreadyDue(t *testing.T) {
	w := &armWaiter{}
	dl := &delayLine{w: w}
	l := newLinkState(nil, "a", 1)
	l.lastDue = time.Now().Add(-time.Second) // its last delayed frame came due a second ago
	l.inLine.Store(1)                        // as Send saw it, before the line moved it out
	dl.send(l, outFrame{}, 0, false)
	if len(w.armed) != 1 || w.armed[0] < 0 {
		t.Fatalf("timer set to %v for a frame due a second ago; want once, to go off now (>= 0)", w.armed)
	}
}
