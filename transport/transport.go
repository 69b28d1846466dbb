// Package transport is Causeway's wire transport between processes: the
// node-to-node and client-to-node links of a multi-process deployment, over
// gRPC (service causeway.transport.v1.Transport, generated into
// wire/transportpb).
//
// A process runs one Transport. It listens on Config.Self and serves the
// Link RPC, and it keeps one long-lived outgoing Link stream per destination
// address, created on the first Send to that address. Every message travels
// as a transportpb.Frame whose payload is the message encoded by wire.Encode
// (its kind, a varint, then its protobuf encoding: docs/formats/wire.md),
// tagged with the sending and receiving node IDs.
//
// # Ordering
//
// Frames sent to one address go out in Send order on one stream and the
// receiver hands them to Config.Handler in that order: each link is FIFO.
// Links to different addresses are independent.
//
// # Batching
//
// A link's writer takes every frame waiting in its queue, up to 256 frames
// and 256 KiB, and writes them as one gRPC message: the first frame
// carries the others in its batch field (batch.go). Under load this saves
// a gRPC message, two goroutine wake-ups and a socket write per frame; an
// idle link writes each frame alone, as soon as it is queued. The
// receiver checks the frames of a message one by one, as if each had come
// alone (see Validation); a frame in a batch that has a batch of its own
// is dropped. Replies (below) are batched in the same way.
//
// # Inline writes
//
// Only one goroutine at a time writes a link's queue on its stream: the
// holder of the link's write token (queue.go), which writes until the
// queue is empty. It is the link's goroutine, woken when frames are
// queued, unless Config.InlineWrites is set: then a sender that finds the
// token free and the stream open takes it and writes the queue itself,
// its own frame included, from its own goroutine (at most a few batches,
// then it hands the rest to the link's goroutine), saving the wake-up of
// the link's goroutine. Frames sent meanwhile queue behind it and go out
// in its next batch, so the link stays FIFO and busy links still batch.
// The delay line never writes: a delayed frame that comes due wakes the
// link's goroutine. A stream that breaks is detached only once its
// writer is done, and a batch whose write failed goes back to the head of
// the queue for the next stream. An inline write can wait on gRPC's flow
// control (a peer that stopped reading megabytes ago), so Send can then
// block: a client process sets InlineWrites, a node does not.
//
// # Flow control
//
// Every stream and connection has a fixed HTTP/2 window (4 MiB and 16
// MiB): gRPC's default, a window grown by estimating the bandwidth-delay
// product, sends a PING and its answer every round trip of a busy link.
// Windows are settings each end announces to the other, so processes with
// other windows still talk to these.
//
// # Back-pressure
//
// Send never blocks (unless Config.InlineWrites, see above). Each link has
// a bounded queue (Config.QueueLimit frames, counting the frames being
// written); when it is full Send returns ErrQueueFull and the caller
// decides what to do (protocols retry).
//
// # Failures and reconnection
//
// When a link's stream breaks or cannot be opened, the link reopens it with
// exponential backoff (50ms doubling to 2s, back to 50ms once a stream has
// stayed up for a while); it retries for as long as the transport is open.
// Frames queued while the link is down are sent, in order, once it is up
// again. Delivery is not reliable: frames already handed to a stream when it
// breaks (in gRPC's or the kernel's buffers, or on the wire) may be lost.
// Only a frame that gRPC refused to write is written again, on the next
// stream, so frames are not duplicated by the transport. Causeway's
// protocols tolerate loss by retrying; they must not rely on the transport
// for reliability, only for the FIFO order of what arrives.
//
// Links are keyed by the destination address as given to Send:
// "localhost:7000" and "127.0.0.1:7000" are two links, with no order
// between them.
//
// # Validation
//
// The receiver checks every frame: a frame that is not a well-formed Frame,
// has an empty or over-long from or to, a payload over
// Config.MaxFrameBytes, or a payload wire.Decode rejects is logged at Warn
// level and dropped; the stream carries on with the next frame. Only a
// frame too large for gRPC itself (more than MaxFrameBytes plus 1 MiB)
// ends its stream, after which the sender reconnects.
//
// # WAN emulation
//
// Config.Delay and SetDelay add a one-way delay per destination: a frame
// sent at time t with delay d is held until t+d before it is written. The
// delay is a lower bound and never reorders a link: a frame also waits for
// the frames queued before it. Delayed frames wait in one deadline queue
// per transport (the delay line, delayline.go), served by one goroutine
// that sleeps precisely (within tens of microseconds on Linux) until the
// next frame is due; a frame with no delay skips it and costs nothing
// extra. BenchmarkDelayAccuracy measures the delay added against the
// delay configured.
//
// # Partitions
//
// Cut cuts the links to some addresses, one way, until Heal or HealAll: a
// frame sent on a cut link is dropped, as a real partition would lose it.
// Send still returns nil (the sender cannot tell a cut link from a slow
// one), and frames already queued on the link, waiting out their delay or
// a reconnection, are dropped when they come due while it is cut; frames
// already written to the stream are not recalled. Every frame dropped this
// way is counted in Stats.Cut. Only this transport's sending side is cut:
// the peer still reaches this transport unless it cuts its own link too.
// Healing a link lets the frames sent from then on through; what was
// dropped stays lost, and the protocols' retransmissions fill the gap.
//
// # Failing fast
//
// A node keeps frames for a peer it cannot reach: the peer is restarting,
// and the protocols' retransmissions fill the gap anyway. A client process
// wants the opposite (an etcd or Cassandra client answers "unavailable" at
// once when its node is down, not after its whole timeout): with
// Config.FailFast, when a link cannot open a stream (nothing listens at
// the address, or connecting did not succeed within about a second),
// every frame it holds is dropped unwritten, counted in Stats.Unsent and
// reported to its SendTracked callback, and Send refuses frames for that
// address with an error wrapping ErrUnreachable until a stream opens again
// (the link keeps trying, with its backoff). A frame reported unsent was
// never written to any stream, so the peer never saw it: runtime/node uses
// that to tell a write that did not take effect from one whose outcome is
// unknown. A cut link (Cut) is not unreachable: it loses frames silently,
// as a partition does.
//
// # Replies
//
// A process that only dials (Config.Self empty, as a client process) is
// still reachable: the serving end of a stream sends frames back on it.
// When Config.Routable accepts the sender of a frame that arrives on an
// incoming stream, the stream claims the sender's reply route, and Reply
// queues frames for that node ID on the stream (FIFO, after the delay
// Config.Delay gives for the node ID). The first stream to carry a frame
// from an ID owns its route until the stream ends or the ID sends a
// transportpb.Goodbye; frames from that ID on any other stream are
// dropped meanwhile, so one client cannot receive what is meant for a
// session another client holds; only a stream from the same dialing
// transport (identified by a random instance ID it sends with each stream,
// never logged) takes the route over, since that is the client's link
// reconnecting. A dead connection the peer did not close is noticed by
// gRPC keepalive within about 15 seconds. When the stream ends, its routes are
// forgotten and the frames still queued on it dropped: Reply then answers
// ErrNoRoute at once. Nothing here dials an address a peer names. At most
// Config.MaxRoutes routes are open; a frame from one more sender is
// answered with a transportpb.Refusal naming the limit.
//
// # Security
//
// With Config.TLS and Config.ClientTLS set, both directions use TLS; set
// ClientAuth to tls.RequireAndVerifyClientCert in Config.TLS for mutual TLS,
// so that only processes holding a certificate from the deployment's CA can
// send frames. Config.Sender then binds the sender named in each frame to
// the certificate of the stream it came on (a node accepts frames from a
// node ID only from that node's certificate, so a client's certificate
// cannot forge them). With both nil the transport is insecure (tests,
// loopback).
package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/wire"
	"github.com/causeway/causeway/wire/transportpb"
)

