package fawnkv

import (
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// Name is the protocol's CLI name.
const Name = "fawn-kv"

func init() {
	protocol.Register(chain.New(chain.Mode{
		Name:       Name,
		Summary:    "FAWN-KV: classic chain replication, writes head to tail, reads at the tail (linearizable)",
		K:          func(*topology.Topology) int { return 0 },
		NewSession: newSession,
		Resume:     resume,
	}))
}

// resendBit marks a retransmission timer token.
const resendBit = 1 << 63

// session is a FAWN-KV client (its front-end proxy folded in): a put goes
// to the head of the key's chain, a get to its tail, and the tail answers
// both.
type session struct {
	c       *chain.Client
	timeout time.Duration
	reqID   uint64
	pending *protocol.Request
	target  protocol.NodeID // where the pending request was sent
}

func newSession(cfg protocol.SessionConfig, l *chain.Layout) protocol.Session {
	return &session{c: chain.NewClient(cfg.ID, l), timeout: cfg.OpTimeout}
}

// Start implements protocol.Node.
func (s *session) Start(time.Duration) protocol.Ready { return protocol.Ready{} }

// Submit implements protocol.Session.
func (s *session) Submit(now time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	if req.Op != protocol.OpGet && req.Op != protocol.OpPut {
		r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
		return r
	}
	s.reqID++
	s.pending = &req
	s.target = s.send(&r)
	if s.timeout > 0 {
		r.SetTimer(s.timeout, s.reqID)
	}
	r.SetTimer(s.c.FirstResend(now), s.reqID|resendBit)
	return r
}

// send sends the pending request and returns its target.
func (s *session) send(r *protocol.Ready) protocol.NodeID {
	req := s.pending
	c, _ := s.c.Chain(req.Key)
	if req.Op == protocol.OpPut {
		// The tail answers the put directly once it has heard from
		// this session.
		s.c.Announce(c[len(c)-1], c[0], r)
		r.Send(s.c.ID, c[0], &pb.Put{Client: string(s.c.ID), ReqId: s.reqID, Key: req.Key, Value: req.Value})
		return c[0]
	}
	t := c[len(c)-1]
	r.Send(s.c.ID, t, &pb.Get{Client: string(s.c.ID), ReqId: s.reqID, Key: req.Key})
	return t
}

// Step implements protocol.Node.
func (s *session) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	epoch := s.c.View.Epoch
	if s.c.OnView(m) {
		if s.pending != nil && s.c.View.Epoch > epoch {
			// The chain may have been repaired: resend at once, not
			// after the backoff.
			s.target = s.send(&r)
		}
		return r
	}
	if s.pending == nil {
		return r
	}
	req := s.pending
	switch b := m.Body.(type) {
	case *pb.PutReply:
		if req.Op != protocol.OpPut || b.ReqId != s.reqID || b.Key != req.Key {
			return r
		}
		s.pending = nil
		s.c.Answered(now)
		rep := protocol.Reply{Op: protocol.OpPut, Key: req.Key}
		rep.SetWANRounds(s.wanRounds(req.Key))
		r.Reply(rep)
	case *pb.GetReply:
		if req.Op != protocol.OpGet || b.ReqId != s.reqID || b.Key != req.Key {
			return r
		}
		s.pending = nil
		s.c.Answered(now)
		rep := protocol.Reply{Op: protocol.OpGet, Key: req.Key, Value: b.Value}
		rep.SetWANRounds(s.wanRounds(req.Key))
		r.Reply(rep)
	}
	return r
}

// wanRounds is 1 when key's chain leaves the session's DC (the geo chain
// spanning DCs), else 0.
func (s *session) wanRounds(key string) int {
	c, _ := s.c.Chain(key)
	for _, n := range c {
		if n.DC() != s.c.ID.DC() {
			return 1
		}
	}
	return 0
}

// Tick implements protocol.Node: retransmission and the op timeout.
func (s *session) Tick(_ time.Duration, token uint64) protocol.Ready {
	var r protocol.Ready
	if s.pending == nil {
		return r
	}
	if token == s.reqID|resendBit {
		// Report the node that did not answer, then try again (with a
		// newer view, when the master has one).
		wait := s.c.Resend(s.target, &r)
		s.target = s.send(&r)
		r.SetTimer(wait, token)
		return r
	}
	if token == s.reqID {
		op := s.pending.Op
		s.pending = nil
		r.Reply(protocol.Reply{Op: op, Err: protocol.ErrTimeout})
	}
	return r
}
