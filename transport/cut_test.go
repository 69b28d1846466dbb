package transport

import (
	"errors"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestCutIsOneWayAndHeals cuts a's link to b: what a sends to b is lost
// (and counted), while b still reaches a and a still reaches c; once
// healed, the link carries what is sent from then on, in order.
func TestCutIsOneWayAndHeals(t *testing.T) {
	a := start(t, "a", Config{})
	b := start(t, "b", Config{})
	c := start(t, "c", Config{})
	// A frame before the cut, so that the link exists and is up.
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 0, 1)
	b.expectInts(t, "dc1/s0", 0)

	a.Cut(b.Addr())
	if !a.IsCut(b.Addr()) || a.IsCut(c.Addr()) {
		t.Fatalf("IsCut: b %v, c %v; want b only", a.IsCut(b.Addr()), a.IsCut(c.Addr()))
	}
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 1, 11) // Send succeeds: the loss is silent
	sendInts(t, a.Transport, c.Addr(), "dc1/s0", "dc3/s0", 0, 3)
	c.expectInts(t, "dc1/s0", 0, 1, 2)
	sendInts(t, b.Transport, a.Addr(), "dc2/s0", "dc1/s0", 0, 3)
	a.expectInts(t, "dc2/s0", 0, 1, 2)
	// Validation still applies on a cut link.
	if err := a.Send(b.Addr(), "", "dc2/s0", wrapperspb.Int64(0)); err == nil {
		t.Error("Send with an empty from succeeded on a cut link")
	}

	a.Heal(b.Addr())
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 11, 14)
	// FIFO: had any of 1..10 got through, it would come before 11.
	b.expectInts(t, "dc1/s0", 11, 12, 13)
	if st := a.Stats(); st.Cut != 10 || st.Sent != 1+3+3 || st.Dropped != 0 {
		t.Errorf("a's stats %+v, want 10 cut and 7 sent", st)
	}
	if st := b.Stats(); st.Cut != 0 || st.Received != 1+3 {
		t.Errorf("b's stats %+v, want nothing cut and 4 received", st)
	}
}

// TestCutDropsQueuedFrames cuts a link while frames wait out their WAN
// delay: they are lost when they come due, as frames in flight on a
// partitioned network are.
func TestCutDropsQueuedFrames(t *testing.T) {
	a := start(t, "a", Config{})
	b := start(t, "b", Config{})
	a.SetDelay(b.Addr(), 100*time.Millisecond)
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 0, 5)
	a.Cut(b.Addr())
	deadline := time.Now().Add(patience)
	for a.Stats().Cut < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("queued frames not dropped within %v: %+v", patience, a.Stats())
		}
		time.Sleep(5 * time.Millisecond) // polling a counter: nothing to wait on
	}
	a.Heal(b.Addr())
	a.SetDelay(b.Addr(), 0)
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 5, 7)
	b.expectInts(t, "dc1/s0", 5, 6)
	// The sender counts a frame once gRPC took it, which may be after the
	// receiver has it.
	waitFor(t, func() bool { return a.Stats().Sent >= 2 })
	if st := a.Stats(); st.Cut != 5 || st.Sent != 2 {
		t.Errorf("a's stats %+v, want 5 cut and 2 sent", st)
	}
}

func TestCutManyAndHealAll(t *testing.T) {
	a := start(t, "a", Config{})
	a.Cut("127.0.0.1:9", "127.0.0.1:7", "127.0.0.1:9")
	if got := a.CutAddrs(); !slices.Equal(got, []string{"127.0.0.1:7", "127.0.0.1:9"}) {
		t.Errorf("CutAddrs = %q", got)
	}
	a.Heal("127.0.0.1:7", "127.0.0.1:8")
	if got := a.CutAddrs(); !slices.Equal(got, []string{"127.0.0.1:9"}) {
		t.Errorf("CutAddrs after Heal = %q", got)
	}
	// A cut link is never dialled: nothing listens on port 9.
	sendInts(t, a.Transport, "127.0.0.1:9", "dc1/s0", "dc9/s0", 0, 3)
	a.HealAll()
	if got := a.CutAddrs(); len(got) != 0 {
		t.Errorf("CutAddrs after HealAll = %q", got)
	}
	if st := a.Stats(); st.Cut != 3 || st.Reconnects != 0 {
		t.Errorf("stats %+v, want 3 cut and no link", st)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a.Cut("127.0.0.1:9")
	if err := a.Send("127.0.0.1:9", "dc1/s0", "dc9/s0", wrapperspb.Int64(0)); !errors.Is(err, ErrClosed) {
		t.Errorf("Send on a cut link after Close: %v, want ErrClosed", err)
	}
}