// DefaultQueueLimit is the default bound, in frames, of each link's queue.
const DefaultQueueLimit = 4096

// MaxIDBytes bounds the from and to node IDs of a frame.
const MaxIDBytes = 1024

const (
	// frameSlack is what gRPC accepts beyond MaxFrameBytes, so that an
	// oversized payload reaches the validation in this package (and is
	// dropped) instead of ending the stream inside gRPC.
	frameSlack = 1 << 20
	// DefaultRetireAfter is Config.RetireAfter's default.
	DefaultRetireAfter = time.Minute
	// minBackoff and maxBackoff bound the wait before reopening a link.
	minBackoff = 50 * time.Millisecond
	maxBackoff = 2 * time.Second
	// stableAfter is how long a stream must stay up for the backoff to
	// start again from minBackoff when it breaks.
	stableAfter = 2 * time.Second
	// closeGrace bounds how long Close waits for peers to acknowledge the
	// end of the streams before cutting them.
	closeGrace = 2 * time.Second
)

// streamWindow and connWindow are the HTTP/2 flow-control windows of
// every stream and connection, fixed: gRPC's default window starts at 64
// KiB and grows by estimating the bandwidth-delay product, for which the
// receiver of data sends a PING each round trip, answered by the sender:
// on a link carrying small frames steadily, that is two more frames, and
// often two more socket writes, for every message. A stream carries a
// link's frames (a batch is at most maxBatchBytes plus one frame).
const (
	streamWindow = 4 << 20
	connWindow   = 16 << 20
)

