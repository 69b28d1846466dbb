package transport

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/metadata"

	"github.com/causeway/causeway/wire/transportpb"
)

// outFrame is a frame waiting in a link's queue, due to be written (a
// delayed frame reaches the queue from the delay line once it is due).
type outFrame struct {
	frame *transportpb.Frame
	// unsent, if set, is told when a FailFast link drops the frame
	// unwritten (SendTracked).
	unsent func(error)
}

// link is the outgoing side of the transport towards one address: a queue
// (queue.go) and the goroutine that writes it to one stream at a time,
// reopening the stream when it breaks.
type link struct {
	t    *Transport
	addr string
	conn *grpc.ClientConn
	// wake wakes the link's goroutine to write the queue (kick).
	wake chan struct{}

	// mu guards the queue, the write token and the open stream.
	mu sync.Mutex
	// q holds the link's due frames, in order (queue.go).
	q []outFrame
	// writing is the write token: someone is writing q on out.
	writing bool
	// out is the open stream q is written on, nil while there is none.
	out frameSender
	// detaching is set while detach waits on idle for the token.
	detaching bool
	idle      sync.Cond

	// queued counts the frames in q plus those a writer holds, plus the
	// link's frames in the delay line; it bounds them all (limit).
	queued atomic.Int64
	limit  int64
	// inLine counts the link's frames in the delay line, and lastDue is
	// the due time of the last one put there (guarded by the line's mu).
	inLine  atomic.Int64
	lastDue time.Time
	// down is whether the last stream attempt failed, and downSince
	// since when the link has had no stream (owned by run).
	down      bool
	downSince time.Time
	// unreachableErr is set (FailFast only) while the link has failed to
	// open a stream since it last had one; Send refuses frames then.
	unreachableErr atomic.Pointer[error]
}

// newLinkState is a link to addr with an empty queue and no stream.
func newLinkState(t *Transport, addr string, limit int) *link {
	l := &link{t: t, addr: addr, wake: make(chan struct{}, 1), limit: int64(limit)}
	l.idle.L = &l.mu
	return l
}

// backoffConfig is gRPC's connection backoff, aligned with the links' own.
func backoffConfig() backoff.Config {
	return backoff.Config{BaseDelay: minBackoff, Multiplier: 2, Jitter: 0.2, MaxDelay: maxBackoff}
}

// newLink creates the link to addr and starts its goroutine. The caller
// holds t.mu and has checked that t is not closed.
func (t *Transport) newLink(addr string) (*link, error) {
	conn, err := grpc.NewClient("passthrough:///"+addr, t.dialOpts...)
	if err != nil {
		return nil, fmt.Errorf("transport: link to %s: %w", addr, err)
	}
	l := newLinkState(t, addr, t.cfg.QueueLimit)
	l.conn = conn
	t.linkWG.Add(1)
	go l.run()
	return l, nil
}

// enqueue queues f to be written after delay d (through the delay line
// when d > 0), or returns ErrQueueFull. When it returns a frameSender, the
// caller holds the link's write token (Config.InlineWrites) and must call
// l.drain(out, maxInlineBatches) once it holds no lock.
func (l *link) enqueue(f outFrame, d time.Duration) (frameSender, error) {
	for {
		n := l.queued.Load()
		if n >= l.limit {
			return nil, ErrQueueFull
		}
		if l.queued.CompareAndSwap(n, n+1) {
			break
		}
	}
	if out, mine := l.t.line.send(l, f, d, l.t.cfg.InlineWrites); mine {
		return out, nil
	}
	return nil, nil
}

// send is enqueue followed by the inline drain it may ask for.
func (l *link) send(f outFrame, d time.Duration) error {
	out, err := l.enqueue(f, d)
	if out != nil {
		_ = l.drain(out, maxInlineBatches) // a failed write is the link goroutine's to see
	}
	return err
}

// run opens streams to the link's address one after the other, with
// exponential backoff between failures, until the transport closes. The
// frames taken from the queue but not written when a stream breaks (a
// batch) go back to its head and are written on the next stream.
func (l *link) run() {
	t := l.t
	defer t.linkWG.Done()
	defer func() { _ = l.conn.Close() }()
	wait := minBackoff
	for {
		up, err := l.stream()
		if t.ctx.Err() != nil {
			break
		}
		if wrongNode(err) {
			l.redial()
		}
		if up >= stableAfter {
			wait = minBackoff
		}
		if up == 0 {
			l.failedToOpen(err)
		}
		if t.onLinkDown != nil {
			t.onLinkDown(l.addr, err)
		}
		switch {
		case up > 0:
			t.log.Warn("transport: link broke", "addr", l.addr, "up", up, "queued", l.queued.Load(), "err", err)
		case !l.down:
			t.log.Warn("transport: link down", "addr", l.addr, "queued", l.queued.Load(), "err", err)
		default:
			t.log.Debug("transport: link still down", "addr", l.addr, "retry_in", wait, "queued", l.queued.Load(), "err", err)
		}
		if up > 0 || !l.down {
			l.downSince = time.Now()
		}
		l.down = true
		if time.Since(l.downSince) >= t.cfg.RetireAfter && l.retire() {
			return
		}
		timer := time.NewTimer(wait)
		select {
		case <-t.ctx.Done():
			timer.Stop()
		case <-timer.C:
		}
		if t.ctx.Err() != nil {
			break
		}
		wait = min(2*wait, maxBackoff)
		t.reconnects.Add(1)
	}
	// Send no longer enqueues (the transport is closed): what is left is
	// dropped.
	if n := l.queued.Swap(0); n > 0 {
		t.dropped.Add(uint64(n))
		t.log.Info("transport: dropped queued frames at close", "addr", l.addr, "frames", n)
	}
}

