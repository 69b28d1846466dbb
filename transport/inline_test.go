package transport

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/wire"
	"github.com/causeway/causeway/wire/transportpb"
)

// heldSender is a frameSender that records the integers of the frames it
// is given, message by message; with hold set, its first Send tells
// entered and waits for hold to be closed.
type heldSender struct {
	hold    chan struct{}
	entered chan struct{}

	mu      sync.Mutex
	started bool
	msgs    [][]int64
}

func newHeldSender() *heldSender {
	return &heldSender{hold: make(chan struct{}), entered: make(chan struct{})}
}

func (s *heldSender) Send(m *transportpb.Frame) error {
	s.mu.Lock()
	first := !s.started
	s.started = true
	s.mu.Unlock()
	if first && s.hold != nil {
		close(s.entered)
		<-s.hold
	}
	var msg []int64
	for _, f := range unpackBatch(m) {
		_, _, v, err := checkBatched(f, wire.MaxFrameBytes)
		if err != nil {
			return err
		}
		msg = append(msg, v.(*wrapperspb.Int64Value).GetValue())
	}
	s.mu.Lock()
	s.msgs = append(s.msgs, msg)
	s.mu.Unlock()
	return nil
}

func (s *heldSender) messages() [][]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.msgs
}

// inlineLink is a link of a transport with InlineWrites, with no
// goroutine of its own: the test plays its part.
func inlineLink(t *testing.T) *link {
	tr := start(t, "a", Config{Self: dialOnly, InlineWrites: true}).Transport
	return newLinkState(tr, "peer", 100)
}

// TestInlineWriteQueuesBehindAWriter: a sender finds the link idle and
// writes its frame itself; while that write is held, two more frames are
// sent. They must not be written alongside (around the held one): they
// wait in the queue, and the writer that holds the token writes them
// after its own, in one batch. (It fails with the write token's check in
// push removed: frame 1 is written while frame 0 is held.)
func TestInlineWriteQueuesBehindAWriter(t *testing.T) {
	l := inlineLink(t)
	out := newHeldSender()
	l.attach(out)

	first := make(chan struct{})
	go func() {
		defer close(first)
		if err := l.send(outFrame{frame: intFrame(t, 0, "dc1/c0")}, 0); err != nil {
			t.Error(err)
		}
	}()
	<-out.entered // frame 0 is being written, inline
	for i := range int64(2) {
		if err := l.send(outFrame{frame: intFrame(t, 1+i, "dc1/c0")}, 0); err != nil {
			t.Fatal(err)
		}
	}
	close(out.hold)
	<-first

	got := out.messages()
	if len(got) != 2 || len(got[0]) != 1 || got[0][0] != 0 || len(got[1]) != 2 || got[1][0] != 1 || got[1][1] != 2 {
		t.Fatalf("messages written %v, want [[0] [1 2]]: the frames sent while frame 0 was written go after it, in one batch", got)
	}
	if q := l.queued.Load(); q != 0 {
		t.Errorf("%d frames still counted as queued", q)
	}
}

// TestDetachWaitsForAnInlineWrite: a stream ends while a sender writes on
// it inline, and a frame waits in the queue. The link's goroutine detaches
// the stream, attaches the next one and writes the queue on it: the
// waiting frame must go on the new stream, after the inline write is over,
// not on the old stream by the inline writer carrying on. (It fails with
// detach's wait for the write token removed: frame 1 goes on the old
// stream.)
func TestDetachWaitsForAnInlineWrite(t *testing.T) {
	l := inlineLink(t)
	old := newHeldSender()
	l.attach(old)

	inline := make(chan struct{})
	go func() {
		defer close(inline)
		_ = l.send(outFrame{frame: intFrame(t, 0, "dc1/c0")}, 0)
	}()
	<-old.entered
	if err := l.send(outFrame{frame: intFrame(t, 1, "dc1/c0")}, 0); err != nil {
		t.Fatal(err)
	}

	next := &heldSender{}
	reattached := make(chan struct{})
	go func() { // the link's goroutine, between two streams
		defer close(reattached)
		l.detach()
		l.attach(next)
		if l.take() {
			_ = l.drain(next, 0)
		}
	}()
	// Let the inline write finish once detach waits for it (or has
	// returned without waiting).
	deadline := time.Now().Add(patience)
	for waiting := false; !waiting; {
		select {
		case <-reattached:
			waiting = true
		default:
			l.mu.Lock()
			waiting = l.detaching
			l.mu.Unlock()
			if time.Now().After(deadline) {
				t.Fatal("detach neither waited nor returned")
			}
			runtime.Gosched()
		}
	}
	close(old.hold)
	<-inline
	<-reattached
	if l.take() { // what the goroutine does on the kick of a writer that gave frames back
		_ = l.drain(next, 0)
	}

	if got := old.messages(); len(got) != 1 || len(got[0]) != 1 || got[0][0] != 0 {
		t.Errorf("old stream got %v, want [[0]]", got)
	}
	if got := next.messages(); len(got) != 1 || len(got[0]) != 1 || got[0][0] != 1 {
		t.Errorf("new stream got %v, want [[1]]", got)
	}
}

// TestInlineWritesKeepLinkOrder sends frames over a real link with
// InlineWrites, switching the link's delay on and off, so that frames go
// inline, through the link's goroutine and through the delay line in
// turn, from two goroutines one after the other: they arrive in Send
// order.
func TestInlineWritesKeepLinkOrder(t *testing.T) {
	b := start(t, "b", Config{})
	a := start(t, "a", Config{InlineWrites: true})
	const n = 2000
	next := int64(0)
	var mu sync.Mutex // serializes the two senders: Send order is next's
	send := func() {
		for {
			mu.Lock()
			i := next
			if i == n {
				mu.Unlock()
				return
			}
			switch i % 300 {
			case 100:
				a.SetDelay(b.Addr(), 200*time.Microsecond)
			case 200:
				a.SetDelay(b.Addr(), 0)
			}
			if err := a.Send(b.Addr(), "dc1/s0", "dc2/s0", wrapperspb.Int64(i)); err != nil {
				mu.Unlock()
				t.Errorf("Send %d: %v", i, err)
				return
			}
			next++
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); send() }()
	}
	wg.Wait()
	b.expectInts(t, "dc1/s0", ints(0, n)...)
}
