package k2

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/k2pb"
)

// Committing a replicated write-only transaction in a remote DC (k2.txt
// §IV-A): the server of the transaction's coordinator key is its remote
// coordinator. It checks the one-hop dependencies against the local
// servers that own them (each answers once that exact version is
// committed there), and prepares every local participant (itself
// included): a participant holding a replica key waits until the key's
// data is in IncomingWrites, then marks its keys pending (persisted) and
// votes. With every dependency satisfied and every vote in, the
// coordinator sets the DC's EVT to its current time, commits, and sends
// RemoteCommit until each cohort acknowledges; then it acknowledges the
// transaction to the origin.

// remoteTxn is a transaction a remote coordinator is committing.
type remoteTxn struct {
	m      *pb.RemoteTxn
	origin protocol.NodeID
	parts  map[protocol.NodeID][]*pb.KeyMeta
	deps   map[string]*pb.Dep
	votes  map[protocol.NodeID]bool
	// evt is the DC's EVT once decided (0 before); committedEvt is one a
	// participant already committed with (a coordinator that restarted).
	evt, committedEvt uint64
	acks              map[protocol.NodeID]bool
	retry             protocol.Retry
}

// prepareWait is a remote prepare waiting for phase-1 data.
type prepareWait struct {
	coordinator protocol.NodeID
	keys        []*pb.KeyMeta
}

func remotePendingID(ver uint64) string { return "r" + strconv.FormatUint(ver, 16) }

func remotePendingKey(ver uint64) string { return "q/" + strconv.FormatUint(ver, 16) }

// remoteTxn starts (or continues) committing a replicated transaction.
func (s *server) remoteTxn(now time.Duration, from protocol.NodeID, b *pb.RemoteTxn, r *protocol.Ready) {
	if s.rcoord[b.Version] != nil {
		return // under way: acknowledged when committed
	}
	t := &remoteTxn{m: b, origin: from, parts: map[protocol.NodeID][]*pb.KeyMeta{}, deps: map[string]*pb.Dep{},
		votes: map[protocol.NodeID]bool{}, acks: map[protocol.NodeID]bool{}, retry: protocol.SentAt(now)}
	for _, km := range b.Keys {
		to := owner(s.topo, s.dc, km.Key)
		t.parts[to] = append(t.parts[to], km)
	}
	for _, d := range b.Deps {
		if d.Version == 0 {
			continue
		}
		t.deps[depKey(d.Key, d.Version)] = d
	}
	s.sendDepChecks(t, r)
	s.rcoord[b.Version] = t
	for _, p := range slices.Sorted(maps.Keys(t.parts)) {
		r.Send(s.id, p, &pb.RemotePrepare{Clock: s.clock, Version: b.Version, Keys: t.parts[p]})
	}
}

// sendDepChecks asks each local server that owns some of t's unsatisfied
// dependencies about all of them in one DepCheck (deps): a session's
// dependencies are every version it read since its last write, often a
// hundred or more, and one message each queued in bursts at the servers
// ahead of local transactions.
func (s *server) sendDepChecks(t *remoteTxn, r *protocol.Ready) {
	by := map[protocol.NodeID][]*pb.Dep{}
	for _, dk := range slices.Sorted(maps.Keys(t.deps)) {
		d := t.deps[dk]
		to := owner(s.topo, s.dc, d.Key)
		by[to] = append(by[to], d)
	}
	for _, to := range slices.Sorted(maps.Keys(by)) {
		r.Send(s.id, to, &pb.DepCheck{Clock: s.clock, Deps: by[to]})
	}
}

// depsOf returns the dependencies a DepCheck or DepOK names: its dep and
// its deps.
func depsOf(dep *pb.Dep, deps []*pb.Dep) []*pb.Dep {
	if dep == nil {
		return deps
	}
	return append([]*pb.Dep{dep}, deps...)
}

// remotePrepare prepares this server's keys of a replicated transaction.
func (s *server) remotePrepare(now time.Duration, coordinator protocol.NodeID, ver uint64, keys []*pb.KeyMeta, r *protocol.Ready) {
	var committedEvt uint64
	all := true
	for _, km := range keys {
		k := s.state(km.Key)
		if evt, done := k.done[ver]; done {
			committedEvt = evt
			continue
		}
		all = false
		if _, ok := k.incoming[ver]; s.replica(km.Key) && !ok {
			s.rwait[ver] = &prepareWait{coordinator: coordinator, keys: keys}
			return
		}
	}
	if !all {
		if _, ok := s.rprepared[ver]; !ok {
			p := &pb.Pending{TxnId: remotePendingID(ver), Version: ver, Prepared: s.tick(), Keys: keys, Coordinator: string(coordinator)}
			for _, km := range keys {
				if _, done := s.state(km.Key).done[ver]; !done {
					s.state(km.Key).pending[p.TxnId] = p.Prepared
				}
			}
			s.rprepared[ver] = p
			r.Write(storage.Write{Kind: storage.Put, Key: remotePendingKey(ver), Value: marshal(p)}, true)
		}
	}
	r.Send(s.id, coordinator, &pb.RemotePrepared{Clock: s.clock, Version: ver, CommittedEvt: committedEvt})
}

