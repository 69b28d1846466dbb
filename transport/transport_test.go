package transport

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/wire"
	"github.com/causeway/causeway/wire/transportpb"
)

func TestExchangeBothWays(t *testing.T) {
	a := start(t, "a", Config{})
	b := start(t, "b", Config{})

	if err := a.Send(b.Addr(), "dc1/s0", "dc2/s0", wrapperspb.String("ping")); err != nil {
		t.Fatal(err)
	}
	d := b.next(t)
	if d.from != "dc1/s0" || d.to != "dc2/s0" || d.msg.(*wrapperspb.StringValue).GetValue() != "ping" {
		t.Fatalf("b got %q -> %q: %v", d.from, d.to, d.msg)
	}
	if err := b.Send(a.Addr(), "dc2/s0", "dc1/s0", wrapperspb.String("pong")); err != nil {
		t.Fatal(err)
	}
	d = a.next(t)
	if d.from != "dc2/s0" || d.to != "dc1/s0" || d.msg.(*wrapperspb.StringValue).GetValue() != "pong" {
		t.Fatalf("a got %q -> %q: %v", d.from, d.to, d.msg)
	}

	for _, n := range []*node{a, b} {
		if st := n.Stats(); st.Sent != 1 || st.Received != 1 || st.Dropped != 0 || st.Reconnects != 0 {
			t.Errorf("stats %+v, want 1 sent, 1 received", st)
		}
		if w := n.logs.warnings(); len(w) != 0 {
			t.Errorf("unexpected warnings: %q", w)
		}
	}
}

func TestLinkIsFIFO(t *testing.T) {
	const total = 1000
	a := start(t, "a", Config{})
	b := start(t, "b", Config{})
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 0, total)
	b.expectInts(t, "dc1/s0", ints(0, total)...)
	if st := a.Stats(); st.Sent != total {
		t.Errorf("a sent %d frames, want %d", st.Sent, total)
	}
}

func TestDelayIsLowerBoundAndKeepsOrder(t *testing.T) {
	const delay = 50 * time.Millisecond
	t.Run("SetDelay", func(t *testing.T) {
		a := start(t, "a", Config{})
		b := start(t, "b", Config{})
		a.SetDelay(b.Addr(), delay)
		var sentAt []time.Time
		for i := range int64(20) {
			sentAt = append(sentAt, time.Now())
			sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", i, i+1)
		}
		// Later frames with no delay still wait for the delayed ones.
		a.SetDelay(b.Addr(), 0)
		sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 20, 40)
		got := b.expectInts(t, "dc1/s0", ints(0, 40)...)
		for i, at := range sentAt {
			if took := got[i].at.Sub(at); took < delay {
				t.Errorf("frame %d delivered %v after Send, before the %v delay", i, took, delay)
			}
		}
	})
	t.Run("ConfigDelay", func(t *testing.T) {
		b := start(t, "b", Config{})
		a := start(t, "a", Config{Delay: func(addr string) time.Duration {
			if addr == b.Addr() {
				return delay
			}
			return 0
		}})
		before := time.Now()
		sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 0, 5)
		for _, d := range b.expectInts(t, "dc1/s0", ints(0, 5)...) {
			if took := d.at.Sub(before); took < delay {
				t.Errorf("delivered %v after Send, before the %v delay", took, delay)
			}
		}
		// SetDelay overrides Config.Delay.
		a.SetDelay(b.Addr(), 2*delay)
		before = time.Now()
		sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 5, 6)
		if took := b.expectInts(t, "dc1/s0", 5)[0].at.Sub(before); took < 2*delay {
			t.Errorf("delivered %v after Send, before the %v delay", took, 2*delay)
		}
	})
}

func TestReconnectAfterReceiverRestart(t *testing.T) {
	a := start(t, "a", Config{})
	down := linkEvents(a.Transport)
	b := start(t, "b", Config{})
	addr := b.Addr()
	sendInts(t, a.Transport, addr, "dc1/s0", "dc2/s0", 0, 10)
	b.expectInts(t, "dc1/s0", ints(0, 10)...)

	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("link down: %v", waitEvent(t, down, "broken stream"))
	// Queued while the receiver is down: sent after the reconnection.
	sendInts(t, a.Transport, addr, "dc1/s0", "dc2/s0", 10, 20)

	b2 := start(t, "b2", Config{Self: addr})
	sendInts(t, a.Transport, addr, "dc1/s0", "dc2/s0", 20, 30)
	b2.expectInts(t, "dc1/s0", ints(10, 30)...)
	if st := a.Stats(); st.Reconnects == 0 || st.Sent != 30 {
		t.Errorf("a's stats %+v, want reconnects and 30 frames sent", st)
	}
}

