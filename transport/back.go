package transport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/wire"
	"github.com/causeway/causeway/wire/transportpb"
)

// ErrNoRoute is returned by Reply when no open incoming stream has carried
// a frame from the destination: its client is not connected (or never
// was), so there is nowhere to send the frame and it is dropped at once.
var ErrNoRoute = errors.New("transport: no open connection from that node")

// DefaultMaxRoutes is Config.MaxRoutes's default.
const DefaultMaxRoutes = 10000

// instanceKey is the gRPC metadata key under which a transport sends its
// random instance ID with each stream it opens.
const instanceKey = "causeway-instance"

// newInstanceID draws a transport's instance ID: 128 random bits, never
// logged, so that only the transport itself can present it.
func newInstanceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// routeTable maps the node IDs that incoming streams carried frames from
// (those Config.Routable accepts) to the stream's back link, on which
// Reply sends frames to them. The first stream to carry a frame from an
// ID owns its route until the stream ends or the ID says Goodbye; another
// stream's frames from that ID are dropped meanwhile, so that a client
// cannot take over a session another client holds. The one exception is
// a stream from the same transport (the same instance ID): the client's
// link reconnected, and the new stream takes the route over, without
// waiting for the server to notice that the old one is dead.
type routeTable struct {
	mu     sync.RWMutex
	routes map[string]*backLink
}

// backLink is the serving side's way back to a client on one incoming
// stream: a link (queue, delay line) with no connection of its own, whose
// frames a writer goroutine sends on the stream.
type backLink struct {
	*link
	peer string
	// instance is the dialing transport's instance ID ("" if it sent none).
	instance string
	// cert is the common name of the dialing peer's verified certificate
	// ("" without one).
	cert string
	// ids are the routes this stream owns, and closed is set once the
	// stream has ended (both guarded by the table's mu).
	ids    map[string]struct{}
	closed bool
}

// claimResult is what claim decided for a frame's sender.
type claimResult uint8

const (
	claimOK    claimResult = iota // the stream owns the route
	claimTaken                    // another stream owns it, or this one ended
	claimFull                     // no route left (Config.MaxRoutes)
)

// newBackLink makes the back link of an incoming stream from peer.
func (t *Transport) newBackLink(peer, instance string) *backLink {
	return &backLink{
		link:     newLinkState(t, "back:"+peer, t.cfg.QueueLimit),
		peer:     peer,
		instance: instance,
		ids:      map[string]struct{}{},
	}
}

// claim gives b the route to id unless another stream holds it or the
// table is full.
func (t *Transport) claim(id string, b *backLink) claimResult {
	t.rt.mu.Lock()
	defer t.rt.mu.Unlock()
	if b.closed {
		return claimTaken
	}
	switch r := t.rt.routes[id]; {
	case r == b:
		return claimOK
	case r != nil && (b.instance == "" || r.instance != b.instance):
		return claimTaken
	case r != nil: // the same transport, reconnected
		delete(r.ids, id)
		t.rt.routes[id] = b
		b.ids[id] = struct{}{}
		return claimOK
	case len(t.rt.routes) >= t.cfg.MaxRoutes:
		return claimFull
	}
	t.rt.routes[id] = b
	b.ids[id] = struct{}{}
	return claimOK
}

// release forgets id's route if b owns it (a Goodbye).
func (t *Transport) release(id string, b *backLink) {
	t.rt.mu.Lock()
	defer t.rt.mu.Unlock()
	if t.rt.routes[id] == b {
		delete(t.rt.routes, id)
		delete(b.ids, id)
	}
}

// endBackLink forgets every route b owns and drops what it still holds:
// the stream has ended, so nothing queued for it can be sent.
func (t *Transport) endBackLink(b *backLink) {
	t.rt.mu.Lock()
	b.closed = true
	for id := range b.ids {
		delete(t.rt.routes, id)
	}
	n := len(b.ids)
	clear(b.ids)
	t.rt.mu.Unlock()
	if q := b.queued.Swap(0); q > 0 {
		t.dropped.Add(uint64(q))
		t.log.Debug("transport: dropped replies for a connection that ended", "peer", b.peer, "frames", q, "routes", n)
	}
}

// routeCount is the number of open reply routes.
func (t *Transport) routeCount() int {
	t.rt.mu.RLock()
	defer t.rt.mu.RUnlock()
	return len(t.rt.routes)
}

// HasRoute reports whether Reply has a route to node ID to.
func (t *Transport) HasRoute(to string) bool {
	t.rt.mu.RLock()
	defer t.rt.mu.RUnlock()
	return t.rt.routes[to] != nil
}

// Reply encodes msg and queues it on the incoming stream that owns the
// route to node ID to (see "Replies" in the package documentation),
// after the delay Config.Delay gives for to. It never blocks (unless
// Config.InlineWrites, as Send) and never dials: with no route it returns
// ErrNoRoute and the frame is dropped. It returns ErrQueueFull, ErrClosed
// and invalid-message errors as Send does. Frames replied to one ID
// arrive in order.
func (t *Transport) Reply(from, to string, msg proto.Message) error {
	f, err := t.frame(from, to, msg)
	if err != nil {
		return err
	}
	t.mu.RLock()
	closed := t.closed
	t.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	t.rt.mu.RLock()
	b := t.rt.routes[to]
	t.rt.mu.RUnlock()
	if b == nil {
		return ErrNoRoute
	}
	return b.send(outFrame{frame: f}, t.delayFor(to))
}

// refuse queues a Refusal to from, sent as to, on b itself: the frame
// that b carried from from was not taken.
func (t *Transport) refuse(b *backLink, from, to, reason string) {
	payload, err := wire.Encode(&transportpb.Refusal{Reason: reason})
	if err != nil {
		return
	}
	_ = b.send(outFrame{frame: &transportpb.Frame{Payload: payload, From: to, To: from}}, 0)
}

// write sends b's frames on out, in batches (batch.go, queue.go), until
// ctx ends or a send fails; then it detaches out, so that nothing writes
// on it after write returns (gRPC forbids sending once the Link handler
// has returned).
func (b *backLink) write(ctx context.Context, out frameSender) {
	b.attach(out)
	defer b.detach()
	for {
		select {
		case <-b.wake:
			if b.take() {
				if err := b.drain(out, 0); err != nil {
					b.t.log.Debug("transport: reply stream broke", "peer", b.peer, "err", err)
					return
				}
			}
		case <-ctx.Done():
			return
		}
	}
}

// frame validates and encodes one frame.
func (t *Transport) frame(from, to string, msg proto.Message) (*transportpb.Frame, error) {
	if err := checkIDs(from, to); err != nil {
		return nil, err
	}
	payload, err := wire.Encode(msg)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	if len(payload) > t.cfg.MaxFrameBytes {
		return nil, fmt.Errorf("transport: encoded %T is %d bytes, over the %d-byte limit", msg, len(payload), t.cfg.MaxFrameBytes)
	}
	return &transportpb.Frame{Payload: payload, From: from, To: to}, nil
}