// redial replaces the link's connection by a new one, which dials (and
// resolves) the address again: the old one reached a process that is not
// the node meant (ErrWrongNode), and gRPC would open the next stream on
// it. If the new connection cannot be made the old one stays.
func (l *link) redial() {
	conn, err := grpc.NewClient("passthrough:///"+l.addr, l.t.dialOpts...)
	if err != nil {
		l.t.log.Warn("transport: cannot dial anew", "addr", l.addr, "err", err)
		return
	}
	_ = l.conn.Close()
	l.conn = conn
}

// retire removes a link that has been down for Config.RetireAfter from the
// transport, dropping what it still holds, unless the transport is
// closing. It reports whether the link's goroutine should end.
func (l *link) retire() bool {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || t.links[l.addr] != l {
		return false
	}
	delete(t.links, l.addr)
	// Sends enqueue under t.mu's read lock: none can reach this link now.
	n := l.queued.Swap(0)
	t.dropped.Add(uint64(n))
	t.log.Info("transport: retired a link that stayed down", "addr", l.addr, "down_for", time.Since(l.downSince).Round(time.Millisecond), "dropped", n)
	return true
}

// stream opens one stream and writes queued frames to it, in batches
// (batch.go, queue.go), dropping those that come due while the link is
// cut, until the stream breaks or the transport closes. It returns how
// long the stream was up (0 if it could not be opened) and why it ended.
func (l *link) stream() (time.Duration, error) {
	t := l.t
	// The stream outlives t.ctx for a moment at close (see closeStream),
	// so its context is separate; t.ctx only cuts the opening short.
	sctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := context.AfterFunc(t.ctx, cancel)
	st, err := transportpb.NewTransportClient(l.conn).Link(metadata.AppendToOutgoingContext(sctx, instanceKey, t.instance))
	if !stop() {
		return 0, t.ctx.Err()
	}
	if err != nil {
		return 0, err
	}
	start := time.Now()
	l.unreachableErr.Store(nil)
	if l.down {
		t.log.Info("transport: link up", "addr", l.addr, "queued", l.queued.Load())
		l.down = false
	}

	// The peer sends back the frames for the node IDs this stream carried
	// frames from (Reply): they go to the Handler, in order. Recv also
	// notices a broken stream while the link is idle.
	recvDone := make(chan struct{})
	var recvErr error
	go func() {
		defer close(recvDone)
		for {
			f, err := st.Recv()
			if err != nil {
				recvErr = err
				return
			}
			l.deliver(f)
		}
	}()
	defer func() {
		cancel()
		<-recvDone
	}()
	// Cancelling the stream ends any write in progress on it (an inline
	// writer's), which detach waits for.
	broke := func() (time.Duration, error) {
		cancel()
		l.detach()
		<-recvDone
		return time.Since(start), fmt.Errorf("stream ended: %w", recvErr)
	}

	l.attach(st)
	for {
		select {
		case <-l.wake:
			if l.take() {
				if err := l.drain(st, 0); err != nil {
					return broke()
				}
			}
		case <-recvDone:
			return broke()
		case <-t.ctx.Done():
			// An inline writer finishes its write first (CloseSend must not
			// run alongside it), within closeGrace.
			giveUp := time.AfterFunc(closeGrace, cancel)
			l.detach()
			giveUp.Stop()
			return time.Since(start), l.closeStream(st, recvDone)
		}
	}
}

// closeStream ends a stream at Close: it half-closes it and waits (a
// bounded time) for the peer to end it in turn, so that the frames already
// written are received.
func (l *link) closeStream(st transportpb.Transport_LinkClient, recvDone <-chan struct{}) error {
	if err := st.CloseSend(); err == nil {
		grace := time.NewTimer(closeGrace)
		defer grace.Stop()
		select {
		case <-recvDone:
		case <-grace.C:
		}
	}
	return l.t.ctx.Err()
}

// deliver hands the frames of a message the peer sent back on the link's
// stream to the Handler, in order, dropping those that are invalid.
func (l *link) deliver(m *transportpb.Frame) {
	t := l.t
	for _, f := range unpackBatch(m) {
		from, to, msg, err := checkBatched(f, t.cfg.MaxFrameBytes)
		if err != nil {
			t.dropped.Add(1)
			t.log.Warn("transport: dropped invalid frame", "peer", l.addr, "err", err)
			continue
		}
		t.received.Add(1)
		if t.cfg.Handler != nil {
			t.cfg.Handler(from, to, msg)
		}
	}
}
