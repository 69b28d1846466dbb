package k2

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/k2pb"
)

// Replication of a committed transaction from its origin DC (k2.txt
// §IV-A, constrained replication topology). Phase 1 sends each key's
// data and metadata to its server in every other replica DC, which
// stores it in IncomingWrites and acknowledges. Phase 2 starts once every
// key is held by all its replica DCs — or, after failoverAfter, by at
// least one (§VI-A) — and sends the transaction's metadata, with each
// key's list of DCs known to hold its value, to its coordinator in every
// other DC. A DC that replicates every key of the transaction gets the
// metadata with phase 1 already, since it waits for its data anyway.
// Everything is retransmitted until acknowledged (by RemoteTxnAck once
// the transaction committed in that DC).

// outTxn is a transaction being replicated by its origin coordinator.
type outTxn struct {
	d       *pb.Decided
	started time.Duration
	// held: key → DCs known to hold its value (acknowledged phase 1).
	held map[string]map[string]bool
	// phase2 is set once the metadata went to every DC.
	phase2 bool
	// committed: DCs whose RemoteTxnAck came.
	committed map[string]bool
	retry     protocol.Retry
}

func newOutTxn(d *pb.Decided, now time.Duration) *outTxn {
	return &outTxn{d: d, started: now, held: map[string]map[string]bool{}, committed: map[string]bool{},
		retry: protocol.SentAt(now)}
}

// remoteDCs lists every DC but this one.
func (s *server) remoteDCs() []string {
	var out []string
	for _, dc := range s.topo.DCNames() {
		if dc != s.dc {
			out = append(out, dc)
		}
	}
	return out
}

// holders lists the DCs known to hold key's value for o, in declared
// order.
func (s *server) holders(o *outTxn, key string) []string {
	var out []string
	for _, dc := range replicaDCs(s.topo, key) {
		if dc == s.dc || o.held[key][dc] {
			out = append(out, dc)
		}
	}
	return out
}

// allReplica reports whether dc replicates every key of o.
func (s *server) allReplica(o *outTxn, dc string) bool {
	for _, w := range o.d.Writes {
		if !isReplica(s.topo, dc, w.Key) {
			return false
		}
	}
	return true
}

// remoteTxnMsg is o's metadata for other DCs.
func (s *server) remoteTxnMsg(o *outTxn, static bool) *pb.RemoteTxn {
	m := &pb.RemoteTxn{Clock: s.clock, Version: o.d.Version, CoordKey: o.d.CoordKey, Deps: o.d.Deps}
	for _, w := range o.d.Writes {
		km := &pb.KeyMeta{Key: w.Key, Replicas: s.holders(o, w.Key)}
		if static {
			km.Replicas = replicaDCs(s.topo, w.Key)
		}
		m.Keys = append(m.Keys, km)
	}
	return m
}

// replicateStep sends what o needs now: phase 1 to replica DCs that have
// not acknowledged (all of them when resend), and phase 2 once it may
// start.
func (s *server) replicateStep(now time.Duration, o *outTxn, resend bool, r *protocol.Ready) {
	if resend {
		for _, w := range o.d.Writes {
			for _, dc := range replicaDCs(s.topo, w.Key) {
				if dc != s.dc && !o.held[w.Key][dc] {
					r.Send(s.id, owner(s.topo, dc, w.Key), &pb.Phase1{Clock: s.clock, Version: o.d.Version, Key: w.Key, Value: w.Value})
				}
			}
		}
		for _, dc := range s.remoteDCs() {
			if !o.committed[dc] && (o.phase2 || s.allReplica(o, dc)) {
				r.Send(s.id, owner(s.topo, dc, o.d.CoordKey), s.remoteTxnMsg(o, !o.phase2))
			}
		}
	}
	if !o.phase2 && s.phase1Done(now, o) {
		o.phase2 = true
		s.releasePins(o, r)
		for _, dc := range s.remoteDCs() {
			if !o.committed[dc] {
				r.Send(s.id, owner(s.topo, dc, o.d.CoordKey), s.remoteTxnMsg(o, false))
			}
		}
	}
	s.maybeForget(o.d.Version, r)
}

