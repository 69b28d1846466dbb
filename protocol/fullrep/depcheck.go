package fullrep

import (
	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

// One DepCheck per owner server (issue #17). COPS's dep_checks for one
// write go to the servers that own its dependencies and may run in
// parallel (§4.3); sending every dependency an owner holds in one
// DepCheck, answered by one DepOK once all of them are committed there,
// is a transport choice: it changes how many messages carry the checks,
// not what a check asks nor when a write may be committed.

// checkBatch gathers the DepChecks of one step, one per owner server, in
// the order their owners first appear.
type checkBatch struct {
	to     []protocol.NodeID
	checks []*pb.DepCheck
}

// add lists dep in the DepCheck going to owner.
func (b *checkBatch) add(owner protocol.NodeID, dep *pb.Dep) {
	for i, t := range b.to {
		if t == owner {
			b.checks[i].Deps = append(b.checks[i].Deps, dep)
			return
		}
	}
	b.to = append(b.to, owner)
	b.checks = append(b.checks, &pb.DepCheck{Deps: []*pb.Dep{dep}})
}

// send sends each owner its DepCheck.
func (b *checkBatch) send(from protocol.NodeID, r *protocol.Ready) {
	for i, to := range b.to {
		r.Send(from, to, b.checks[i])
	}
}

// depQuery is a DepCheck waiting at the owner for some of its
// dependencies: it is answered, with one DepOK listing all of them, when
// the last one is committed.
type depQuery struct {
	from    protocol.NodeID
	deps    []*pb.Dep
	missing int // dependencies listed not yet committed here
}

// sameQuery reports whether q asks from the same sender for the same
// dependencies in the same order as deps (a retransmission).
func (q *depQuery) sameQuery(from protocol.NodeID, deps []*pb.Dep) bool {
	if q.from != from || len(q.deps) != len(deps) {
		return false
	}
	for i, d := range deps {
		if q.deps[i].GetKey() != d.GetKey() || q.deps[i].GetVersion() != d.GetVersion() {
			return false
		}
	}
	return true
}

// depCheck answers a DepCheck: at once if every dependency it lists is
// committed here, else once the last missing one is (commit's wake-up of
// s.waiters). A retransmitted check identical to one still waiting is
// dropped: the waiting one will answer it.
func (s *server) depCheck(from protocol.NodeID, b *pb.DepCheck, r *protocol.Ready) {
	var first versionID
	missing := 0
	for _, d := range b.Deps {
		if d == nil || s.committed(d.Key, d.Version) {
			continue
		}
		if missing == 0 {
			first = versionID{d.Key, d.Version}
		}
		missing++
	}
	if missing == 0 {
		r.Send(s.id, from, &pb.DepOK{Deps: b.Deps})
		return
	}
	for _, q := range s.waiters[first] {
		if q.sameQuery(from, b.Deps) {
			return
		}
	}
	q := &depQuery{from: from, deps: b.Deps, missing: missing}
	for _, d := range b.Deps {
		if d == nil || s.committed(d.Key, d.Version) {
			continue
		}
		dk := versionID{d.Key, d.Version}
		s.waiters[dk] = append(s.waiters[dk], q)
	}
}

// wakeQueries records that dk is committed here and answers every query
// that waited only for it, in the order the queries arrived.
func (s *server) wakeQueries(dk versionID, r *protocol.Ready) {
	qs := s.waiters[dk]
	if qs == nil {
		return
	}
	delete(s.waiters, dk)
	for _, q := range qs {
		q.missing--
		if q.missing == 0 {
			r.Send(s.id, q.from, &pb.DepOK{Deps: q.deps})
		}
	}
}
