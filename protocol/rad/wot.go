package rad

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/radpb"
)

// This file is Eiger's write-only transaction in the client's replica
// group (Eiger §4.3; k2.txt §II-B, §VII-A): two-phase commit across the
// servers of the group that hold the keys, which in RAD are in several
// DCs. Each participant prepares on receiving its sub-request and votes;
// the coordinator (the server of the coordinator key) commits once every
// participant voted, at version = EVT = its Lamport time, answers the
// client and sends Commit to the cohorts.

// ensureCoord returns a transaction's coordinator state, creating it.
func (s *server) ensureCoord(id string, now time.Duration) *coord {
	c := s.coords[id]
	if c == nil {
		c = &coord{votes: map[protocol.NodeID]uint64{}, notify: map[protocol.NodeID]bool{}, started: now}
		s.coords[id] = c
	}
	return c
}

// writeRequest prepares this server's sub-request of a client's
// write-only transaction.
func (s *server) writeRequest(now time.Duration, from protocol.NodeID, b *pb.WriteRequest, r *protocol.Ready) {
	s.clock.observe(b.MinClock)
	isCoord := s.coordinator(b.CoordKey) == s.id
	if d, ok := s.decisions[b.TxnId]; ok {
		if isCoord {
			r.Send(s.id, from, &pb.WriteReply{ReqId: b.ReqId, Version: d.version, Aborted: !d.commit})
		}
		return
	}
	if s.parts[b.TxnId] != nil {
		return // a duplicate
	}
	p := &part{id: b.TxnId, coordKey: b.CoordKey, keys: b.Keys, writes: map[string][]byte{}, deps: b.Deps,
		complete: true, prepared: true, prepTime: s.clock.tick(r), retry: protocol.SentAt(now)}
	for _, w := range b.Writes {
		p.writes[w.Key] = w.Value
	}
	s.parts[p.id] = p
	r.Write(storage.Write{Kind: storage.Put, Key: prefPrepared + p.id, Version: p.prepTime, Value: marshal(b)}, true)
	if !isCoord {
		s.sendStatus(p, r)
		return
	}
	c := s.ensureCoord(p.id, now)
	c.client, c.reqID = from, b.ReqId
	c.votes[s.id] = p.prepTime
	s.tryCommitOrigin(now, p.id, r)
}

// prepared records a participant's vote at its coordinator, or answers it
// with the decision already made (Eiger's status check).
func (s *server) prepared(now time.Duration, from protocol.NodeID, b *pb.Prepared, r *protocol.Ready) {
	s.clock.observe(b.PrepareTime)
	if d, ok := s.decisions[b.TxnId]; ok {
		s.sendDecision(from, b.TxnId, d, r)
		return
	}
	c := s.ensureCoord(b.TxnId, now)
	c.votes[from] = b.PrepareTime
	if isReplicated(b.TxnId) {
		c.notify[from] = true
		s.tryPrepare(now, b.TxnId, r)
		return
	}
	s.tryCommitOrigin(now, b.TxnId, r)
}

func (s *server) sendDecision(to protocol.NodeID, id string, d decision, r *protocol.Ready) {
	if d.commit {
		r.Send(s.id, to, &pb.Commit{TxnId: id, Version: d.version, Evt: d.evt})
	} else {
		r.Send(s.id, to, &pb.Abort{TxnId: id})
	}
}

// allVoted reports whether every participant of p voted.
func (s *server) allVoted(c *coord, p *part) bool {
	for _, q := range s.participants(p.keys) {
		if _, ok := c.votes[q]; !ok {
			return false
		}
	}
	return true
}

// tryCommitOrigin commits an origin transaction once its coordinator holds
// its own sub-request and every participant's vote.
func (s *server) tryCommitOrigin(now time.Duration, id string, r *protocol.Ready) {
	c, p := s.coords[id], s.parts[id]
	if c == nil || p == nil || !s.allVoted(c, p) {
		return
	}
	ver := s.clock.tick(r)
	s.decide(id, decision{commit: true, version: ver, evt: ver}, p, r)
	if c.client != "" {
		r.Send(s.id, c.client, &pb.WriteReply{ReqId: c.reqID, Version: ver})
	}
	s.applyPart(now, p, ver, ver, r)
}

// decide records a coordinator's decision durably and sends it to the
// other participants.
func (s *server) decide(id string, d decision, p *part, r *protocol.Ready) {
	s.decisions[id] = d
	var val []byte
	if d.commit {
		val = marshal(&pb.Commit{TxnId: id, Version: d.version, Evt: d.evt})
	}
	r.Write(storage.Write{Kind: storage.Put, Key: prefDecision + id, Value: val}, true)
	to := map[protocol.NodeID]bool{}
	for q := range s.coords[id].votes {
		to[q] = true
	}
	if p != nil {
		for _, q := range s.participants(p.keys) {
			to[q] = true
		}
	}
	delete(to, s.id)
	for _, q := range slices.Sorted(maps.Keys(to)) {
		s.sendDecision(q, id, d, r)
	}
	delete(s.coords, id)
}

