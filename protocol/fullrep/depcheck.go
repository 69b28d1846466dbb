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
// the order their owners first appear, each listing its dependencies in
// the order they were added. It collects (owner, dependency) pairs and
// builds the DepChecks in send, all their lists carved from one array.
// A server lends it its pairs' array (server.pairs; done hands it back).
type checkBatch struct {
	pairs []checkPair
}

// checkPair is one dependency and its owner.
type checkPair struct {
	owner protocol.NodeID
	dep   *pb.Dep
}

// add lists dep in the DepCheck going to owner.
func (b *checkBatch) add(owner protocol.NodeID, dep *pb.Dep) {
	b.pairs = append(b.pairs, checkPair{owner, dep})
}

// done returns the pairs' array emptied and cleared, for the next batch.
func (b *checkBatch) done() []checkPair {
	clear(b.pairs)
	return b.pairs[:0]
}

// maxOwners is how many owners send tracks on the stack (more go to the
// heap).
const maxOwners = 16

// send sends each owner its DepCheck.
func (b *checkBatch) send(from protocol.NodeID, r *protocol.Ready) {
	if len(b.pairs) == 0 {
		return
	}
	// Owners in order of first appearance, how many dependencies each
	// has, and each pair's owner (by index).
	var ownersA [maxOwners]protocol.NodeID
	var countsA [maxOwners]int
	var groupA [64]uint16
	owners, counts, group := ownersA[:0], countsA[:0], groupA[:0]
	for _, p := range b.pairs {
		j := 0
		for j < len(owners) && owners[j] != p.owner {
			j++
		}
		if j == len(owners) {
			owners = append(owners, p.owner)
			counts = append(counts, 0)
		}
		counts[j]++
		group = append(group, uint16(j))
	}
	all := make([]*pb.Dep, len(b.pairs))
	var checksA [maxOwners]*pb.DepCheck
	checks := checksA[:0]
	at := 0
	for _, n := range counts {
		checks = append(checks, &pb.DepCheck{Deps: all[at : at : at+n]})
		at += n
	}
	for i, p := range b.pairs {
		c := checks[group[i]]
		c.Deps = append(c.Deps, p.dep)
	}
	for j, to := range owners {
		r.Send(from, to, checks[j])
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
