package k2

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/k2pb"
)

// Local write-only transactions (k2.txt §III-C): two-phase commit inside
// the client's DC. The participant holding the coordinator key is the
// coordinator; the others are cohorts. Cohorts mark their keys pending
// (persisted) and vote Yes; the coordinator then assigns its current
// Lamport time as the version and EVT, commits, persists the decision,
// answers the client and sends Commit to the cohorts until each
// acknowledges.

// localTxn is a transaction a coordinator waits on for Yes votes.
type localTxn struct {
	req     *pb.WriteReq
	client  protocol.NodeID
	started time.Duration
	yes     map[protocol.NodeID]bool
}

// decidedTxn is a committed transaction whose cohorts have not all
// acknowledged its Commit.
type decidedTxn struct {
	d       *pb.Decided
	unacked map[protocol.NodeID]bool
	retry   protocol.Retry
}

// cohortTxn is a cohort's pending sub-request.
type cohortTxn struct {
	p     *pb.Pending
	since time.Duration
	retry protocol.Retry
}

// ownWrites returns the writes of w stored at this server.
func (s *server) ownWrites(ws []*pb.KV) []*pb.KV {
	var out []*pb.KV
	for _, w := range ws {
		if owner(s.topo, s.dc, w.Key) == s.id {
			out = append(out, w)
		}
	}
	return out
}

// writeReq handles a client's sub-request.
func (s *server) writeReq(now time.Duration, from protocol.NodeID, b *pb.WriteReq, r *protocol.Ready) {
	if s.aborted[b.TxnId] {
		return
	}
	if !b.IsCoordinator {
		s.prepareCohort(now, b, r)
		return
	}
	if d := s.decided[b.TxnId]; d != nil {
		r.Send(s.id, from, &pb.WriteReply{Clock: s.clock, TxnId: b.TxnId, Version: d.d.Version})
		return
	}
	if s.coord[b.TxnId] != nil {
		return
	}
	t := &localTxn{req: b, client: from, started: now, yes: s.earlyYes[b.TxnId]}
	delete(s.earlyYes, b.TxnId)
	if t.yes == nil {
		t.yes = map[protocol.NodeID]bool{}
	}
	p := s.tick()
	for _, w := range s.ownWrites(b.Writes) {
		s.state(w.Key).pending[b.TxnId] = p
	}
	s.coord[b.TxnId] = t
	s.maybeDecide(now, t, r)
}

// prepareCohort marks a cohort's keys pending, persists them and votes.
func (s *server) prepareCohort(now time.Duration, b *pb.WriteReq, r *protocol.Ready) {
	if c := s.cohortPending[b.TxnId]; c == nil {
		p := &pb.Pending{TxnId: b.TxnId, Prepared: s.tick(), Writes: s.ownWrites(b.Writes), Coordinator: b.Coordinator}
		for _, w := range p.Writes {
			s.state(w.Key).pending[b.TxnId] = p.Prepared
		}
		s.cohortPending[b.TxnId] = &cohortTxn{p: p, since: now, retry: protocol.SentAt(now)}
		r.Write(storage.Write{Kind: storage.Put, Key: "p/" + b.TxnId, Value: marshal(p)}, true)
	}
	r.Send(s.id, protocol.NodeID(b.Coordinator), &pb.Yes{Clock: s.clock, TxnId: b.TxnId})
}

// yes handles a cohort's vote.
func (s *server) yes(now time.Duration, from protocol.NodeID, b *pb.Yes, r *protocol.Ready) {
	switch {
	case s.coord[b.TxnId] != nil:
		t := s.coord[b.TxnId]
		t.yes[from] = true
		s.maybeDecide(now, t, r)
	case s.decided[b.TxnId] != nil:
		d := s.decided[b.TxnId].d
		r.Send(s.id, from, &pb.Commit{Clock: s.clock, TxnId: b.TxnId, Version: d.Version, Evt: d.Evt})
	case s.aborted[b.TxnId]:
		r.Send(s.id, from, &pb.Abort{Clock: s.clock, TxnId: b.TxnId})
	default:
		// The vote overtook the client's request to the coordinator.
		if s.earlyYes[b.TxnId] == nil {
			s.earlyYes[b.TxnId] = map[protocol.NodeID]bool{}
		}
		s.earlyYes[b.TxnId][from] = true
	}
}

// maybeDecide commits t once every cohort voted Yes.
func (s *server) maybeDecide(now time.Duration, t *localTxn, r *protocol.Ready) {
	for _, c := range t.req.Cohorts {
		if !t.yes[protocol.NodeID(c)] {
			return
		}
	}
	delete(s.coord, t.req.TxnId)
	ver := s.tick()
	d := &pb.Decided{TxnId: t.req.TxnId, Version: ver, Evt: ver, CoordKey: t.req.CoordKey,
		Writes: t.req.Writes, Deps: t.req.Deps, Cohorts: t.req.Cohorts}
	r.Write(storage.Write{Kind: storage.Put, Key: decidedKey(ver), Value: marshal(d)}, true)
	for _, w := range s.ownWrites(d.Writes) {
		s.apply(now, w.Key, ver, ver, w.Value, true, nil, true, r)
		s.unpending(now, w.Key, d.TxnId, r)
	}
	r.Send(s.id, t.client, &pb.WriteReply{Clock: s.clock, TxnId: d.TxnId, Version: ver})
	dt := &decidedTxn{d: d, unacked: map[protocol.NodeID]bool{}, retry: protocol.SentAt(now)}
	for _, c := range d.Cohorts {
		dt.unacked[protocol.NodeID(c)] = true
		r.Send(s.id, protocol.NodeID(c), &pb.Commit{Clock: s.clock, TxnId: d.TxnId, Version: ver, Evt: ver})
	}
	if len(dt.unacked) > 0 {
		s.decided[d.TxnId] = dt
	}
	o := newOutTxn(d, now)
	s.out[ver] = o
	s.replicateStep(now, o, true, r)
}

