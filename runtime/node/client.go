package node

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/certs"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/transport"
	"github.com/causeway/causeway/wire/transportpb"
)

// DefaultOpTimeout bounds every client operation unless
// DialOptions.OpTimeout says otherwise.
const DefaultOpTimeout = 5 * time.Second

// ErrClosed is returned by operations on a closed Session or ClientConn.
var ErrClosed = errors.New("node: session closed")

// DialOptions tunes Dial.
type DialOptions struct {
	// OpTimeout is handed to every session: an operation that cannot
	// complete in time answers with a timeout (default DefaultOpTimeout).
	OpTimeout time.Duration
	// CertName names the certificate in the cluster's certs_dir the
	// client presents when TLS is on (default cluster.ClientCertName).
	// The client only dials: its replies come back on its own
	// connections, so it listens on no port.
	CertName string
	// Logger receives transport events and dropped frames (default:
	// discard).
	Logger *slog.Logger
}

// ClientConn is a client process's connection to a cluster in one
// datacenter: a transport that dials the nodes (and gets the replies back
// on the same streams) and any number of sessions, each a protocol
// session state machine run by the goroutines that bring it operations
// and replies, with a goroutine of its own for its timers (direct.go).
// Its methods are safe for concurrent use.
type ClientConn struct {
	cfg   *cluster.Config
	proto protocol.Protocol
	dc    string
	opts  DialOptions
	log   *slog.Logger
	book  *addressBook
	clock clock
	tr    *transport.Transport
	// tag is random (128 bits), so that session IDs are not guessed: a
	// node gives the reply route of a session ID to the first connection
	// that uses it.
	tag string
	// pingID is the sender of the connection's Pings.
	pingID protocol.NodeID

	mu       sync.Mutex
	sessions map[protocol.NodeID]*Session
	pings    map[uint64]chan struct{} // outstanding Pings by ID
	next     uint64
	closed   bool
	wg       sync.WaitGroup
}

// Dial connects to cfg's datacenter dc with default options.
func Dial(cfg *cluster.Config, dc string) (*ClientConn, error) {
	return DialWithOptions(cfg, dc, DialOptions{})
}