// abortStale aborts origin transactions whose votes did not all arrive in
// abortAfter: the client has given up, and prepared cohorts must not stay
// pending (they block second-round reads).
func (s *server) abortStale(now time.Duration, r *protocol.Ready) {
	for _, id := range slices.Sorted(maps.Keys(s.coords)) {
		c := s.coords[id]
		if isReplicated(id) || now-c.started < abortAfter {
			continue
		}
		p := s.parts[id]
		s.decide(id, decision{}, p, r)
		if c.client != "" {
			r.Send(s.id, c.client, &pb.WriteReply{ReqId: c.reqID, Aborted: true})
		}
		if p != nil {
			s.dropPart(p, r)
		}
	}
	s.wakeReads(r)
}

// commitMsg applies a coordinator's Commit at a cohort.
func (s *server) commitMsg(now time.Duration, b *pb.Commit, r *protocol.Ready) {
	s.clock.observe(b.Evt)
	if p := s.parts[b.TxnId]; p != nil && p.complete {
		s.applyPart(now, p, b.Version, b.Evt, r)
	}
}

// abortMsg drops an aborted origin sub-request.
func (s *server) abortMsg(b *pb.Abort, r *protocol.Ready) {
	if p := s.parts[b.TxnId]; p != nil && !isReplicated(b.TxnId) {
		s.dropPart(p, r)
		s.wakeReads(r)
	}
}

// dropPart forgets a participant's state and its storage records.
func (s *server) dropPart(p *part, r *protocol.Ready) {
	delete(s.parts, p.id)
	if isReplicated(p.id) {
		r.Write(storage.Write{Kind: storage.Delete, Key: prefRemPrep + p.id}, false)
		for _, k := range p.incoming {
			r.Write(storage.Write{Kind: storage.Delete, Key: k}, false)
		}
		return
	}
	r.Write(storage.Write{Kind: storage.Delete, Key: prefPrepared + p.id}, false)
}

// applyPart commits a participant's writes at version and evt; at the
// origin it then starts replicating them to the other groups.
func (s *server) applyPart(now time.Duration, p *part, ver, evt uint64, r *protocol.Ready) {
	for _, k := range slices.Sorted(maps.Keys(p.writes)) {
		s.commitVersion(now, k, p.writes[k], ver, evt, r)
	}
	if !isReplicated(p.id) {
		s.startReplication(now, p, ver, r)
	}
	s.dropPart(p, r)
	s.wakeReads(r)
}

// startReplication sends this participant's writes to the server holding
// each key in every other replica group (its equivalent servers), the
// coordinator key's carrying the dependencies, and keeps them until each
// acknowledges.
func (s *server) startReplication(now time.Duration, p *part, ver uint64, r *protocol.Ready) {
	msgs := map[protocol.NodeID]*pb.Replicate{}
	for g := range s.pl.groups {
		if g == s.group {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(p.writes)) {
			to := s.pl.owner(k, g)
			m := msgs[to]
			if m == nil {
				m = &pb.Replicate{Version: ver, CoordKey: p.coordKey, Keys: p.keys}
				msgs[to] = m
			}
			m.Writes = append(m.Writes, &pb.KV{Key: k, Value: p.writes[k]})
			if k == p.coordKey {
				m.Deps = p.deps
			}
		}
	}
	if len(msgs) == 0 {
		return
	}
	rec := &pb.Outgoing{}
	for _, to := range slices.Sorted(maps.Keys(msgs)) {
		rec.Msgs = append(rec.Msgs, &pb.OutMsg{To: string(to), Msg: msgs[to]})
		r.Send(s.id, to, msgs[to])
	}
	r.Write(storage.Write{Kind: storage.Put, Key: outKey(ver), Value: marshal(rec)}, true)
	s.out[ver] = &outgoing{msgs: msgs, retry: protocol.SentAt(now)}
}

func outKey(ver uint64) string { return prefOutgoing + strconv.FormatUint(ver, 16) }

// replicateAck forgets a Replicate its receiver holds durably.
func (s *server) replicateAck(from protocol.NodeID, b *pb.ReplicateAck, r *protocol.Ready) {
	o := s.out[b.Version]
	if o == nil {
		return
	}
	delete(o.msgs, from)
	if len(o.msgs) == 0 {
		delete(s.out, b.Version)
		r.Write(storage.Write{Kind: storage.Delete, Key: outKey(b.Version)}, false)
	}
}
