package cassandra

import (
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/cassandrapb"
)

// newOp registers a client operation at its coordinator.
func (s *Server) newOp(now time.Duration, client protocol.NodeID, reqID uint64, key string, write bool, level Level) (uint64, *op) {
	s.nextID++
	o := &op{client: client, reqID: reqID, key: key, write: write, level: level,
		place: s.preset.placement(s.topo, key), start: now, answered: map[protocol.NodeID]bool{},
		versions: map[protocol.NodeID]uint64{}, asked: map[protocol.NodeID]bool{}, retry: protocol.SentAt(now)}
	s.ops[s.nextID] = o
	return s.nextID, o
}

// readTargets are the replicas a read at level l asks first: the local
// DC's for LocalQuorum, the nearest replica DC's for the count levels
// (unless it has too few), every replica for Quorum and EachQuorum. An
// unanswered read asks every replica of its scope (readScope) again.
func (s *Server) readTargets(o *op) []protocol.NodeID {
	switch o.level {
	case LocalQuorum:
		return o.place.replicas[s.dc]
	case Quorum, EachQuorum:
		return o.place.all()
	}
	near := o.place.replicas[s.topo.Nearest(s.dc, o.place.dcs)]
	if len(near) >= o.level.count() {
		return near
	}
	return o.place.all()
}

// readScope lists every replica whose answer a read at o's level counts:
// the coordinator DC's for LocalQuorum (an answer from another DC could
// return a write not yet visible here, which C3 must not: c3.txt §4
// restricts even read repair to the DC), every replica otherwise.
func (s *Server) readScope(o *op) []protocol.NodeID {
	if o.level == LocalQuorum {
		return o.place.replicas[s.dc]
	}
	return o.place.all()
}

// read coordinates a client read: ask replicas, answer once the level's
// replicas have answered with the newest version among them.
func (s *Server) read(now time.Duration, client protocol.NodeID, b *pb.ClientRead, r *protocol.Ready) {
	id, o := s.newOp(now, client, b.ReqId, b.Key, false, Level(b.Level))
	for _, to := range s.readTargets(o) {
		o.asked[to] = true
		s.send(now, to, &pb.ReadCmd{Id: id, Key: b.Key}, r)
	}
}

// readResp records a replica's answer to a read, answers the client when
// the level is met, and repairs stale replicas of the coordinator's DC
// (read repair, which Cassandra does inside a DC).
func (s *Server) readResp(now time.Duration, from protocol.NodeID, b *pb.ReadResp, r *protocol.Ready) {
	o := s.ops[b.Id]
	if o == nil || o.write || o.key != b.Key || o.answered[from] || !slices.Contains(s.readScope(o), from) {
		return
	}
	o.answered[from] = true
	o.versions[from] = b.Version
	if !o.done {
		if b.Version > o.version || (o.version == 0 && len(o.answered) == 1) {
			o.value, o.version = b.Value, b.Version
		}
		if !o.place.satisfied(o.level, s.dc, o.answered) {
			return
		}
		o.done = true
		wan := !o.place.satisfied(o.level, s.dc, localOnly(o.answered, s.dc))
		s.send(now, o.client, &pb.ClientReply{ReqId: o.reqID, Value: o.value, Version: o.version, Wan: wan}, r)
		for id, v := range o.versions {
			s.repair(now, id, o, v, r)
		}
		return
	}
	s.repair(now, from, o, b.Version, r)
}

// repair sends the newest version a read found to a replica of the
// coordinator's DC that answered with an older one.
func (s *Server) repair(now time.Duration, to protocol.NodeID, o *op, had uint64, r *protocol.Ready) {
	if to.DC() != s.dc || had >= o.version || o.version == 0 {
		return
	}
	s.send(now, to, &pb.Mutation{Key: o.key, Value: o.value, Version: o.version, Gated: false}, r)
}

