package chainreaction

import (
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// resendBit marks a retransmission timer token.
const resendBit = 1 << 63

// entry is the client library's metadata for one key (chainreaction.txt
// §3.4): the version last seen and the chain index of the node that
// served it. Entries of stable versions are dropped (§3.5).
type entry struct {
	version    uint64
	chainIndex int
	// pinned (geo-replication) says the entry stood for a version
	// written in another DC: it is kept until the next put (geo.go).
	pinned bool
}

// session is a ChainReaction client: its library (the metadata table)
// and its proxy (stabilization, routing) in one state machine.
type session struct {
	c       *chain.Client
	rng     *rand.Rand
	timeout time.Duration

	meta map[string]entry

	reqID   uint64
	pending *protocol.Request
	// stabilizing holds the dependencies of the pending put not yet
	// known to be stable (the dependency stabilization procedure).
	stabilizing map[string]uint64
	target      protocol.NodeID // where the pending get or put was sent
	// txn is the pending get-transaction's progress (txn.go).
	txn *txnState

	// maxSeen is the highest version this session has read or written:
	// a put's version exceeds it, which makes versions a Lamport clock
	// across keys, so that last-writer-wins never orders a write before
	// one in its causal past (with a head's clock ahead, per-key counters
	// alone let observers disagree on the order of concurrent writes).
	maxSeen uint64

	// resume holds, in a session resumed from a token (token.go), the
	// entries not yet known stable in its DC, by key: until it is empty
	// no operation is sent.
	resume map[string]uint64
	// geo: each DC has its own chains (chainreaction.txt §4); cops: the
	// cr-cops baseline (geo.go).
	geo, cops bool
}

func newSession(cfg protocol.SessionConfig, l *chain.Layout) protocol.Session {
	return &session{c: chain.NewClient(cfg.ID, l), rng: cfg.Rand, timeout: cfg.OpTimeout, meta: map[string]entry{}, geo: l.Geo}
}

// Start implements protocol.Node: the session asks the master for its
// current view (chain.Client.Fetch), and a resumed session starts
// stabilizing its token's entries (token.go) once it has it.
func (s *session) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	s.c.Fetch(&r)
	if len(s.resume) > 0 {
		s.startResume(now, &r)
	}
	return r
}

// Submit implements protocol.Session.
func (s *session) Submit(now time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	if req.Op != protocol.OpGet && req.Op != protocol.OpPut && req.Op != protocol.OpReadTxn {
		r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
		return r
	}
	s.reqID++
	s.pending = &req
	s.stabilizing = nil
	s.txn = nil
	if req.Op == protocol.OpReadTxn {
		if !s.c.Layout.Sequenced {
			// Get-transactions need a sequencer, which cr-cops has
			// not (doc.go).
			s.pending = nil
			r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
			return r
		}
		s.txn = &txnState{}
	}
	if req.Op == protocol.OpPut && !s.cops {
		// The put depends on the last put and every get since: every
		// entry still in the table (§3.5).
		s.stabilizing = map[string]uint64{}
		for k, e := range s.meta {
			s.stabilizing[k] = e.version
		}
	}
	s.send(&r)
	if s.timeout > 0 {
		r.SetTimer(s.timeout, s.reqID)
	}
	r.SetTimer(s.c.FirstResend(now), s.reqID|resendBit)
	return r
}

// send (re)sends what the pending operation waits for.
func (s *session) send(r *protocol.Ready) {
	req := s.pending
	if s.c.Fetching() {
		return // sent when the view arrives (Step)
	}
	if len(s.resume) > 0 {
		s.sendResume(r)
		return
	}
	if req.Op == protocol.OpReadTxn {
		s.sendTxn(r)
		return
	}
	if req.Op == protocol.OpGet {
		s.target = s.readTarget(req.Key)
		r.Send(s.c.ID, s.target, &pb.Get{Client: string(s.c.ID), ReqId: s.reqID, Key: req.Key, MinVersion: s.meta[req.Key].version})
		return
	}
	if len(s.stabilizing) > 0 {
		for _, k := range slices.Sorted(maps.Keys(s.stabilizing)) {
			c, _ := s.c.Chain(k)
			s.target = c[len(c)-1]
			r.Send(s.c.ID, s.target, &pb.Stabilize{Client: string(s.c.ID), ReqId: s.reqID, Key: k, Version: s.stabilizing[k]})
		}
		return
	}
	head, k := s.c.PutTargets(req.Key)
	s.target = head
	// Node k answers the put directly (chainreaction.txt §3.3) once it
	// has heard from this session.
	if s.c.Layout.Sequenced {
		// Every put goes through the sequencer, which numbers it and
		// passes it on to the head (§5).
		s.target = s.c.Layout.Sequencer(s.c.ID.DC())
	}
	s.c.Announce(k, head, r)
	put := &pb.Put{Client: string(s.c.ID), ReqId: s.reqID, Key: req.Key, Value: req.Value,
		MinVersion: max(s.meta[req.Key].version, s.maxSeen), Geo: s.geoMeta()}
	if s.c.Layout.Sequenced {
		r.Send(s.c.ID, s.target, &pb.SeqPut{Put: put})
		return
	}
	r.Send(s.c.ID, s.target, put)
}

