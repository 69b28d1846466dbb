package rad

import (
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/radpb"
)

// This file is the replicated write-only transaction in a receiving group
// (Eiger §4.4, k2.txt §VII-A): each server stores the Replicates of its
// keys and acknowledges them; once it holds all its keys of the
// transaction a cohort notifies the coordinator (the server of the
// coordinator key in this group), which checks the dependencies with the
// servers of its own group that hold them — in RAD, across the wide area —
// and, once every cohort notified and every dependency is committed, runs
// two-phase commit: Prepare, Prepared, then Commit with this group's EVT.

// replicate stores a Replicate from an origin participant.
func (s *server) replicate(now time.Duration, from protocol.NodeID, b *pb.Replicate, r *protocol.Ready) {
	s.clock.observe(b.Version)
	id := replicatedTxnID(b.Version)
	ack := &pb.ReplicateAck{Version: b.Version, Backlog: uint32(len(s.parts))}
	done := true
	for _, w := range b.Writes {
		done = done && s.seen[depName(w.Key, b.Version)]
	}
	if _, decided := s.decisions[id]; decided || done {
		r.Send(s.id, from, ack)
		return
	}
	p := s.parts[id]
	if p == nil {
		p = &part{id: id, version: b.Version, coordKey: b.CoordKey, keys: b.Keys, writes: map[string][]byte{}}
		s.parts[id] = p
	}
	ik := prefIncoming + id + "/" + string(from)
	if !s.addIncoming(p, ik, b) {
		r.Send(s.id, from, ack)
		return
	}
	r.Write(storage.Write{Kind: storage.Put, Key: ik, Value: marshal(b)}, true)
	r.Send(s.id, from, ack)
	if p.complete {
		p.retry = protocol.SentAt(now)
		if s.coordinator(p.coordKey) == s.id {
			s.startDepChecks(now, p, r)
			s.tryPrepare(now, id, r)
		} else {
			s.sendStatus(p, r)
		}
	}
}

// addIncoming merges a Replicate (stored under ik) into p; false if it was
// already there. It sets p.complete when this server's keys are all in.
func (s *server) addIncoming(p *part, ik string, b *pb.Replicate) bool {
	for _, k := range p.incoming {
		if k == ik {
			return false
		}
	}
	p.incoming = append(p.incoming, ik)
	for _, w := range b.Writes {
		p.writes[w.Key] = w.Value
	}
	if len(b.Deps) > 0 {
		p.deps = b.Deps
	}
	if !p.complete {
		p.complete = true
		for _, k := range s.myKeys(p.keys) {
			if _, ok := p.writes[k]; !ok {
				p.complete = false
			}
		}
	}
	return true
}

// startDepChecks sends the coordinator's dependency checks to the servers
// of this group holding each dependency.
func (s *server) startDepChecks(now time.Duration, p *part, r *protocol.Ready) {
	c := s.ensureCoord(p.id, now)
	for _, d := range p.deps {
		dn := depName(d.Key, d.Version)
		if s.seen[dn] {
			continue
		}
		if s.deps.Wait(p.id, dn, d, now) {
			r.Send(s.id, s.pl.owner(d.Key, s.group), &pb.DepCheck{Dep: d})
		}
	}
	c.depsOK = !s.deps.Waiting(p.id)
}

// notify records a cohort that holds its sub-request.
func (s *server) notify(now time.Duration, from protocol.NodeID, b *pb.Notify, r *protocol.Ready) {
	if d, ok := s.decisions[b.TxnId]; ok {
		s.sendDecision(from, b.TxnId, d, r)
		return
	}
	c := s.ensureCoord(b.TxnId, now)
	c.notify[from] = true
	if p := s.parts[b.TxnId]; p != nil && p.prepared {
		r.Send(s.id, from, &pb.Prepare{TxnId: b.TxnId})
	}
	s.tryPrepare(now, b.TxnId, r)
}

// tryPrepare starts two-phase commit of a replicated transaction once the
// coordinator holds its sub-request, its dependencies are committed in
// this group and every cohort has notified; and commits once all voted.
func (s *server) tryPrepare(now time.Duration, id string, r *protocol.Ready) {
	c, p := s.coords[id], s.parts[id]
	if c == nil || p == nil || !p.complete || !c.depsOK {
		return
	}
	if !p.prepared {
		cohorts := s.participants(p.keys)
		for _, q := range cohorts {
			if _, voted := c.votes[q]; q != s.id && !voted && !c.notify[q] {
				return
			}
		}
		p.prepared, p.prepTime = true, s.clock.tick(r)
		r.Write(storage.Write{Kind: storage.Put, Key: prefRemPrep + id, Version: p.prepTime}, true)
		c.votes[s.id] = p.prepTime
		for _, q := range cohorts {
			if _, voted := c.votes[q]; !voted {
				r.Send(s.id, q, &pb.Prepare{TxnId: id})
			}
		}
	}
	if !s.allVoted(c, p) {
		return
	}
	evt := s.clock.tick(r)
	s.decide(id, decision{commit: true, version: p.version, evt: evt}, p, r)
	s.applyPart(now, p, p.version, evt, r)
}

// prepare prepares a cohort's replicated sub-request.
func (s *server) prepare(now time.Duration, b *pb.Prepare, r *protocol.Ready) {
	p := s.parts[b.TxnId]
	if p == nil || !p.complete {
		return
	}
	if !p.prepared {
		p.prepared, p.prepTime = true, s.clock.tick(r)
		r.Write(storage.Write{Kind: storage.Put, Key: prefRemPrep + p.id, Version: p.prepTime}, true)
	}
	p.retry = protocol.SentAt(now)
	s.sendStatus(p, r)
}