// ErrQueueFull is returned by Send when the link's queue holds
// Config.QueueLimit frames already.
var ErrQueueFull = errors.New("transport: link queue full")

// ErrClosed is returned by Send after Close.
var ErrClosed = errors.New("transport: closed")

// ErrUnreachable is wrapped by the errors of Send on a Config.FailFast
// transport whose link to the address could not open a stream: nothing
// listens there, or the connection attempt failed.
var ErrUnreachable = errors.New("transport: peer unreachable")

// Config configures a Transport.
type Config struct {
	// Self is the address to listen on, for example "10.0.0.1:7000" or
	// "127.0.0.1:0" (any free port; Addr reports the one chosen). Empty
	// makes a transport that only dials, as a client process's: it gets
	// frames back on its own streams (see "Replies").
	Self string
	// Logger receives link events and dropped frames (default: discard).
	Logger *slog.Logger
	// TLS configures the server side; nil serves without TLS. Set
	// ClientAuth to tls.RequireAndVerifyClientCert for mutual TLS.
	TLS *tls.Config
	// ClientTLS configures the links this transport dials; nil dials
	// without TLS. An empty ServerName is taken from the destination
	// address.
	ClientTLS *tls.Config
	// QueueLimit bounds each link's queue, in frames (default
	// DefaultQueueLimit).
	QueueLimit int
	// RetireAfter is how long a link may stay unable to open a stream
	// before it is closed, its queued frames dropped (counted in
	// Stats.Dropped) and its goroutine ended (default DefaultRetireAfter);
	// the next Send to the address opens a new one. It keeps a process
	// from retrying forever towards a peer that is gone.
	RetireAfter time.Duration
	// MaxFrameBytes bounds a frame's payload (default and maximum
	// wire.MaxFrameBytes). Send refuses larger messages and the receiver
	// drops them.
	MaxFrameBytes int
	// Handler is called for every valid frame received, with the frame's
	// node IDs and decoded message. Frames of one link are handed over in
	// order, one at a time; different links call it concurrently, so it
	// must be safe for concurrent use. A slow Handler slows down its link
	// (and, through gRPC flow control, the sender). Nil discards frames.
	Handler func(from, to string, msg proto.Message)
	// Accept, if set, says whether frames for node ID to belong here. A
	// frame it refuses ends its stream with ErrWrongNode's status: the
	// sender reached another process than the one it meant at that
	// address (a host name that still resolved to the old address of a
	// restarted container, now another node's), and its link, told so,
	// drops its connection and dials the address anew. Without Accept the
	// Handler gets every frame.
	Accept func(to string) bool
	// Delay, if set, gives the one-way delay to add to frames sent to
	// toAddr (WAN emulation); SetDelay overrides it per address. It is
	// called on every Send and must be safe for concurrent use.
	Delay func(toAddr string) time.Duration
	// FailFast makes links give up on frames instead of keeping them for
	// a peer that cannot be reached, as a client process wants (see
	// "Failing fast" in the package doc).
	FailFast bool
	// InlineWrites lets Send and Reply write an idle link's frames from
	// the caller's goroutine instead of waking the link's goroutine to
	// write them (see "Inline writes" in the package doc): one goroutine
	// hand-off fewer per message. The caller may then wait while gRPC's
	// flow control holds the stream (a peer that has stopped reading
	// several megabytes ago), so Send can block: it suits a process whose
	// callers may wait, as a client's sessions, not a node's event loop.
	InlineWrites bool
	// Routable, if set, says which senders of incoming frames get a reply
	// route (see "Replies" in the package doc): a node sets it to accept
	// the client sessions, not the other nodes, which it reaches by
	// address. Nil gives no sender a route.
	Routable func(from string) bool
	// Sender, if set, says whether a frame from node ID from may arrive on
	// an incoming stream whose dialing peer presented a verified
	// certificate with common name peer (empty without TLS, or without a
	// client certificate). A frame it refuses is dropped (Stats.Dropped)
	// and logged. A node uses it so that only the holder of a node's
	// certificate can send as that node (see "Security").
	Sender func(from, peer string) bool
	// MaxRoutes bounds the reply routes, that is the client sessions
	// connected at once (default DefaultMaxRoutes). A frame from one more
	// is not handed to the Handler: the transport answers it with a
	// transportpb.Refusal naming the limit.
	MaxRoutes int
}

