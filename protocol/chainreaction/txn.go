package chainreaction

import (
	"slices"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// A session's get-transactions (chainreaction.txt §5): the proxy asks the
// sequencer for a snapshot (a sequence number per key), reads every key
// at the head of its chain at that snapshot, and assembles the reply;
// when a head aborts, it takes new sequence numbers and reissues every
// read.

// txnState is the progress of a session's pending get-transaction.
type txnState struct {
	// attempt numbers the tries (a reply of an earlier one is stale).
	attempt uint32
	// snaps are the keys' snapshots, nil until the sequencer answers.
	snaps []uint64
	reads map[string]*pb.HeadReadReply
	// aborts counts the tries the heads aborted.
	aborts int
}

// sendTxn (re)sends what the pending get-transaction waits for: the
// sequencer's snapshot (starting a new attempt when there is none yet),
// or the reads not yet answered.
func (s *session) sendTxn(r *protocol.Ready) {
	t := s.txn
	if t.attempt == 0 {
		s.retryTxn(r)
		return
	}
	if t.snaps == nil {
		s.target = s.c.Layout.Sequencer(s.c.ID.DC())
		r.Send(s.c.ID, s.target, &pb.SeqRequest{ReqId: s.reqID, Attempt: t.attempt, Keys: s.pending.Keys})
		return
	}
	for i, k := range s.pending.Keys {
		if _, ok := t.reads[k]; ok {
			continue
		}
		c, _ := s.c.Chain(k)
		s.target = c[0]
		r.Send(s.c.ID, c[0], &pb.HeadRead{ReqId: s.reqID, Attempt: t.attempt, Key: k, Snapshot: t.snaps[i],
			MinVersion: s.meta[k].version})
	}
}

// retryTxn starts a new attempt: new sequence numbers, then every read.
func (s *session) retryTxn(r *protocol.Ready) {
	t := s.txn
	t.attempt++
	t.snaps, t.reads = nil, map[string]*pb.HeadReadReply{}
	s.sendTxn(r)
}

func (s *session) txnReply(reqID uint64, attempt uint32) *txnState {
	if s.pending == nil || s.pending.Op != protocol.OpReadTxn || s.txn == nil || reqID != s.reqID || attempt != s.txn.attempt {
		return nil
	}
	return s.txn
}

// onSeqReply sends the reads at the snapshot the sequencer gave.
func (s *session) onSeqReply(b *pb.SeqReply, r *protocol.Ready) {
	t := s.txnReply(b.ReqId, b.Attempt)
	if t == nil || t.snaps != nil || len(b.Snapshots) != len(s.pending.Keys) {
		return
	}
	t.snaps = b.Snapshots
	s.sendTxn(r)
}

// onHeadRead records a head's answer; an abort retries the whole
// get-transaction, the last answer completes it, each read updating the
// metadata as a get served by the head (§5, §3.6).
func (s *session) onHeadRead(b *pb.HeadReadReply, r *protocol.Ready) {
	t := s.txnReply(b.ReqId, b.Attempt)
	if t == nil || t.snaps == nil || !slices.Contains(s.pending.Keys, b.Key) || t.reads[b.Key] != nil {
		return
	}
	if b.Abort {
		t.aborts++
		s.retryTxn(r)
		return
	}
	t.reads[b.Key] = b
	keys := s.pending.Keys
	if len(t.reads) < len(keys) {
		return
	}
	s.pending, s.txn = nil, nil
	reads := make([]protocol.KV, len(keys))
	wan := 0
	for i, k := range keys {
		x := t.reads[k]
		s.maxSeen = max(s.maxSeen, x.Version)
		s.observe(&pb.GetReply{Key: k, Version: x.Version, Stable: x.Stable})
		reads[i] = protocol.KV{Key: k, Value: x.Value}
		wan = max(wan, s.wanRounds(k))
	}
	rep := protocol.Reply{Op: protocol.OpReadTxn, Reads: reads, Metrics: protocol.Metrics{{Name: "txn_aborts", Value: float64(t.aborts)}}}
	rep.SetWANRounds(wan)
	r.Reply(rep)
}
