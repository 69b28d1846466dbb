package chain

import (
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// A server's part in ChainReaction's get-transactions (chainreaction.txt
// §5): puts numbered by the sequencer, and the reads of a
// get-transaction, served by the head at the transaction's snapshot from
// the versions it keeps (multiversion: every version newer than the
// newest stable one, and that one).

// seqPut handles a put the sequencer numbered: the head writes it with the
// sequence number as its version's counter; another server passes it on
// to the head.
func (s *server) seqPut(now time.Duration, b *pb.SeqPut, r *protocol.Ready) {
	if b.Put == nil {
		return
	}
	c, _, i := s.chain(b.Put.Key)
	if len(c) == 0 {
		return
	}
	if i != 0 {
		r.Send(s.id, c[0], b)
		return
	}
	s.put(now, b.Put, b.Seq, r)
}

// headRead serves one read of a get-transaction at the head: the newest
// version whose sequence number is at or below the snapshot. When the
// head no longer holds it (dropped once a newer version became stable),
// or it is older than the version the session knows, the head aborts the
// get-transaction, and the session retries it with a new snapshot. A head
// that is not synced after a view change, or a server that is not the
// head, stays silent: the session retransmits, asking the master for a
// newer view.
func (s *server) headRead(from protocol.NodeID, b *pb.HeadRead, r *protocol.Ready) {
	if _, _, i := s.chain(b.Key); i != 0 || !s.synced {
		return
	}
	s.heard[from] = true
	it := s.items[b.Key]
	if it == nil {
		it = &item{}
	}
	reply := &pb.HeadReadReply{ReqId: b.ReqId, Attempt: b.Attempt, Key: b.Key}
	x, ok := s.atSnapshot(it, b.Snapshot)
	if !ok || x.v < b.MinVersion {
		reply.Abort = true
		r.Send(s.id, from, reply)
		return
	}
	reply.Value = x.value
	if x.v == 0 {
		reply.Value = s.loaded.Value(b.Key)
	} else if reply.Value == nil {
		reply.Value = []byte{}
	}
	reply.Version, reply.Stable = x.v, s.stableFor(it, x.v)
	r.Send(s.id, from, reply)
}

// atSnapshot is the key's value at snapshot snap: the newest version
// (in version order) of those sequenced at or below snap, or the key's
// initial value, version 0, when there is none and the head never dropped
// one; false when that version was dropped, or a version's number is
// unknown. Under geo-replication a remote put's number is the one this
// DC's sequencer gave it on arrival, not its origin's: a snapshot then
// holds a remote put only if it reached this DC's sequencer before the
// snapshot was taken, when its dependencies were applied here already
// (the remote-proxy applies a put after its dependencies), so every
// snapshot is a causal cut of this DC. Sequence order and version order
// may then differ (a remote version ordered before a local one by
// last-writer-wins may be numbered after it), hence the scan over every
// kept version.
func (s *server) atSnapshot(it *item, snap uint64) (ver, bool) {
	for i := len(it.versions) - 1; i >= 0; i-- {
		seq, known := s.seqOf(it.versions[i])
		if !known {
			return ver{}, false
		}
		if seq <= snap {
			return it.versions[i], true
		}
	}
	return ver{}, !it.dropped
}

// seqOf is the number this DC's sequencer gave version x: the one it
// carries or, when it carries none (recovered from disk, or written
// without a sequencer), its counter if it was written in this DC (a
// put's counter is at least its number); a remote version's is then
// unknown (false).
func (s *server) seqOf(x ver) (uint64, bool) {
	if x.seq != 0 {
		return x.seq, true
	}
	if !s.layout.Geo || s.localOrigin(x.v) {
		return x.v >> epochBits, true
	}
	return 0, false
}

// latePut handles, at the head, a put the sequencer numbered before the
// key's latest version that arrived after it (§5's "late PUT"): it is
// overwritten at once, so it is never read, but it is still answered —
// by node k, down the chain as any put, or at once when the newer
// version is already stable.
//
// Under geo-replication it is answered at once (supersededReply).
func (s *server) latePut(b *pb.Put, x ver, c []protocol.NodeID, full int, r *protocol.Ready) {
	it := s.get(b.Key)
	s.remember(b.Client, reqRec{req: b.ReqId, key: b.Key, version: x.v}, r)
	if s.layout.Geo {
		s.supersededReply(b, it, c, full, r)
		return
	}
	if it.stable >= x.v {
		s.toClient(b.Client, b.Entry, &pb.PutReply{ReqId: b.ReqId, Key: b.Key, Version: x.v,
			ChainIndex: uint32(s.layout.ReplyIndex(c, full))}, r)
		return
	}
	s.apply(b.Key, x, b.Client, b.Entry, b.ReqId, true, c, full, 0, r)
}

// supersededReply answers, under geo-replication, a put whose own version
// was never stored (a late put, §5) or, for a retransmission, may not
// have been: such a version no tail ships, so it cannot stand for its
// session's dependencies in the other DCs as a shipped put does. The
// reply says superseded, and the session keeps its dependencies (a later
// put's dependency filter then names them itself, §4.1.2); it names the
// key's newest version instead of the put's, one that exists and is
// shipped from its origin, as the session's entry for the key (its
// floor for reads of it, and what a session token asks a DC to hold),
// and the head as the only node sure to hold it until it is stable.
func (s *server) supersededReply(b *pb.Put, it *item, c []protocol.NodeID, full int, r *protocol.Ready) {
	l := it.latest()
	ci := 0
	if it.stable >= l.v {
		ci = s.layout.ReplyIndex(c, full)
	}
	s.toClient(b.Client, b.Entry, &pb.PutReply{ReqId: b.ReqId, Key: b.Key, Version: l.v,
		ChainIndex: uint32(ci), Superseded: true}, r)
}