// Stats counts what a Transport did since New.
type Stats struct {
	// Sent counts frames written to a stream, from the moment the write
	// starts (they may still be lost if the stream breaks after it).
	Sent uint64
	// Messages counts the gRPC messages that carried the Sent frames: a
	// message carries the frames that were waiting on its link, up to a
	// bound (batch.go).
	Messages uint64
	// Received counts valid frames handed to Config.Handler.
	Received uint64
	// Dropped counts frames discarded: invalid frames received, frames
	// queued on a link that was retired, and frames still queued when
	// Close was called.
	Dropped uint64
	// Links is the number of open outgoing links.
	Links int
	// Reconnects counts attempts to reopen a link's stream after it broke
	// or could not be opened.
	Reconnects uint64
	// Cut counts frames discarded because the link to their destination
	// was cut (see Cut): at Send, or when they came due on a link cut
	// after they were queued.
	Cut uint64
	// Unsent counts frames a FailFast transport dropped unwritten because
	// their link could not open a stream (not those Send refused).
	Unsent uint64
	// Routes is the number of open reply routes (connected client
	// sessions, see Reply).
	Routes int
}

// Transport is one process's endpoint: a gRPC server receiving frames and
// one outgoing link per destination address. Its methods are safe for
// concurrent use.
type Transport struct {
	cfg      Config
	log      *slog.Logger
	lis      net.Listener
	srv      *grpc.Server
	dialOpts []grpc.DialOption

	ctx    context.Context // cancelled by Close: links stop
	cancel context.CancelFunc

	// line holds delayed frames until they are due (delayline.go).
	line *delayLine

	mu     sync.RWMutex
	links  map[string]*link
	closed bool

	// rt holds the reply routes (back.go).
	rt routeTable

	// ctlMu guards the run-time link controls: delays (SetDelay) and cuts
	// (Cut, Heal).
	ctlMu  sync.RWMutex
	delays map[string]time.Duration
	cuts   map[string]bool

	closing   chan struct{} // closed by Close: Link handlers return
	linkWG    sync.WaitGroup
	recvWG    sync.WaitGroup
	serveDone chan struct{}
	closeOnce sync.Once

	sent, messages, received, dropped, reconnects, cut, unsent atomic.Uint64

	// instance is this transport's random ID, sent with every stream it
	// opens (instanceKey): a stream that reconnects takes over the reply
	// routes of this transport's earlier stream (back.go).
	instance string

	// onLinkDown, if set (by tests, before the first Send), is called each
	// time a link's stream fails to open or breaks.
	onLinkDown func(addr string, err error)
}