// DialWithOptions connects to cfg's datacenter dc: it starts the client's
// transport. Sessions are made with NewSession; nothing is sent before.
func DialWithOptions(cfg *cluster.Config, dc string, opts DialOptions) (*ClientConn, error) {
	if cfg == nil {
		return nil, errors.New("node: no cluster configuration")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	if !cfg.Topology.HasDC(dc) {
		return nil, fmt.Errorf("node: unknown datacenter %q (valid: %v)", dc, cfg.Topology.DCNames())
	}
	p, err := protocol.Lookup(cfg.Protocol)
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	if opts.OpTimeout <= 0 {
		opts.OpTimeout = DefaultOpTimeout
	}
	if opts.CertName == "" {
		opts.CertName = cluster.ClientCertName
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &ClientConn{
		cfg: cfg, proto: p, dc: dc, opts: opts, log: log,
		book:     newAddressBook(cfg, dc),
		clock:    newClock(cfg.Epoch),
		tag:      fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64()),
		sessions: map[protocol.NodeID]*Session{},
		pings:    map[uint64]chan struct{}{},
	}
	c.pingID = SessionID(dc, "p-"+c.tag)
	var clientTLS *tls.Config
	if cfg.TLS {
		if clientTLS, err = certs.ClientConfig(cfg.CertsDir, opts.CertName, ""); err != nil {
			return nil, fmt.Errorf("node: client certificate: %w", err)
		}
	}
	tcfg := transport.Config{
		Logger:   log.With("component", "transport"),
		FailFast: true, // a client answers "unavailable" rather than wait (unavailable.go)
		// A session's frame is written by the goroutine that sends it (the
		// caller of Do, or the reader delivering a reply) when its link is
		// idle: one goroutine wake-up fewer per frame. A node's event loop
		// must never wait on a peer, so nodes leave it off.
		InlineWrites: true,
		ClientTLS:    clientTLS,
		Handler:      c.receive,
	}
	if cfg.WANDelay {
		tcfg.Delay = c.book.delay
	}
	if c.tr, err = transport.New(tcfg); err != nil {
		return nil, fmt.Errorf("node: client: %w", err)
	}
	return c, nil
}

// DC returns the client's datacenter.
func (c *ClientConn) DC() string { return c.dc }

// Protocol returns the name of the cluster's protocol.
func (c *ClientConn) Protocol() string { return c.proto.Name() }

// NewSession starts a new session, with ID "DC/c<n>-<tag>" (see
// SessionID), where tag is 128 random bits drawn by Dial.
func (c *ClientConn) NewSession() (*Session, error) {
	return c.startSession(nil)
}

// ResumeSession starts a session that continues the one token was taken
// from (Session.Token), typically in another datacenter: the protocol
// holds its operations until this datacenter has every write the token
// names (they wait, and time out after the operation timeout, meanwhile).
// It fails with an error wrapping protocol.ErrMoveUnsupported when the
// cluster's protocol does not support moving sessions, or
// protocol.ErrBadToken when it refuses the token.
func (c *ClientConn) ResumeSession(token []byte) (*Session, error) {
	if token == nil {
		token = []byte{}
	}
	return c.startSession(token)
}

// startSession starts a session, resumed from token unless it is nil.
func (c *ClientConn) startSession(token []byte) (*Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	c.next++
	id := SessionID(c.dc, fmt.Sprintf("c%d-%s", c.next, c.tag))
	cfg := protocol.SessionConfig{ID: id, Topology: c.cfg.Topology, Rand: newRand(), OpTimeout: c.opts.OpTimeout}
	var sm protocol.Session
	if token == nil {
		sm = c.proto.NewSession(cfg)
	} else {
		var err error
		if sm, err = protocol.ResumeSession(c.proto, cfg, token); err != nil {
			return nil, fmt.Errorf("node: %w", err)
		}
	}
	box := newInbox()
	s := &Session{
		c:      c,
		busy:   make(chan struct{}, 1),
		sentTo: map[protocol.NodeID]bool{},
		quit:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	s.m = &machine{
		id:    id,
		sm:    sm,
		clock: c.clock,
		box:   box,
		log:   c.log,
	}
	s.m.send = func(msg protocol.Message) {
		s.sentTo[msg.To] = true
		c.sendTracked(s.m, msg)
	}
	// Registered first, so that replies to what Start sends find it; they
	// wait for c.mu, held until Start has run.
	c.sessions[id] = s
	if err := s.m.startDirect(); err != nil {
		delete(c.sessions, id)
		return nil, fmt.Errorf("node: session %s: %w", id, err)
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		err := s.m.runDirect(s.quit)
		if err != nil {
			c.log.Error("session failed", "session", id, "err", err)
		}
		s.err = err
		s.m.direct.mu.Lock() // no input is handled any more: sentTo is settled
		sentTo := s.sentTo
		s.m.direct.mu.Unlock()
		c.goodbye(id, sentTo)
		close(s.exited)
		c.mu.Lock()
		delete(c.sessions, id)
		c.mu.Unlock()
	}()
	return s, nil
}

// Ping sends a no-op request to a node of the connection's DC (the n-th,
// round robin) over the same transport as the protocol's messages and
// waits for the node's host to answer, without involving the protocol: the
// round trip a live benchmark's ceiling is made of.
func (c *ClientConn) Ping(ctx context.Context, n int) error {
	var nodes []string
	for _, id := range c.cfg.NodeIDs() {
		if protocol.NodeID(id).DC() == c.dc {
			nodes = append(nodes, id)
		}
	}
	if len(nodes) == 0 {
		return fmt.Errorf("node: no node in datacenter %s", c.dc)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.next++
	seq := c.next
	ch := make(chan struct{})
	c.pings[seq] = ch
	c.mu.Unlock()
	sendVia(c.tr, c.book, c.log, nil, protocol.Message{From: c.pingID, To: protocol.NodeID(nodes[n%len(nodes)]), Body: &transportpb.Ping{Id: seq}})
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pings, seq)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// receive is the transport's Handler: it queues a frame for its session.
func (c *ClientConn) receive(from, to string, msg proto.Message) {
	if p, ok := msg.(*transportpb.Pong); ok {
		c.mu.Lock()
		ch := c.pings[p.Id]
		delete(c.pings, p.Id)
		c.mu.Unlock()
		if ch != nil {
			close(ch)
		}
		return
	}
	c.mu.Lock()
	s := c.sessions[protocol.NodeID(to)]
	c.mu.Unlock()
	if s == nil {
		c.log.Debug("frame for no open session dropped", "from", from, "to", to, "type", typeName(msg))
		return
	}
	if r, ok := msg.(*transportpb.Refusal); ok {
		s.m.handleDirect(input{kind: inRefused, err: fmt.Errorf("node %s: %s", from, r.Reason)})
		return
	}
	s.m.handleDirect(input{kind: inMessage, from: protocol.NodeID(from), msg: msg})
}

// goodbye tells every node session id sent to that it has ended, so that
// they forget its reply route (transportpb.Goodbye). It runs on the
// session's goroutine once the machine has stopped.
func (c *ClientConn) goodbye(id protocol.NodeID, sentTo map[protocol.NodeID]bool) {
	for to := range sentTo {
		if addr, ok := c.book.addrOf(to); ok {
			_ = c.tr.Send(addr, string(id), string(to), &transportpb.Goodbye{})
		}
	}
}

// Close ends every session (abandoning their outstanding operations) and
// closes the transport. It is idempotent.
func (c *ClientConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	for _, s := range c.sessions {
		s.closeOnce.Do(func() { close(s.quit) })
	}
	c.mu.Unlock()
	c.wg.Wait()
	return c.tr.Close()
}

// Session is one client session of a ClientConn: the protocol's session
// state machine, run in this process by Do's caller and the transport's
// readers under a lock, its timers on a goroutine of its own (direct.go). It
// implements client.Conn (package client wraps it). It has at most one
// operation outstanding; Do waits for the previous one.
type Session struct {
	c         *ClientConn
	m         *machine
	busy      chan struct{} // holds a token while an operation is outstanding
	quit      chan struct{} // closed by Close
	exited    chan struct{} // closed when the goroutine has returned
	closeOnce sync.Once
	err       error // why the goroutine returned; set before exited is closed
	// sentTo are the nodes the session sent to (under the machine's
	// direct lock), told Goodbye when it ends.
	sentTo map[protocol.NodeID]bool
}

// ID returns the session's node ID.
func (s *Session) ID() protocol.NodeID { return s.m.id }

// Do runs one operation and returns its reply. It first waits for any
// operation still outstanding (one abandoned by an earlier Do). When ctx
// ends first Do returns an error wrapping ctx.Err(); if the operation had
// been submitted it keeps running, and its outcome is unknown.
//
// Do does not wait out ctx for a node that cannot be reached (nothing
// listens at its address): a read sent to one, or a write none of whose
// messages left this process, fails at once (within about a second) with
// an error wrapping ErrUnavailable; a write part of which was sent waits
// for the protocol's answer, since its outcome is unknown. An operation
// one of whose messages cannot be sent at all (it does not encode) fails
// with ErrNotSent. Either failure ends the session: the protocol still
// holds the operation and would send it again, so that a write answered
// unavailable could take effect later. Later operations fail with the
// same error; start a new session.
func (s *Session) Do(ctx context.Context, req protocol.Request) (protocol.Reply, error) {
	if err := CheckLimits(req); err != nil {
		return protocol.Reply{}, fmt.Errorf("node: session %s: %v: %w", s.m.id, req.Op, err)
	}
	select {
	case s.busy <- struct{}{}:
	case <-ctx.Done():
		return protocol.Reply{}, fmt.Errorf("node: session %s: %v not started: %w", s.m.id, req.Op, ctx.Err())
	case <-s.exited:
		return protocol.Reply{}, s.endErr()
	}
	type result struct {
		rep protocol.Reply
		err error
	}
	replies := make(chan result, 1)
	in := input{kind: inSubmit, req: req, reply: func(rep protocol.Reply, err error) {
		<-s.busy // the session may take its next operation
		replies <- result{rep, err}
	}}
	if !s.m.handleDirect(in) {
		<-s.busy
		return protocol.Reply{}, s.endErr()
	}
	select {
	case r := <-replies:
		return r.rep, r.err
	case <-ctx.Done():
		outcome := "" // a read that got no answer has no outcome to speak of
		if req.Op == protocol.OpPut || req.Op == protocol.OpWriteTxn {
			outcome = ", outcome unknown"
		}
		return protocol.Reply{}, fmt.Errorf("node: session %s: %v abandoned%s: %w", s.m.id, req.Op, outcome, ctx.Err())
	case <-s.exited:
		select {
		case r := <-replies: // the reply came just before the end
			return r.rep, r.err
		default:
			return protocol.Reply{}, s.endErr()
		}
	}
}

// Token returns the session's token for ClientConn.ResumeSession (in this
// or another process and datacenter): an opaque encoding of its causal
// context (protocol.Mover). It first waits for any operation still
// outstanding. It fails with an error wrapping
// protocol.ErrMoveUnsupported when the protocol does not support moving
// sessions. The session may go on being used.
func (s *Session) Token(ctx context.Context) ([]byte, error) {
	if _, ok := s.c.proto.(protocol.Resumer); !ok {
		return protocol.SessionToken(s.c.proto, nil)
	}
	select {
	case s.busy <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("node: session %s: token: %w", s.m.id, ctx.Err())
	case <-s.exited:
		return nil, s.endErr()
	}
	defer func() { <-s.busy }()
	type result struct {
		token []byte
		err   error
	}
	done := make(chan result, 1)
	sm := s.m.sm.(protocol.Session)
	if !s.m.box.push(input{kind: inCall, call: func() {
		token, err := protocol.SessionToken(s.c.proto, sm)
		done <- result{token, err}
	}}) {
		return nil, s.endErr()
	}
	select {
	case r := <-done:
		return r.token, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("node: session %s: token: %w", s.m.id, ctx.Err())
	case <-s.exited:
		select {
		case r := <-done:
			return r.token, r.err
		default:
			return nil, s.endErr()
		}
	}
}

// endErr says why the session's goroutine is gone (or going).
func (s *Session) endErr() error {
	if err := s.m.direct.failure(); err != nil { // its goroutine may not have returned yet
		return fmt.Errorf("node: session %s failed: %w", s.m.id, err)
	}
	select {
	case <-s.exited:
		if s.err != nil {
			return fmt.Errorf("node: session %s failed: %w", s.m.id, s.err)
		}
	default:
	}
	return ErrClosed
}

// Close ends the session: its goroutine returns and an outstanding
// operation is abandoned. It always returns nil.
func (s *Session) Close() error {
	s.closeOnce.Do(func() { close(s.quit) })
	<-s.exited
	return nil
}