func decidedKey(ver uint64) string { return "t/" + depKey("", ver) }

// commitCohort applies a Commit at a cohort.
func (s *server) commitCohort(now time.Duration, from protocol.NodeID, b *pb.Commit, r *protocol.Ready) {
	if c := s.cohortPending[b.TxnId]; c != nil {
		delete(s.cohortPending, b.TxnId)
		for _, w := range c.p.Writes {
			s.apply(now, w.Key, b.Version, b.Evt, w.Value, true, nil, true, r)
		}
		r.Write(storage.Write{Kind: storage.Delete, Key: "p/" + b.TxnId}, true)
		for _, w := range c.p.Writes {
			s.unpending(now, w.Key, b.TxnId, r)
		}
	}
	r.Send(s.id, from, &pb.CommitAck{Clock: s.clock, TxnId: b.TxnId})
}

// abortCohort drops an aborted sub-request.
func (s *server) abortCohort(from protocol.NodeID, b *pb.Abort, r *protocol.Ready) {
	s.aborted[b.TxnId] = true
	if c := s.cohortPending[b.TxnId]; c != nil {
		delete(s.cohortPending, b.TxnId)
		r.Write(storage.Write{Kind: storage.Delete, Key: "p/" + b.TxnId}, true)
		for _, w := range c.p.Writes {
			s.unpending(0, w.Key, b.TxnId, r)
		}
	}
}

// commitAck records a cohort's acknowledgement.
func (s *server) commitAck(now time.Duration, from protocol.NodeID, b *pb.CommitAck, r *protocol.Ready) {
	d := s.decided[b.TxnId]
	if d == nil {
		return
	}
	delete(d.unacked, from)
	if len(d.unacked) == 0 {
		delete(s.decided, b.TxnId)
		s.maybeForget(d.d.Version, r)
	}
}

// status answers a cohort whose sub-request has been pending for long.
func (s *server) status(from protocol.NodeID, b *pb.Status, r *protocol.Ready) {
	switch {
	case s.decided[b.TxnId] != nil:
		d := s.decided[b.TxnId].d
		r.Send(s.id, from, &pb.Commit{Clock: s.clock, TxnId: b.TxnId, Version: d.Version, Evt: d.Evt})
	case s.coord[b.TxnId] != nil:
		// still collecting votes: it commits or aborts soon
	default:
		// Unknown here (lost in a crash before the decision, or never
		// received): abort it for good.
		s.aborted[b.TxnId] = true
		delete(s.earlyYes, b.TxnId)
		r.Send(s.id, from, &pb.Abort{Clock: s.clock, TxnId: b.TxnId})
	}
}

// tickWOT aborts transactions whose votes did not come, resends Commits
// and asks about old pending sub-requests.
func (s *server) tickWOT(now time.Duration, r *protocol.Ready) {
	for _, id := range slices.Sorted(maps.Keys(s.coord)) {
		t := s.coord[id]
		if now-t.started < abortAfter {
			continue
		}
		delete(s.coord, id)
		s.aborted[id] = true
		for _, w := range s.ownWrites(t.req.Writes) {
			s.unpending(now, w.Key, id, r)
		}
		for _, c := range t.req.Cohorts {
			r.Send(s.id, protocol.NodeID(c), &pb.Abort{Clock: s.clock, TxnId: id})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.decided)) {
		d := s.decided[id]
		if !d.retry.Due(now, resendAfter, maxBackoff) {
			continue
		}
		for _, c := range slices.Sorted(maps.Keys(d.unacked)) {
			r.Send(s.id, c, &pb.Commit{Clock: s.clock, TxnId: id, Version: d.d.Version, Evt: d.d.Evt})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.cohortPending)) {
		c := s.cohortPending[id]
		if now-c.since < statusAfter || !c.retry.Due(now, resendAfter, maxBackoff) {
			continue
		}
		r.Send(s.id, protocol.NodeID(c.p.Coordinator), &pb.Status{Clock: s.clock, TxnId: id})
	}
}

// replicated unpins the values of a transaction's local non-replica
// writes once phase 1 is acknowledged; K2 keeps them in the DC cache.
func (s *server) replicated(b *pb.Replicated) {
	for _, km := range b.Keys {
		if owner(s.topo, s.dc, km.Key) != s.id {
			continue
		}
		s.unpin(km.Key, b.Version, km.Replicas)
	}
}

// unpin moves a pinned value to the cache and records its holders.
func (s *server) unpin(key string, ver uint64, replicas []string) {
	k := s.keys[key]
	if k == nil {
		return
	}
	if len(replicas) > 0 && !s.replica(key) {
		k.replicas[ver] = replicas
	}
	if v, ok := k.pinned[ver]; ok {
		delete(k.pinned, ver)
		s.cache.put(key, ver, v)
	}
}