// phase1Done reports whether phase 2 may start: every key held by all
// its replica DCs, or by one after failoverAfter.
func (s *server) phase1Done(now time.Duration, o *outTxn) bool {
	late := now-o.started >= failoverAfter
	for _, w := range o.d.Writes {
		n := len(s.holders(o, w.Key))
		if n == len(replicaDCs(s.topo, w.Key)) || (late && n > 0) {
			continue
		}
		return false
	}
	return true
}

// releasePins unpins the local copies of o's non-replica keys (this
// server's directly, the cohorts' by Replicated).
func (s *server) releasePins(o *outTxn, r *protocol.Ready) {
	byServer := map[protocol.NodeID][]*pb.KeyMeta{}
	for _, w := range o.d.Writes {
		if s.replica(w.Key) {
			continue
		}
		to := owner(s.topo, s.dc, w.Key)
		byServer[to] = append(byServer[to], &pb.KeyMeta{Key: w.Key, Replicas: s.holders(o, w.Key)})
	}
	for _, to := range slices.Sorted(maps.Keys(byServer)) {
		if to == s.id {
			for _, km := range byServer[to] {
				s.unpin(km.Key, o.d.Version, km.Replicas)
			}
			continue
		}
		r.Send(s.id, to, &pb.Replicated{Clock: s.clock, Version: o.d.Version, Keys: byServer[to]})
	}
}

// phase1Ack records that a replica DC holds a key's value.
func (s *server) phase1Ack(now time.Duration, from protocol.NodeID, b *pb.Phase1Ack, r *protocol.Ready) {
	o := s.out[b.Version]
	if o == nil {
		return
	}
	if o.held[b.Key] == nil {
		o.held[b.Key] = map[string]bool{}
	}
	o.held[b.Key][from.DC()] = true
	s.replicateStep(now, o, false, r)
}

// remoteTxnAck records that the transaction committed in a DC.
func (s *server) remoteTxnAck(now time.Duration, from protocol.NodeID, b *pb.RemoteTxnAck, r *protocol.Ready) {
	if o := s.out[b.Version]; o != nil {
		o.committed[from.DC()] = true
		s.maybeForget(b.Version, r)
	}
}

// replicationDone reports whether o reached every replica and every DC.
func (s *server) replicationDone(o *outTxn) bool {
	if !o.phase2 {
		return false
	}
	for _, w := range o.d.Writes {
		if len(s.holders(o, w.Key)) < len(replicaDCs(s.topo, w.Key)) {
			return false
		}
	}
	for _, dc := range s.remoteDCs() {
		if !o.committed[dc] {
			return false
		}
	}
	return true
}

// maybeForget deletes a transaction's record once its cohorts acknowledged
// and its replication completed.
func (s *server) maybeForget(ver uint64, r *protocol.Ready) {
	o := s.out[ver]
	if o == nil || !s.replicationDone(o) || s.decided[o.d.TxnId] != nil {
		return
	}
	delete(s.out, ver)
	r.Write(storage.Write{Kind: storage.Delete, Key: decidedKey(ver)}, true)
}

// tickReplication retransmits and starts phase 2 after failoverAfter.
func (s *server) tickReplication(now time.Duration, r *protocol.Ready) {
	for _, v := range slices.Sorted(maps.Keys(s.out)) {
		o := s.out[v]
		s.replicateStep(now, o, s.resendDue(now, &o.retry), r)
	}
}

// phase1 stores a replicated value in IncomingWrites and acknowledges
// it; a remote prepare waiting for it proceeds.
func (s *server) phase1(now time.Duration, from protocol.NodeID, b *pb.Phase1, r *protocol.Ready) {
	k := s.state(b.Key)
	if _, done := k.done[b.Version]; !done {
		if _, ok := k.incoming[b.Version]; !ok {
			k.incoming[b.Version] = b.Value
			r.Write(storage.Write{Kind: storage.Put, Key: incomingKey(b.Key, b.Version), Value: b.Value}, true)
		}
	}
	r.Send(s.id, from, &pb.Phase1Ack{Clock: s.clock, Version: b.Version, Key: b.Key})
	if w := s.rwait[b.Version]; w != nil {
		delete(s.rwait, b.Version)
		s.remotePrepare(now, w.coordinator, b.Version, w.keys, r)
	}
}