// mint returns a new LWW timestamp: the coordinator's clock in µs (never
// going back), the server's index in the low bits as the tie-break.
func (s *Server) mint(now time.Duration) uint64 {
	s.clock = max(s.clock+1, uint64(max(now, 0)/time.Microsecond))
	return s.clock<<serverBits | s.index
}

// write coordinates a client write: a durable hint, the write to every
// replica in every replica DC, the answer once the level's replicas
// acknowledged (or, gated, once the causality layer says so).
func (s *Server) write(now time.Duration, client protocol.NodeID, b *pb.ClientWrite, r *protocol.Ready) {
	id, o := s.newOp(now, client, b.ReqId, b.Key, true, Level(b.Level))
	s.clock = max(s.clock, b.MinVersion>>serverBits)
	o.version = s.mint(now)
	mut := &pb.Mutation{Id: id, Key: b.Key, Value: b.Value, Version: o.version, Gated: s.preset.Gated}
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(mut)
	if err != nil {
		panic(err) // a generated message always marshals
	}
	r.Write(storage.Write{Kind: storage.Put, Key: hintKey(id), Value: data}, true)
	h := &hint{mut: mut, unacked: map[protocol.NodeID]bool{}, layer: s.preset.Gated, retry: protocol.SentAt(now)}
	s.hints[id] = h
	all := o.place.all()
	for _, to := range all {
		h.unacked[to] = true
	}
	for _, to := range all {
		o.asked[to] = true
		s.send(now, to, mut, r)
	}
	if h.layer {
		// c3.txt §4 (i): the write's information goes to the causality
		// layer as soon as the data has been sent to the replicas.
		s.send(now, s.preset.Layer(s.dc), &pb.LayerWrite{Id: id, Key: b.Key, Version: o.version}, r)
	}
}

// dropHint forgets a hint every replica (and, gated, the layer) is done
// with.
func (s *Server) dropHint(id uint64, h *hint, r *protocol.Ready) {
	if len(h.unacked) == 0 && !h.layer {
		delete(s.hints, id)
		r.Write(storage.Write{Kind: storage.Delete, Key: hintKey(id)}, false)
	}
}

// layerDone answers a gated write once its DC's causality layer executed
// it at a local quorum (c3.txt §3.4: local writes wait for the layer).
func (s *Server) layerDone(now time.Duration, b *pb.LayerDone, r *protocol.Ready) {
	if h := s.hints[b.Id]; h != nil && h.mut.Version == b.Version {
		h.layer = false
		s.dropHint(b.Id, h, r)
	}
	if o := s.ops[b.Id]; o != nil && o.write && o.version == b.Version && !o.done {
		s.finishWrite(now, b.Id, o, false, r)
	}
}

// mutationAck records a replica's acknowledgement: the hint is done when
// every replica has acknowledged, the client's write when the level is met.
func (s *Server) mutationAck(now time.Duration, from protocol.NodeID, b *pb.MutationAck, r *protocol.Ready) {
	if h := s.hints[b.Id]; h != nil && h.mut.Key == b.Key && h.mut.Version == b.Version {
		delete(h.unacked, from)
		s.dropHint(b.Id, h, r)
	}
	o := s.ops[b.Id]
	if o == nil || !o.write || o.version != b.Version || o.done {
		return
	}
	o.answered[from] = true
	if s.preset.Gated || !o.place.satisfied(o.level, s.dc, o.answered) {
		return
	}
	wan := !o.place.satisfied(o.level, s.dc, localOnly(o.answered, s.dc))
	s.finishWrite(now, b.Id, o, wan, r)
}

// finishWrite answers a client's write.
func (s *Server) finishWrite(now time.Duration, id uint64, o *op, wan bool, r *protocol.Ready) {
	o.done = true
	s.send(now, o.client, &pb.ClientReply{ReqId: o.reqID, Version: o.version, Wan: wan}, r)
	delete(s.ops, id)
}
