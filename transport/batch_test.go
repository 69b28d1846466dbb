package transport

import (
	"context"
	"net"
	"testing"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/wire"
	"github.com/causeway/causeway/wire/transportpb"
)

// intFrame is a valid frame carrying i.
func intFrame(t *testing.T, i int64, from string) *transportpb.Frame {
	t.Helper()
	p, err := wire.Encode(wrapperspb.Int64(i))
	if err != nil {
		t.Fatal(err)
	}
	return &transportpb.Frame{Payload: p, From: from, To: "dc2/s0"}
}

// TestQueuedFramesGoInBatches queues frames on a link whose receiver is
// not up yet: once it is, the link writes them in messages of up to
// maxBatchFrames frames each, and they arrive in order.
func TestQueuedFramesGoInBatches(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()

	a := start(t, "a", Config{})
	const n = 1000
	sendInts(t, a.Transport, addr, "dc1/s0", "dc2/s0", 0, n)
	b := start(t, "b", Config{Self: addr})
	b.expectInts(t, "dc1/s0", ints(0, n)...)
	s := a.Stats()
	if s.Sent != n || s.Messages > n/maxBatchFrames+2 {
		t.Errorf("%d frames sent in %d messages, want %d in at most %d", s.Sent, s.Messages, n, n/maxBatchFrames+2)
	}
}

// TestBatchBounds checks that takeBatch stops at maxBatchFrames frames,
// and at the first frame that reaches maxBatchBytes.
func TestBatchBounds(t *testing.T) {
	var q []outFrame
	for i := range 2*maxBatchFrames + 1 {
		q = append(q, outFrame{frame: intFrame(t, int64(i), "dc1/s0")})
	}
	if got := len(takeBatch(&q, nil)); got != maxBatchFrames {
		t.Errorf("a batch of %d small frames, want %d", got, maxBatchFrames)
	}
	if len(q) != maxBatchFrames+1 {
		t.Errorf("%d frames left in the queue, want %d", len(q), maxBatchFrames+1)
	}
	if b := takeBatch(&q, nil); len(b) != maxBatchFrames || !frameIs(t, b[0].frame, maxBatchFrames) {
		t.Errorf("the second batch has %d frames, want %d from frame %d on", len(b), maxBatchFrames, maxBatchFrames)
	}
	if b := takeBatch(&q, nil); len(b) != 1 || len(q) != 0 || !frameIs(t, b[0].frame, 2*maxBatchFrames) {
		t.Errorf("the last batch has %d frames and %d are left, want 1 and 0", len(b), len(q))
	}
	big := &transportpb.Frame{Payload: make([]byte, maxBatchBytes/3), From: "dc1/s0", To: "dc2/s0"}
	for range 5 {
		q = append(q, outFrame{frame: big})
	}
	if got := len(takeBatch(&q, nil)); got != 3 {
		t.Errorf("a batch of %d frames of a third of maxBatchBytes, want 3", got)
	}
}

// frameIs reports whether f carries the integer i.
func frameIs(t *testing.T, f *transportpb.Frame, i int64) bool {
	t.Helper()
	_, _, msg, err := checkBatched(f, wire.MaxFrameBytes)
	return err == nil && msg.(*wrapperspb.Int64Value).GetValue() == i
}

// sendFunc is a frameSender made of a function.
type sendFunc func(*transportpb.Frame) error

func (f sendFunc) Send(m *transportpb.Frame) error { return f(m) }

// TestRepliesGoInBatches runs a back link's writer over replies already
// queued: it sends them all in one message, in order.
func TestRepliesGoInBatches(t *testing.T) {
	tr := start(t, "srv", Config{}).Transport
	b := tr.newBackLink("peer", "")
	const n = 100
	for i := range int64(n) {
		if out, err := b.enqueue(outFrame{frame: intFrame(t, i, "dc1/s0")}, 0); err != nil || out != nil {
			t.Fatal(out, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var got []*transportpb.Frame
	messages := 0
	b.write(ctx, sendFunc(func(m *transportpb.Frame) error {
		messages++
		got = append(got, unpackBatch(m)...)
		if len(got) == n {
			cancel()
		}
		return nil
	}))
	if messages != 1 || len(got) != n {
		t.Fatalf("%d frames in %d messages, want %d in one", len(got), messages, n)
	}
	for i, f := range got {
		_, _, msg, err := checkBatched(f, wire.MaxFrameBytes)
		if err != nil || msg.(*wrapperspb.Int64Value).GetValue() != int64(i) {
			t.Fatalf("frame %d: %v, %v", i, msg, err)
		}
	}
	if q := b.queued.Load(); q != 0 {
		t.Errorf("%d frames still counted as queued", q)
	}
}

// TestBatchedFramesAreCheckedOneByOne sends one message whose batch holds
// valid frames and invalid ones (one with a batch of its own, one with an
// empty from): the valid ones arrive, in order, and each invalid one is
// dropped alone.
func TestBatchedFramesAreCheckedOneByOne(t *testing.T) {
	b := start(t, "b", Config{})
	st := rawStream(t, b.Addr())
	nested := intFrame(t, 100, "dc1/c0")
	nested.Batch = []*transportpb.Frame{intFrame(t, 101, "dc1/c0")}
	noFrom := intFrame(t, 102, "")
	m := intFrame(t, 0, "dc1/c0")
	m.Batch = []*transportpb.Frame{intFrame(t, 1, "dc1/c0"), nested, intFrame(t, 2, "dc1/c0"), noFrom, intFrame(t, 3, "dc1/c0")}
	if err := st.Send(m); err != nil {
		t.Fatal(err)
	}
	b.expectInts(t, "dc1/c0", 0, 1, 2, 3)
	if s := b.Stats(); s.Dropped != 2 || s.Received != 4 {
		t.Errorf("stats %+v, want 2 dropped and 4 received", s)
	}
}