// New listens on cfg.Self and starts serving.
func New(cfg Config) (*Transport, error) {
	if cfg.QueueLimit <= 0 {
		cfg.QueueLimit = DefaultQueueLimit
	}
	if cfg.RetireAfter <= 0 {
		cfg.RetireAfter = DefaultRetireAfter
	}
	if cfg.MaxRoutes <= 0 {
		cfg.MaxRoutes = DefaultMaxRoutes
	}
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = wire.MaxFrameBytes
	}
	if cfg.MaxFrameBytes > wire.MaxFrameBytes {
		return nil, fmt.Errorf("transport: MaxFrameBytes %d is over wire.MaxFrameBytes (%d)", cfg.MaxFrameBytes, wire.MaxFrameBytes)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var lis net.Listener
	if cfg.Self != "" {
		var err error
		if lis, err = net.Listen("tcp", cfg.Self); err != nil {
			return nil, fmt.Errorf("transport: listen on %s: %w", cfg.Self, err)
		}
	}
	t := &Transport{
		cfg:       cfg,
		log:       log,
		lis:       lis,
		links:     map[string]*link{},
		delays:    map[string]time.Duration{},
		cuts:      map[string]bool{},
		closing:   make(chan struct{}),
		serveDone: make(chan struct{}),
		line:      newDelayLine(),
		rt:        routeTable{routes: map[string]*backLink{}},
		instance:  newInstanceID(),
	}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	t.linkWG.Add(1)
	go func() {
		defer t.linkWG.Done()
		t.line.run(t.ctx.Done())
	}()

	serverCreds := insecure.NewCredentials()
	if cfg.TLS != nil {
		serverCreds = credentials.NewTLS(cfg.TLS)
	}
	t.srv = grpc.NewServer(
		grpc.Creds(serverCreds),
		grpc.ForceServerCodecV2(rawCodec{}),
		grpc.MaxRecvMsgSize(cfg.MaxFrameBytes+frameSlack),
		grpc.WaitForHandlers(true),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		// A connection that died silently ends its streams, and so frees
		// their reply routes, within about 15 seconds.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 10 * time.Second, Timeout: 5 * time.Second}),
		grpc.StaticStreamWindowSize(streamWindow),
		grpc.StaticConnWindowSize(connWindow),
	)
	transportpb.RegisterTransportServer(t.srv, &linkServer{t: t})

	clientCreds := insecure.NewCredentials()
	if cfg.ClientTLS != nil {
		clientCreds = credentials.NewTLS(cfg.ClientTLS)
	}
	connectTimeout := 5 * time.Second
	if cfg.FailFast {
		connectTimeout = failFastConnectTimeout
	}
	t.dialOpts = []grpc.DialOption{
		grpc.WithTransportCredentials(clientCreds),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoffConfig(),
			MinConnectTimeout: connectTimeout,
		}),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second, PermitWithoutStream: true}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.MaxFrameBytes + frameSlack)),
		grpc.WithStaticStreamWindowSize(streamWindow),
		grpc.WithStaticConnWindowSize(connWindow),
	}
	if lis == nil {
		close(t.serveDone)
		return t, nil
	}

	go func() {
		defer close(t.serveDone)
		if err := t.srv.Serve(lis); err != nil {
			t.log.Error("transport: server stopped", "addr", lis.Addr().String(), "err", err)
		}
	}()
	return t, nil
}

// Addr returns the address the transport listens on (with the actual port
// when Config.Self asked for port 0).
// It is empty for a transport that does not listen (Config.Self empty).
func (t *Transport) Addr() string {
	if t.lis == nil {
		return ""
	}
	return t.lis.Addr().String()
}

// Send encodes msg with wire.Encode and queues it on the link to toAddr,
// tagged with the sending node from and the receiving node to. It never
// blocks (with Config.InlineWrites it may write the link's queue itself,
// and wait on gRPC's flow control meanwhile): it returns ErrQueueFull when the link's queue is full, ErrClosed
// after Close, and an error for an empty, over-long (MaxIDBytes) or
// non-UTF-8 node ID or a message that does not encode within
// Config.MaxFrameBytes (the message's own error, e.g. a string field that
// is not UTF-8). A FailFast transport also refuses, with an error wrapping
// ErrUnreachable, a frame for an address whose link has failed to open a
// stream since it last had one. A nil error means the frame was queued (or dropped on a cut link, see Cut), not that
// it will arrive.
func (t *Transport) Send(toAddr, from, to string, msg proto.Message) error {
	return t.SendTracked(toAddr, from, to, msg, nil)
}