// remotePrepared records a participant's vote.
func (s *server) remotePrepared(now time.Duration, from protocol.NodeID, b *pb.RemotePrepared, r *protocol.Ready) {
	t := s.rcoord[b.Version]
	if t == nil {
		return
	}
	t.votes[from] = true
	if b.CommittedEvt != 0 {
		t.committedEvt = b.CommittedEvt
	}
	s.maybeCommitRemote(now, t, r)
}

// depCheck answers the dependencies already committed here at once, in
// one DepOK (a single one in dep, as a session asked it), and each other
// one alone once it is committed.
func (s *server) depCheck(from protocol.NodeID, b *pb.DepCheck, r *protocol.Ready) {
	var ok []*pb.Dep
	for _, d := range depsOf(b.Dep, b.Deps) {
		if _, done := s.state(d.Key).done[d.Version]; done {
			ok = append(ok, d)
			continue
		}
		dk := depKey(d.Key, d.Version)
		if s.depWaiters[dk] == nil {
			s.depWaiters[dk] = map[protocol.NodeID]bool{}
		}
		s.depWaiters[dk][from] = true
	}
	switch len(ok) {
	case 0:
	case 1:
		r.Send(s.id, from, &pb.DepOK{Clock: s.clock, Dep: ok[0]})
	default:
		r.Send(s.id, from, &pb.DepOK{Clock: s.clock, Deps: ok})
	}
}

// depOK records satisfied dependencies of every transaction waiting on
// them.
func (s *server) depOK(now time.Duration, b *pb.DepOK, r *protocol.Ready) {
	deps := depsOf(b.Dep, b.Deps)
	for _, v := range slices.Sorted(maps.Keys(s.rcoord)) {
		t := s.rcoord[v]
		n := len(t.deps)
		for _, d := range deps {
			delete(t.deps, depKey(d.Key, d.Version))
		}
		if len(t.deps) < n {
			s.maybeCommitRemote(now, t, r)
		}
	}
}

// maybeCommitRemote commits t in this DC once its dependencies are
// satisfied and every participant voted.
func (s *server) maybeCommitRemote(now time.Duration, t *remoteTxn, r *protocol.Ready) {
	if t.evt != 0 || len(t.deps) > 0 || len(t.votes) < len(t.parts) {
		return
	}
	t.evt = t.committedEvt
	if t.evt == 0 {
		t.evt = s.tick()
	}
	for _, p := range slices.Sorted(maps.Keys(t.parts)) {
		t.acks[p] = false
		r.Send(s.id, p, &pb.RemoteCommit{Clock: s.clock, Version: t.m.Version, Evt: t.evt, Keys: t.parts[p]})
	}
	t.retry = protocol.SentAt(now)
}

// remoteCommit commits a participant's keys with the DC's EVT.
func (s *server) remoteCommit(now time.Duration, from protocol.NodeID, b *pb.RemoteCommit, r *protocol.Ready) {
	for _, km := range b.Keys {
		s.apply(now, km.Key, b.Version, b.Evt, nil, false, km.Replicas, false, r)
	}
	if _, ok := s.rprepared[b.Version]; ok {
		delete(s.rprepared, b.Version)
		r.Write(storage.Write{Kind: storage.Delete, Key: remotePendingKey(b.Version)}, true)
	}
	for _, km := range b.Keys {
		s.unpending(now, km.Key, remotePendingID(b.Version), r)
	}
	delete(s.rwait, b.Version)
	r.Send(s.id, from, &pb.RemoteCommitAck{Clock: s.clock, Version: b.Version})
}

// remoteCommitAck completes t once every participant committed.
func (s *server) remoteCommitAck(now time.Duration, from protocol.NodeID, b *pb.RemoteCommitAck, r *protocol.Ready) {
	t := s.rcoord[b.Version]
	if t == nil || t.evt == 0 {
		return
	}
	t.acks[from] = true
	for _, ok := range t.acks {
		if !ok {
			return
		}
	}
	delete(s.rcoord, b.Version)
	r.Send(s.id, t.origin, &pb.RemoteTxnAck{Clock: s.clock, Version: b.Version})
}

// tickRemote retransmits dependency checks, prepares and commits.
func (s *server) tickRemote(now time.Duration, r *protocol.Ready) {
	for _, v := range slices.Sorted(maps.Keys(s.rcoord)) {
		t := s.rcoord[v]
		if !s.resendDue(now, &t.retry) {
			continue
		}
		if t.evt != 0 {
			for _, p := range slices.Sorted(maps.Keys(t.acks)) {
				if !t.acks[p] {
					r.Send(s.id, p, &pb.RemoteCommit{Clock: s.clock, Version: v, Evt: t.evt, Keys: t.parts[p]})
				}
			}
			continue
		}
		s.sendDepChecks(t, r)
		for _, p := range slices.Sorted(maps.Keys(t.parts)) {
			if !t.votes[p] {
				r.Send(s.id, p, &pb.RemotePrepare{Clock: s.clock, Version: v, Keys: t.parts[p]})
			}
		}
	}
}
