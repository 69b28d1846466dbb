package karma

import (
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// session is a client thread. Its causal state — write buffer and ring
// restrictions — lives at its client coordinator (CC), which persists it;
// the session only forwards operations and waits.
type session struct {
	id      protocol.NodeID
	cc      protocol.NodeID
	timeout time.Duration
	proto   string // the protocol's name, for tokens

	nextReq uint64
	pending *protocol.Request
	reqID   uint64

	// mig, while not nil, is the migration of a resumed session
	// (token.go): operations wait until it is done.
	mig *migration
}

// Start implements protocol.Node: a resumed session starts migrating.
func (s *session) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	if s.mig != nil {
		s.migrateSend(&r)
		r.SetTimer(resendAfter, migrateTick)
	}
	return r
}

// Submit implements protocol.Session.
func (s *session) Submit(_ time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	if req.Op == protocol.OpWriteTxn {
		// §4.5: Karma does not offer write-only transactions (they would
		// need two-phase commit in the wide area).
		r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
		return r
	}
	s.nextReq++
	s.reqID = s.nextReq
	s.pending = &req
	if s.timeout > 0 {
		r.SetTimer(s.timeout, s.reqID)
	}
	if s.mig == nil {
		s.send(&r)
	}
	return r
}

// send sends the pending operation to the CC.
func (s *session) send(r *protocol.Ready) {
	req := s.pending
	switch req.Op {
	case protocol.OpGet:
		r.Send(s.id, s.cc, &pb.ClientGet{ReqId: s.reqID, Session: string(s.id), Key: req.Key})
	case protocol.OpReadTxn:
		r.Send(s.id, s.cc, &pb.ClientTxn{ReqId: s.reqID, Session: string(s.id), Keys: req.Keys})
	default:
		r.Send(s.id, s.cc, &pb.ClientPut{ReqId: s.reqID, Session: string(s.id), Key: req.Key, Value: req.Value})
	}
}

// Step implements protocol.Node: the CC's reply.
func (s *session) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	if s.mig != nil {
		s.migrateStep(m, &r)
		return r
	}
	b, ok := m.Body.(*pb.ClientReply)
	if !ok || s.pending == nil || b.ReqId != s.reqID {
		return r // a late reply to an operation that timed out
	}
	req := s.pending
	s.pending = nil
	rep := protocol.Reply{Op: req.Op, Key: req.Key}
	rep.SetWANRounds(int(b.WanRounds)) // and WideArea, which the CC sets as wan_rounds > 0
	if b.Restricted {
		rep.Tags = append(rep.Tags, "drr")
	}
	if b.CacheHit {
		rep.Tags = append(rep.Tags, "cache_hit")
	}
	if b.SecondRound {
		rep.Tags = append(rep.Tags, "txn_round2")
	}
	if b.InFlight {
		rep.Tags = append(rep.Tags, "inflight_read")
	}
	if b.WriteBuffer {
		rep.Tags = append(rep.Tags, "wb_hit")
	}
	switch {
	case b.Unavailable:
		rep.Err = protocol.ErrUnavailable
	case req.Op == protocol.OpGet && b.Found:
		rep.Value = nonNil(b.Value)
	case req.Op == protocol.OpReadTxn:
		if len(b.Reads) != len(req.Keys) {
			rep.Err = protocol.ErrUnavailable // cannot happen: the CC answers every key
			break
		}
		for i, k := range req.Keys {
			kv := protocol.KV{Key: k}
			if b.Reads[i].Found {
				kv.Value = nonNil(b.Reads[i].Value)
			}
			rep.Reads = append(rep.Reads, kv)
		}
	}
	r.Reply(rep)
	return r
}

// Tick implements protocol.Node: the operation timeout.
func (s *session) Tick(_ time.Duration, token uint64) protocol.Ready {
	var r protocol.Ready
	if token == migrateTick {
		if s.mig != nil {
			s.migrateSend(&r)
			r.SetTimer(resendAfter, migrateTick)
		}
		return r
	}
	if s.pending != nil && token == s.reqID {
		op := s.pending.Op
		s.pending = nil
		r.Reply(protocol.Reply{Op: op, Err: protocol.ErrTimeout})
	}
	return r
}

// nonNil maps a found empty value to a non-nil one (nil is the initial
// state).
func nonNil(v []byte) []byte {
	if v == nil {
		return []byte{}
	}
	return v
}
