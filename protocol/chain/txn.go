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
	x, ok := it.atSnapshot(b.Snapshot)
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
	reply.Version, reply.Stable = x.v, x.v <= it.stable
	r.Send(s.id, from, reply)
}

// atSnapshot is the newest version sequenced at or below snap (the
// key's initial value, version 0, when it has none and never dropped
// one); false when that version was dropped.
func (it *item) atSnapshot(snap uint64) (ver, bool) {
	for i := len(it.versions) - 1; i >= 0; i-- {
		if it.versions[i].v>>epochBits <= snap {
			return it.versions[i], true
		}
	}
	return ver{}, !it.dropped
}

// latePut handles, at the head, a put the sequencer numbered before the
// key's latest version that arrived after it (§5's "late PUT"): it is
// overwritten at once, so it is never read, but it is still answered —
// by node k, down the chain as any put, or at once when the newer
// version is already stable.
func (s *server) latePut(b *pb.Put, x ver, c []protocol.NodeID, full int, r *protocol.Ready) {
	it := s.get(b.Key)
	s.remember(b.Client, reqRec{req: b.ReqId, key: b.Key, version: x.v}, r)
	if it.stable >= x.v {
		s.toClient(b.Client, b.Entry, &pb.PutReply{ReqId: b.ReqId, Key: b.Key, Version: x.v,
			ChainIndex: uint32(s.layout.ReplyIndex(c, full))}, r)
		return
	}
	s.apply(b.Key, x, b.Client, b.Entry, b.ReqId, true, c, full, 0, r)
}