// SendTracked is Send, and on a FailFast transport calls unsent (if not
// nil) with an error wrapping ErrUnreachable should the frame be dropped
// unwritten because its link could not open a stream; it is called at
// most once, on a link goroutine, and never for a frame Send refused
// (its error says so), dropped on a cut link or at Close.
func (t *Transport) SendTracked(toAddr, from, to string, msg proto.Message, unsent func(error)) error {
	frame, err := t.frame(from, to, msg)
	if err != nil {
		return err
	}
	if t.IsCut(toAddr) {
		t.mu.RLock()
		closed := t.closed
		t.mu.RUnlock()
		if closed {
			return ErrClosed
		}
		t.cut.Add(1)
		return nil
	}
	f := outFrame{
		frame:  frame,
		unsent: unsent,
	}
	d := t.delayFor(toAddr)

	t.mu.RLock()
	if t.closed {
		t.mu.RUnlock()
		return ErrClosed
	}
	l := t.links[toAddr]
	if l != nil {
		if err := l.unreachable(); err != nil {
			t.mu.RUnlock()
			return err
		}
		out, err := l.enqueue(f, d)
		t.mu.RUnlock()
		if out != nil {
			// This goroutine holds the link's write token (InlineWrites):
			// it writes, with no lock held. A failed write is the link
			// goroutine's to notice.
			_ = l.drain(out, maxInlineBatches)
		}
		return err
	}
	t.mu.RUnlock()

	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return ErrClosed
	}
	if l = t.links[toAddr]; l == nil {
		l, err = t.newLink(toAddr)
		if err != nil {
			t.mu.Unlock()
			return err
		}
		t.links[toAddr] = l
	}
	out, err := l.enqueue(f, d)
	t.mu.Unlock()
	if out != nil { // another Send made the link meanwhile, and it is up
		_ = l.drain(out, maxInlineBatches)
	}
	return err
}

// SetDelay sets the one-way delay added to frames sent to toAddr from now
// on, overriding Config.Delay for that address; a negative d removes the
// override. Frames already queued keep the delay they were sent with.
func (t *Transport) SetDelay(toAddr string, d time.Duration) {
	t.ctlMu.Lock()
	defer t.ctlMu.Unlock()
	if d < 0 {
		delete(t.delays, toAddr)
		return
	}
	t.delays[toAddr] = d
}

// delayFor returns the delay of a frame sent now to addr.
func (t *Transport) delayFor(addr string) time.Duration {
	t.ctlMu.RLock()
	d, ok := t.delays[addr]
	t.ctlMu.RUnlock()
	if !ok && t.cfg.Delay != nil {
		d = t.cfg.Delay(addr)
	}
	return max(d, 0)
}

// Stats returns the counters so far.
func (t *Transport) Stats() Stats {
	return Stats{
		Sent:       t.sent.Load(),
		Messages:   t.messages.Load(),
		Received:   t.received.Load(),
		Dropped:    t.dropped.Load(),
		Reconnects: t.reconnects.Load(),
		Cut:        t.cut.Load(),
		Unsent:     t.unsent.Load(),
		Links:      t.linkCount(),
		Routes:     t.routeCount(),
	}
}

// linkCount is the number of open outgoing links.
func (t *Transport) linkCount() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.links)
}

// Close shuts the transport down: it stops accepting connections, ends the
// incoming streams, half-closes every outgoing stream so that the frames
// already written reach the peer (waiting at most a couple of seconds for
// it), drops the frames still queued, and waits for every goroutine it
// started, including Handler calls in progress. After Close returns the
// Handler is not called again. Close is idempotent.
func (t *Transport) Close() error {
	t.closeOnce.Do(func() {
		t.mu.Lock()
		t.closed = true
		t.mu.Unlock()

		// Incoming side: Link handlers return, then the server drains its
		// connections (forcibly if peers do not answer in time).
		close(t.closing)
		stopped := make(chan struct{})
		go func() {
			if t.srv != nil {
				t.srv.GracefulStop()
			}
			close(stopped)
		}()
		grace := time.NewTimer(closeGrace)
		select {
		case <-stopped:
		case <-grace.C:
			t.srv.Stop()
			<-stopped
		}
		grace.Stop()
		<-t.serveDone
		t.recvWG.Wait()

		// Outgoing side. No Send runs now (t.closed), so nothing wakes the
		// delay line once its waiter is closed.
		t.cancel()
		t.line.wake()
		t.linkWG.Wait()
		t.line.w.close()
	})
	return nil
}

// checkIDs validates the node IDs of a frame.
func checkIDs(from, to string) error {
	switch {
	case from == "":
		return errors.New("transport: empty from")
	case to == "":
		return errors.New("transport: empty to")
	case len(from) > MaxIDBytes:
		return fmt.Errorf("transport: from is %d bytes, over the %d-byte limit", len(from), MaxIDBytes)
	case len(to) > MaxIDBytes:
		return fmt.Errorf("transport: to is %d bytes, over the %d-byte limit", len(to), MaxIDBytes)
	case !utf8.ValidString(from) || !utf8.ValidString(to):
		return errors.New("transport: node ID is not valid UTF-8")
	}
	return nil
}