// rawStream opens a Link stream to addr with a plain gRPC client, using the
// raw codec so that the test can also send bytes that are no Frame at all.
func rawStream(t *testing.T, addr string) transportpb.Transport_LinkClient {
	t.Helper()
	cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := transportpb.NewTransportClient(cc).Link(ctx, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestInvalidFramesAreDropped(t *testing.T) {
	const maxFrame = 1024
	b := start(t, "b", Config{MaxFrameBytes: maxFrame})
	st := rawStream(t, b.Addr())

	good, err := wire.Encode(wrapperspb.Int64(1))
	if err != nil {
		t.Fatal(err)
	}
	big, err := wire.Encode(wrapperspb.Bytes(make([]byte, 2*maxFrame)))
	if err != nil {
		t.Fatal(err)
	}
	unknown := append(protowire.AppendVarint(nil, 1<<20), 1, 2, 3) // no such kind
	// A Frame whose from is not UTF-8, which gRPC's own codec would refuse
	// to parse (ending the stream).
	var badUTF8 []byte
	badUTF8 = protowire.AppendTag(badUTF8, 1, protowire.BytesType)
	badUTF8 = protowire.AppendBytes(badUTF8, good)
	badUTF8 = protowire.AppendTag(badUTF8, 2, protowire.BytesType)
	badUTF8 = protowire.AppendString(badUTF8, "dc1/\xff")
	badUTF8 = protowire.AppendTag(badUTF8, 3, protowire.BytesType)
	badUTF8 = protowire.AppendString(badUTF8, "dc2/s0")

	frames := []*transportpb.Frame{
		{Payload: []byte("\xde\xad\xbe\xef garbage"), From: "dc1/s0", To: "dc2/s0"},
		{Payload: big, From: "dc1/s0", To: "dc2/s0"},
		{Payload: good, From: "", To: "dc2/s0"},
		{Payload: good, From: "dc1/s0", To: ""},
		{Payload: unknown, From: "dc1/s0", To: "dc2/s0"},
		{Payload: nil, From: "dc1/s0", To: "dc2/s0"},
		{Payload: good, From: strings.Repeat("x", MaxIDBytes+1), To: "dc2/s0"},
	}
	for _, f := range frames {
		if err := st.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, raw := range [][]byte{{0x0a, 0xff, 0x01}, {0xff, 0xff, 0xff, 0xff}, badUTF8} {
		if err := st.SendMsg(&rawFrame{b: raw}); err != nil {
			t.Fatal(err)
		}
	}
	const bad = 10
	// The stream still works: good frames after the bad ones arrive.
	for i := range int64(2) {
		p, err := wire.Encode(wrapperspb.Int64(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Send(&transportpb.Frame{Payload: p, From: "dc1/c0", To: "dc2/s0"}); err != nil {
			t.Fatal(err)
		}
	}
	b.expectInts(t, "dc1/c0", 0, 1)
	if s := b.Stats(); s.Dropped != bad || s.Received != 2 {
		t.Errorf("stats %+v, want %d dropped and 2 received", s, bad)
	}
	if w := b.logs.warnings(); len(w) != bad {
		t.Errorf("%d warnings, want one per dropped frame (%d): %q", len(w), bad, w)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// Close ended the stream from the server side.
	if _, err := st.Recv(); err == nil {
		t.Error("stream still open after Close")
	}
}

func TestQueueFull(t *testing.T) {
	const limit = 8
	b := start(t, "b", Config{})
	a := start(t, "a", Config{QueueLimit: limit})
	// Hold every frame: nothing leaves the queue.
	a.SetDelay(b.Addr(), time.Hour)
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 0, limit)
	err := a.Send(b.Addr(), "dc1/s0", "dc2/s0", wrapperspb.Int64(limit))
	if !errors.Is(err, ErrQueueFull) {
		t.Fatalf("Send on a full queue: %v, want ErrQueueFull", err)
	}
	// Other links have their own queues.
	if err := a.Send(a.Addr(), "dc1/s0", "dc1/s1", wrapperspb.Int64(0)); err != nil {
		t.Fatalf("Send on another link: %v", err)
	}
	a.expectInts(t, "dc1/s0", 0)

	// Close does not wait for the delayed frames; it drops them.
	closed := make(chan error, 1)
	go func() { closed <- a.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(patience):
		t.Fatal("Close waited for delayed frames")
	}
	if st := a.Stats(); st.Dropped != limit || st.Sent != 1 {
		t.Errorf("stats %+v, want %d dropped and 1 sent", st, limit)
	}
	if len(b.inbox) != 0 {
		t.Errorf("b received %d frames that were never due", len(b.inbox))
	}
}

func TestSendValidates(t *testing.T) {
	a := start(t, "a", Config{MaxFrameBytes: 64})
	for _, tc := range []struct {
		name, from, to string
		msg            proto.Message
	}{
		{"empty from", "", "dc1/s1", wrapperspb.Int64(1)},
		{"empty to", "dc1/s0", "", wrapperspb.Int64(1)},
		{"long from", strings.Repeat("x", MaxIDBytes+1), "dc1/s1", wrapperspb.Int64(1)},
		{"non-UTF-8 to", "dc1/s0", "dc1/\xff", wrapperspb.Int64(1)},
		{"too large", "dc1/s0", "dc1/s1", wrapperspb.Bytes(make([]byte, 64))},
	} {
		if err := a.Send(a.Addr(), tc.from, tc.to, tc.msg); err == nil {
			t.Errorf("%s: Send succeeded", tc.name)
		}
	}
	if _, err := New(Config{Self: "127.0.0.1:0", MaxFrameBytes: wire.MaxFrameBytes + 1}); err == nil {
		t.Error("New accepted MaxFrameBytes over wire.MaxFrameBytes")
	}
	// An empty Self is a transport that only dials.
	if d, err := New(Config{}); err != nil || d.Addr() != "" {
		t.Errorf("New with no Self: %v", err)
	} else {
		_ = d.Close()
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := a.Send(a.Addr(), "dc1/s0", "dc1/s1", wrapperspb.Int64(1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close: %v, want ErrClosed", err)
	}
}

func TestCloseEndsEveryGoroutine(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := lis.Addr().String() // nothing listens there once closed
	if err := lis.Close(); err != nil {
		t.Fatal(err)
	}

	a := start(t, "a", Config{})
	b := start(t, "b", Config{})
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 0, 3)
	sendInts(t, b.Transport, a.Addr(), "dc2/s0", "dc1/s0", 0, 3)
	b.expectInts(t, "dc1/s0", 0, 1, 2)
	a.expectInts(t, "dc2/s0", 0, 1, 2)
	// Links in every state: idle, holding a delayed frame, and down.
	a.SetDelay(b.Addr(), time.Hour)
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 3, 4)
	sendInts(t, a.Transport, dead, "dc1/s0", "dc9/s0", 0, 1)

	for _, n := range []*node{a, b} {
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Close has waited for every goroutine to finish its work, but one may
	// still be between its last deferred call and its exit: look again
	// for a moment before calling it left behind (as goleak does).
	var left []string
	for try := 0; try < 200; try++ {
		left = transportGoroutines()
		if len(left) == 0 {
			break
		}
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond)
	}
	for _, g := range left {
		t.Errorf("goroutine left after Close:\n%s", g)
	}
	if st := a.Stats(); st.Dropped != 2 {
		t.Errorf("a's stats %+v, want the 2 undelivered frames dropped", st)
	}
}

// TestLinkToAGoneAddressIsRetired: a link whose peer never comes back (a
// client process that exited) is closed after RetireAfter with its queued
// frames dropped, and a later Send opens a fresh link that delivers.
func TestLinkToAGoneAddressIsRetired(t *testing.T) {
	a := start(t, "a", Config{RetireAfter: 300 * time.Millisecond})
	b := start(t, "b", Config{})
	addr := b.Addr()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	sendInts(t, a.Transport, addr, "dc1/s0", "dc2/c1", 0, 5)
	if st := a.Stats(); st.Links != 1 {
		t.Fatalf("stats %+v, want one link", st)
	}
	deadline := time.Now().Add(10 * time.Second) // a hang guard
	for a.Stats().Links != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the link to a gone address was never retired: %+v", a.Stats())
		}
		time.Sleep(20 * time.Millisecond) // polling another goroutine, with a deadline
	}
	if st := a.Stats(); st.Dropped != 5 {
		t.Errorf("stats %+v, want the 5 queued frames dropped", st)
	}
	b2 := start(t, "b2", Config{Self: addr})
	sendInts(t, a.Transport, addr, "dc1/s0", "dc2/c1", 5, 8)
	b2.expectInts(t, "dc1/s0", ints(5, 8)...)
}

// transportGoroutines returns the stacks of the goroutines running this
// package's code.
func transportGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, fn := range []string{"transport.(*link)", "transport.(*Transport)", "transport.(*linkServer)", "transport.New."} {
			if strings.Contains(g, fn) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}
