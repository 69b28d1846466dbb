package transport

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"
)

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	b := start(t, "gone", Config{})
	addr := b.Addr()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestFailFastReportsUnsentFrames: a FailFast link to an address nothing
// listens on drops its frames unwritten, reports each one, refuses further
// frames with ErrUnreachable, and delivers again once a peer listens.
func TestFailFastReportsUnsentFrames(t *testing.T) {
	a := start(t, "a", Config{FailFast: true})
	addr := closedAddr(t)
	unsent := make(chan error, 16)
	// The first frame creates the link and is queued. The link's first
	// attempt can fail (connection refused) before a later SendTracked,
	// which is then refused at once: both are the behaviour under test.
	queued := 0
	for i := range 3 {
		err := a.SendTracked(addr, "dc1/c1", "dc1/s0", wrapperspb.Int64(int64(i)), func(err error) { unsent <- err })
		switch {
		case err == nil:
			queued++
		case i > 0 && errors.Is(err, ErrUnreachable):
		default:
			t.Fatalf("SendTracked %d: %v, want it queued (or ErrUnreachable once the first attempt failed)", i, err)
		}
	}
	for i := range queued {
		select {
		case err := <-unsent:
			if !errors.Is(err, ErrUnreachable) {
				t.Errorf("unsent frame %d reported %v, want ErrUnreachable", i, err)
			}
		case <-time.After(patience):
			t.Fatalf("only %d of %d queued frames reported unsent within %v", i, queued, patience)
		}
	}
	if st := a.Stats(); st.Unsent != uint64(queued) || st.Sent != 0 {
		t.Errorf("stats %+v, want %d unsent and none sent", st, queued)
	}
	err := a.Send(addr, "dc1/c1", "dc1/s0", wrapperspb.Int64(9))
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Send to an unreachable address: %v, want ErrUnreachable", err)
	}

	b := start(t, "b", Config{Self: addr})
	deadline := time.Now().Add(patience) // a hang guard
	for {
		err := a.Send(addr, "dc1/c1", "dc1/s0", wrapperspb.Int64(10))
		if err == nil {
			break
		}
		if !errors.Is(err, ErrUnreachable) || time.Now().After(deadline) {
			t.Fatalf("Send once the peer listens: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // polling the link's reconnection, with a deadline
	}
	b.expectInts(t, "dc1/c1", 10)
}

// TestWithoutFailFastFramesWait: a link that is not FailFast keeps its
// frames through failed attempts and delivers them once a peer listens.
func TestWithoutFailFastFramesWait(t *testing.T) {
	a := start(t, "a", Config{})
	events := linkEvents(a.Transport)
	addr := closedAddr(t)
	unsent := make(chan error, 16)
	for i := range 3 {
		if err := a.SendTracked(addr, "dc1/s0", "dc2/s0", wrapperspb.Int64(int64(i)), func(err error) { unsent <- err }); err != nil {
			t.Fatal(err)
		}
	}
	waitEvent(t, events, "failed attempt")
	if err := a.Send(addr, "dc1/s0", "dc2/s0", wrapperspb.Int64(3)); err != nil {
		t.Fatalf("Send after a failed attempt: %v, want the frame queued", err)
	}
	b := start(t, "b", Config{Self: addr})
	b.expectInts(t, "dc1/s0", ints(0, 4)...)
	select {
	case err := <-unsent:
		t.Fatalf("a frame was reported unsent (%v) without FailFast", err)
	default:
	}
}
