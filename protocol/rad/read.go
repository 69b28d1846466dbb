package rad

import (
	"maps"
	"slices"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/radpb"
)

// This file is the server side of Eiger's read-only transaction (Eiger
// §4.2, §5.2). Round 1 never blocks: each key's visible version with its
// validity interval [EVT, LVT]. LVT is the server's current time, or, when
// a prepared transaction writes the key, the earliest such prepare time:
// that transaction commits at an EVT above its prepare time, so the
// version stays valid up to it. Round 2 reads at the effective time: it
// waits for every prepared transaction on the key that prepared before
// that time (it may commit at or below it); the wait is Eiger's indirection
// through the coordinator, whose decision the participant asks for with its
// vote (sendStatus).

// read answers a ReadRequest or parks it.
func (s *server) read(from protocol.NodeID, b *pb.ReadRequest, r *protocol.Ready) {
	s.clock.observe(b.ReadTs)
	s.clock.observe(b.At)
	if b.At == 0 {
		s.readRound1(from, b, r)
		return
	}
	pr := &parkedRead{from: from, req: b}
	if !s.serveAt(pr, r) {
		s.parked = append(s.parked, pr)
	}
}

// pendingBefore returns the prepared transactions writing key that
// prepared before t (t = 0: any).
func (s *server) pendingBefore(key string, t uint64) []*part {
	var out []*part
	for _, id := range slices.Sorted(maps.Keys(s.parts)) {
		p := s.parts[id]
		if _, ok := p.writes[key]; ok && p.prepared && (t == 0 || p.prepTime < t) {
			out = append(out, p)
		}
	}
	return out
}

// result returns key's version visible at t, false below the chain's floor.
func (s *server) result(key string, t uint64) (*pb.ReadResult, bool) {
	var v version
	if c := s.chains[key]; c != nil {
		var ok bool
		if v, ok = c.at(t); !ok {
			return nil, false
		}
	}
	res := &pb.ReadResult{Key: key, Version: v.version, Evt: v.evt, Value: v.value}
	if v.version == 0 {
		res.Value = s.loaded.Value(key)
	}
	return res, true
}

func (s *server) readRound1(from protocol.NodeID, b *pb.ReadRequest, r *protocol.Ready) {
	rep := &pb.ReadReply{ReqId: b.ReqId}
	for _, k := range b.Keys {
		lvt := s.clock.now(r)
		for _, p := range s.pendingBefore(k, 0) {
			lvt = min(lvt, p.prepTime)
		}
		res, ok := s.result(k, lvt)
		if !ok {
			rep.TooOld = true
			break
		}
		res.Lvt = lvt
		rep.Results = append(rep.Results, res)
	}
	r.Send(s.id, from, rep)
}

// serveAt answers a round-2 read if no key waits for a pending
// transaction, else asks the coordinators of those it waits for.
func (s *server) serveAt(pr *parkedRead, r *protocol.Ready) bool {
	b := pr.req
	blocked := false
	for _, k := range b.Keys {
		for _, p := range s.pendingBefore(k, b.At) {
			blocked = true
			pr.remote = pr.remote || s.spansDCs(p.keys)
			if !pr.asked {
				s.sendStatus(p, r)
			}
		}
	}
	if blocked {
		pr.asked = true
		return false
	}
	rep := &pb.ReadReply{ReqId: b.ReqId, At: b.At, WaitedRemote: pr.remote}
	for _, k := range b.Keys {
		res, ok := s.result(k, b.At)
		if !ok {
			rep.TooOld = true
			break
		}
		rep.Results = append(rep.Results, res)
	}
	r.Send(s.id, pr.from, rep)
	return true
}

// wakeReads retries the parked round-2 reads.
func (s *server) wakeReads(r *protocol.Ready) {
	if len(s.parked) == 0 {
		return
	}
	var still []*parkedRead
	for _, pr := range s.parked {
		if !s.serveAt(pr, r) {
			still = append(still, pr)
		}
	}
	s.parked = still
}