// readTarget picks a node uniformly in [head, chainIndex] of key's chain,
// or in the whole chain when the session has no entry for key (§3.6).
func (s *session) readTarget(key string) protocol.NodeID {
	c, _ := s.c.Chain(key)
	n := len(c)
	if s.cops {
		return c[n-1]
	}
	if e, ok := s.meta[key]; ok {
		n = min(e.chainIndex+1, n)
	}
	if ok := slices.ContainsFunc(c[:n], s.c.Suspected); ok {
		// A node the master suspects (chain.Client.Fetch) may be dead:
		// read from the others of the prefix, if any.
		live := slices.DeleteFunc(slices.Clone(c[:n]), s.c.Suspected)
		if len(live) > 0 {
			return live[s.rng.IntN(len(live))]
		}
	}
	return c[s.rng.IntN(n)]
}

// Step implements protocol.Node.
func (s *session) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	epoch, fetching := s.c.View.Epoch, s.c.Fetching()
	if b, ok := m.Body.(*pb.StabilizeReply); ok && b.ReqId == 0 {
		s.onResumed(b, &r)
		return r
	}
	if s.c.OnView(m) || s.pending == nil {
		fetched := fetching && !s.c.Fetching()
		switch {
		case s.pending != nil && (s.c.View.Epoch > epoch || fetched):
			// The chain may have been repaired: resend at once, not
			// after the backoff (or send what waited for the view).
			s.send(&r)
		case fetched && len(s.resume) > 0:
			s.sendResume(&r)
		}
		return r
	}
	req := s.pending
	switch b := m.Body.(type) {
	case *pb.SeqReply:
		s.onSeqReply(b, &r)
	case *pb.HeadReadReply:
		s.onHeadRead(b, &r)
	case *pb.StabilizeReply:
		if req.Op != protocol.OpPut || b.ReqId != s.reqID || s.stabilizing == nil {
			return r
		}
		if v, ok := s.stabilizing[b.Key]; ok && b.Version >= v {
			delete(s.stabilizing, b.Key)
			if len(s.stabilizing) == 0 {
				s.send(&r)
			}
		}
	case *pb.PutReply:
		if req.Op != protocol.OpPut || b.ReqId != s.reqID || b.Key != req.Key || len(s.stabilizing) > 0 {
			return r
		}
		s.pending = nil
		s.c.Answered(now)
		s.maxSeen = max(s.maxSeen, b.Version)
		if b.Superseded {
			// A late put overwritten before it was stored or shipped
			// (geo, §5): it stands for no dependency in the other DCs,
			// so they are kept beside its own entry.
			if e, ok := s.meta[req.Key]; !ok || e.version <= b.Version {
				s.meta[req.Key] = entry{version: b.Version, chainIndex: int(b.ChainIndex)}
			}
		} else {
			// After a put its dependencies are dropped: the put alone
			// stands for them (§3.5).
			clear(s.meta)
			s.meta[req.Key] = entry{version: b.Version, chainIndex: int(b.ChainIndex)}
		}
		rep := protocol.Reply{Op: protocol.OpPut, Key: req.Key}
		rep.SetWANRounds(s.wanRounds(req.Key))
		r.Reply(rep)
	case *pb.GetReply:
		if req.Op != protocol.OpGet || b.ReqId != s.reqID || b.Key != req.Key {
			return r
		}
		s.pending = nil
		s.c.Answered(now)
		s.maxSeen = max(s.maxSeen, b.Version)
		s.observe(b)
		rep := protocol.Reply{Op: protocol.OpGet, Key: req.Key, Value: b.Value}
		rep.SetWANRounds(s.wanRounds(req.Key))
		r.Reply(rep)
	}
	return r
}

// observe applies §3.6's update rules: i) a stable version needs no
// entry (chainIndex R, then garbage-collected); ii) the same version keeps
// the larger chain index; iii) a newer version takes the serving node's.
func (s *session) observe(b *pb.GetReply) {
	e, ok := s.meta[b.Key]
	if s.geo && !s.cops {
		s.observeGeo(e, ok, b)
		return
	}
	if s.cops {
		// COPS keeps every version read since the last put (its nearest
		// dependencies), stable or not.
		if !ok || b.Version > e.version {
			s.meta[b.Key] = entry{version: b.Version, chainIndex: int(b.ChainIndex)}
		}
		return
	}
	switch {
	case b.Stable:
		if !ok || b.Version >= e.version {
			delete(s.meta, b.Key)
		}
	case ok && b.Version == e.version:
		e.chainIndex = max(e.chainIndex, int(b.ChainIndex))
		s.meta[b.Key] = e
	case !ok || b.Version > e.version:
		s.meta[b.Key] = entry{version: b.Version, chainIndex: int(b.ChainIndex)}
	}
}

// wanRounds is 1 when key's chain leaves the session's DC, else 0.
func (s *session) wanRounds(key string) int {
	if s.geo {
		return 0
	}
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
	if token == resumeTimer {
		s.resumeTick(&r)
		return r
	}
	if s.pending == nil {
		return r
	}
	if token == s.reqID|resendBit {
		// Report the node that did not answer, then try again (with a
		// newer view, when the master has one).
		wait := s.c.Resend(s.target, &r)
		s.send(&r)
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
