package saturn

import (
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/cassandra"
	"github.com/causeway/causeway/protocol/fifo"
	"github.com/causeway/causeway/storage"
	cpb "github.com/causeway/causeway/wire/cassandrapb"
	pb "github.com/causeway/causeway/wire/saturnpb"
)

// item is a label the serializer executes in its DC: a local or remote
// write, or a migrate label whose target is this DC.
//
// The DC's order is the order in which the serializer took its labels
// (made a local one, or took a remote one from a tree edge), which is the
// order they leave on every edge. Execution follows it thus:
//
//   - A remote write (and a migrate label) starts only once every label
//     before it in the order has finished at a local quorum: remote
//     writes are applied one at a time in label order (c3.txt §2, §3.5:
//     "an operation from a datacenter can only start executing after the
//     previous operation ... completes"), and a migration is answered
//     when everything before it is applied.
//   - A local write does not wait for remote labels: it starts once the
//     writes that had started executing here when it was labelled have
//     finished at a local quorum (its barrier), for its client may have
//     read any of them at a single replica (see doc.go, Deviations).
//
// Recovered items (after a serializer crash) are all executed as remote
// ones, strictly in order.
type item struct {
	rec     uint64 // its pending record's number
	label   *pb.Label
	coord   protocol.NodeID // a local write's coordinator, to tell when done
	writeID uint64          // the coordinator's id of that write
	local   bool            // a local write labelled by this incarnation
	asked   bool            // a migration the session asked this serializer for
	barrier uint64          // a local write starts when finishedUpTo ≥ barrier

	idx      uint64 // execution number (0: not started)
	finished bool   // at a local quorum (a migration: answered)
	targets  []protocol.NodeID
	acked    map[protocol.NodeID]bool
	retry    protocol.Retry
}

func (it *item) ref() writeRef {
	return writeRef{coord: it.coord, id: it.writeID, version: it.label.Version}
}

// enqueue records a label to execute here durably and appends it to the
// DC's order.
func (s *serializer) enqueue(it *item, r *protocol.Ready) {
	s.nextRec++
	it.rec = s.nextRec
	p := &pb.Pending{Label: it.label, Coordinator: string(it.coord), WriteId: it.writeID}
	r.Write(storage.Write{Kind: storage.Put, Key: pendingKey(it.rec), Value: fifo.Marshal(p)}, true)
	s.queue = append(s.queue, it)
}

// advance starts every item that may start, until none moves.
func (s *serializer) advance(now time.Duration, r *protocol.Ready) {
	for moved := true; moved; {
		moved = false
		for len(s.queue) > 0 && s.queue[0].finished {
			s.queue = s.queue[1:]
		}
		if len(s.queue) > 0 {
			if h := s.queue[0]; !h.local && h.idx == 0 && !h.finished {
				s.start(now, h, r)
				moved = true
			}
		}
		for len(s.localWaiting) > 0 && s.localWaiting[0].barrier <= s.finishedUpTo {
			it := s.localWaiting[0]
			s.localWaiting = s.localWaiting[1:]
			s.start(now, it, r)
			moved = true
		}
	}
}

// layerID is ExecuteWrite's layer_id of the idx-th execution of this
// incarnation (a WriteExecuted for an earlier incarnation matches
// nothing).
func (s *serializer) layerID(idx uint64) uint64 { return s.incarnation<<40 | idx }

// start executes an item: answers a migration, or orders the key's local
// replicas to apply a write.
func (s *serializer) start(now time.Duration, it *item, r *protocol.Ready) {
	if m := it.label.Migrate; m != nil {
		it.finished = true
		r.Write(storage.Write{Kind: storage.Delete, Key: pendingKey(it.rec)}, false)
		s.watched.AnswerMigration(s.id, protocol.NodeID(m.Session), m.MigId, s.dc, it.asked, SerializerOf(it.label.Origin), r)
		return
	}
	s.started++
	it.idx = s.started
	s.unfinished[it.idx] = true
	it.acked, it.retry = map[protocol.NodeID]bool{}, protocol.SentAt(now)
	for _, i := range s.topo.DCReplicas(s.dc, it.label.Key, s.rf) {
		it.targets = append(it.targets, protocol.MakeNodeID(s.dc, cassandra.ServerName(i)))
	}
	s.executing[s.layerID(it.idx)] = it
	s.sendExecute(it, r)
}

func (s *serializer) sendExecute(it *item, r *protocol.Ready) {
	for _, t := range it.targets {
		if !it.acked[t] {
			r.Send(s.id, t, &cpb.ExecuteWrite{Key: it.label.Key, Version: it.label.Version, LayerId: s.layerID(it.idx)})
		}
	}
}

// writeExecuted records a replica's execution: the write finishes at a
// quorum of its targets; ExecuteWrite is resent to the others until every
// target has executed it, and its record is kept until then (a restarted
// serializer executes it again).
func (s *serializer) writeExecuted(_ time.Duration, from protocol.NodeID, b *cpb.WriteExecuted, r *protocol.Ready) {
	it := s.executing[b.LayerId]
	if it == nil || it.label.Key != b.Key || it.label.Version != b.Version || !slices.Contains(it.targets, from) {
		return
	}
	it.acked[from] = true
	if !it.finished && len(it.acked) >= len(it.targets)/2+1 {
		s.finish(it, r)
	}
	if len(it.acked) == len(it.targets) {
		delete(s.executing, b.LayerId)
		r.Write(storage.Write{Kind: storage.Delete, Key: pendingKey(it.rec)}, false)
	}
}

// finish marks a write finished at a local quorum, and tells a local
// write's coordinator.
func (s *serializer) finish(it *item, r *protocol.Ready) {
	it.finished = true
	delete(s.unfinished, it.idx)
	for s.finishedUpTo < s.started && !s.unfinished[s.finishedUpTo+1] {
		s.finishedUpTo++
	}
	if it.coord != "" {
		delete(s.byWrite, it.ref())
		r.Send(s.id, it.coord, &cpb.LayerDone{Id: it.writeID, Version: it.label.Version})
	}
}
