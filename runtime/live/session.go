package live

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/causeway/causeway/protocol"
)

// ErrBusy is returned by SubmitAsync while the session has an operation
// outstanding.
var ErrBusy = errors.New("live: session has an operation outstanding")

// ErrClosed is returned by operations on a closed session.
var ErrClosed = errors.New("live: session closed")

// Session is one client session (protocol.Session) running on its own
// goroutine. It has at most one operation outstanding: Do waits for the
// previous one, SubmitAsync refuses to start a second. Its methods are safe
// for concurrent use.
type Session struct {
	rt        *Runtime
	n         *node
	closeOnce sync.Once
}

// NewSession creates the client session called name in datacenter dc
// (node ID "dc/name") and starts it.
func (rt *Runtime) NewSession(dc, name string) (*Session, error) {
	return rt.startSession(dc, name, nil)
}

// ResumeSession creates the client session called name in datacenter dc
// as the continuation of the session token was taken from
// (Session.Token): the protocol holds its operations until dc has every
// write the token names. It fails with an error wrapping
// protocol.ErrMoveUnsupported or protocol.ErrBadToken.
func (rt *Runtime) ResumeSession(dc, name string, token []byte) (*Session, error) {
	if token == nil {
		token = []byte{}
	}
	return rt.startSession(dc, name, token)
}

// startSession creates and starts a session, resumed from token unless
// it is nil.
func (rt *Runtime) startSession(dc, name string, token []byte) (*Session, error) {
	if !rt.topo.HasDC(dc) {
		return nil, fmt.Errorf("live: unknown datacenter %q (valid: %v)", dc, rt.topo.DCNames())
	}
	id := protocol.MakeNodeID(dc, name)
	n := rt.newNode("session", id)
	n.session = true
	n.busy = make(chan struct{}, 1)
	cfg := protocol.SessionConfig{ID: id, Topology: rt.topo, Rand: n.rng, OpTimeout: rt.cfg.OpTimeout}
	if token == nil {
		n.sm = rt.cfg.Protocol.NewSession(cfg)
	} else {
		sm, err := protocol.ResumeSession(rt.cfg.Protocol, cfg, token)
		if err != nil {
			return nil, fmt.Errorf("live: session %s: %w", id, err)
		}
		n.sm = sm
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.stopping {
		return nil, ErrStopped
	}
	if _, dup := rt.nodes[id]; dup {
		return nil, fmt.Errorf("live: node %s exists already", id)
	}
	rt.nodes[id] = n
	rt.wg.Add(1)
	go n.run()
	return &Session{rt: rt, n: n}, nil
}

// ID returns the session's node ID.
func (s *Session) ID() protocol.NodeID { return s.n.id }

// DC returns the session's datacenter.
func (s *Session) DC() string { return s.n.dc }

// Do runs one operation and returns its reply. It first waits for any
// operation still outstanding (one abandoned by an earlier Do). When ctx
// ends first Do returns an error wrapping ctx.Err(); if the operation had
// been submitted, it keeps running and its outcome is unknown.
func (s *Session) Do(ctx context.Context, req protocol.Request) (protocol.Reply, error) {
	select {
	case s.n.busy <- struct{}{}:
	case <-ctx.Done():
		return protocol.Reply{}, fmt.Errorf("live: session %s: %v not started: %w", s.n.id, req.Op, ctx.Err())
	case <-s.n.exited:
		return protocol.Reply{}, s.endErr()
	}
	replies := make(chan protocol.Reply, 1)
	if err := s.submit(req, func(rep protocol.Reply) { replies <- rep }); err != nil {
		return protocol.Reply{}, err
	}
	select {
	case rep := <-replies:
		return rep, nil
	case <-ctx.Done():
		outcome := "" // a read that got no answer has no outcome to speak of
		if req.Op == protocol.OpPut || req.Op == protocol.OpWriteTxn {
			outcome = ", outcome unknown"
		}
		return protocol.Reply{}, fmt.Errorf("live: session %s: %v abandoned%s: %w", s.n.id, req.Op, outcome, ctx.Err())
	case <-s.n.exited:
		select {
		case rep := <-replies: // the reply came just before the end
			return rep, nil
		default:
			return protocol.Reply{}, s.endErr()
		}
	}
}

// Token returns the session's token for Runtime.ResumeSession, an opaque
// encoding of its causal context (protocol.Mover), after waiting for any
// operation still outstanding. It fails with an error wrapping
// protocol.ErrMoveUnsupported when the protocol does not support moving
// sessions. The session may go on being used.
func (s *Session) Token(ctx context.Context) ([]byte, error) {
	p := s.rt.cfg.Protocol
	if _, ok := p.(protocol.Resumer); !ok {
		return protocol.SessionToken(p, nil)
	}
	select {
	case s.n.busy <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("live: session %s: token: %w", s.n.id, ctx.Err())
	case <-s.n.exited:
		return nil, s.endErr()
	}
	defer func() { <-s.n.busy }()
	type result struct {
		token []byte
		err   error
	}
	done := make(chan result, 1)
	sm := s.n.sm.(protocol.Session)
	if !s.n.box.push(event{at: s.rt.Now(), seq: s.rt.seq.Add(1), kind: evCall, call: func() {
		token, err := protocol.SessionToken(p, sm)
		done <- result{token, err}
	}}) {
		return nil, s.endErr()
	}
	select {
	case r := <-done:
		return r.token, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("live: session %s: token: %w", s.n.id, ctx.Err())
	case <-s.n.exited:
		select {
		case r := <-done:
			return r.token, r.err
		default:
			return nil, s.endErr()
		}
	}
}

// SubmitAsync starts an operation and returns at once; fn receives the
// reply. fn runs on the session's goroutine: it must not block, but it may
// call SubmitAsync to start the next operation (a closed-loop client).
// SubmitAsync returns ErrBusy while an operation is outstanding. fn is
// never called if the session is closed or the runtime stops first.
func (s *Session) SubmitAsync(req protocol.Request, fn func(protocol.Reply)) error {
	select {
	case <-s.n.exited:
		return s.endErr()
	default:
	}
	select {
	case s.n.busy <- struct{}{}:
	default:
		return ErrBusy
	}
	return s.submit(req, fn)
}

// submit queues req; the caller holds the busy token, which the session's
// loop gives back just before calling fn.
func (s *Session) submit(req protocol.Request, fn func(protocol.Reply)) error {
	if !s.n.box.push(event{at: s.rt.Now(), seq: s.rt.seq.Add(1), kind: evSubmit, req: req, onReply: fn}) {
		return s.endErr()
	}
	return nil
}

// endErr says why the session's goroutine is gone (or going).
func (s *Session) endErr() error {
	select {
	case <-s.rt.done:
		return ErrStopped
	default:
	}
	select {
	case <-s.n.quit:
		return ErrClosed
	default:
	}
	return fmt.Errorf("live: session %s failed: %w", s.n.id, s.rt.Err())
}

// Close ends the session: its goroutine returns, an outstanding operation
// is abandoned and messages still on their way to it are dropped. It
// always returns nil; it implements io.Closer.
func (s *Session) Close() error {
	s.closeOnce.Do(func() { close(s.n.quit) })
	return nil
}
