package k2

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/k2pb"
)

// server is one K2 storage server: a shard of its DC's keyspace, holding
// every key's metadata and the values of the keys its DC replicates.
type server struct {
	mode   Mode
	id     protocol.NodeID
	dc     string
	topo   *topology.Topology
	idx    uint64
	clock  uint64
	loaded *protocol.Dataset
	keys   map[string]*keyState
	cache  *lru

	// Local write-only transactions (wot.go).
	coord         map[string]*localTxn
	decided       map[string]*decidedTxn
	aborted       map[string]bool
	earlyYes      map[string]map[protocol.NodeID]bool
	cohortPending map[string]*cohortTxn

	// Replication (replicate.go, remote.go).
	out        map[uint64]*outTxn
	rcoord     map[uint64]*remoteTxn
	rwait      map[uint64]*prepareWait
	rprepared  map[uint64]*pb.Pending
	depWaiters map[string]map[protocol.NodeID]bool

	// Second rounds (read.go).
	fetches   map[uint64]*fetch
	nextFetch uint64
	inc       uint64

	ticking bool
	// resendLeft is what the current tick may still retransmit
	// (resendDue).
	resendLeft int
}

func newServer(mode Mode, cfg protocol.NodeConfig) *server {
	s := &server{mode: mode, id: cfg.ID, dc: cfg.ID.DC(), topo: cfg.Topology, idx: nodeIndex(cfg.Topology, cfg.ID),
		loaded: cfg.Loaded, keys: map[string]*keyState{},
		coord: map[string]*localTxn{}, decided: map[string]*decidedTxn{}, aborted: map[string]bool{},
		earlyYes: map[string]map[protocol.NodeID]bool{}, cohortPending: map[string]*cohortTxn{},
		out: map[uint64]*outTxn{}, rcoord: map[uint64]*remoteTxn{}, rwait: map[uint64]*prepareWait{},
		rprepared: map[uint64]*pb.Pending{}, depWaiters: map[string]map[protocol.NodeID]bool{},
		fetches: map[uint64]*fetch{}, inc: cfg.Incarnation}
	s.cache = newLRU(s.cacheCapacity(cfg.Loaded))
	if cfg.Incarnation <= 1 {
		s.prewarm(cfg.Loaded)
	}
	if cfg.Storage != nil {
		s.recover(cfg.Storage)
	}
	return s
}

// prewarm starts the cache as the warm-up d.Warm describes would have
// left it (bench.SimSpec.WarmReads, a deviation for the simulator only):
// reads with no write among them fetch each non-replica key's loaded
// value (version 0) and cache it, so an LRU fed by them holds the loaded
// values of the most recently read non-replica keys this server owns,
// least recently read the first to go. Only a first incarnation: a
// restarted server's cache is empty.
func (s *server) prewarm(d *protocol.Dataset) {
	if d == nil || len(d.Warm) == 0 || s.cache.cap <= 0 {
		return
	}
	var keys []string // most recently read first
	for i := len(d.Warm) - 1; i >= 0 && len(keys) < s.cache.cap; i-- {
		key := d.Key(d.Warm[i])
		if !s.replica(key) && owner(s.topo, s.dc, key) == s.id {
			keys = append(keys, key)
		}
	}
	for _, key := range slices.Backward(keys) {
		s.cache.put(key, 0, d.Value(key))
	}
}

// cacheCapacity is this server's share of the DC cache: the topology's
// placement.cache_fraction of the keys, else 5% (k2.txt §VII-B), over the
// DC's servers; none for PaRiS*.
func (s *server) cacheCapacity(d *protocol.Dataset) int {
	if s.mode.Paris {
		return 0
	}
	frac := DefaultCacheFraction
	if cf := s.topo.Placement.CacheFraction; cf > 0 {
		frac = cf
	}
	keys := float64(defaultCacheKeys) / DefaultCacheFraction
	if d != nil && d.Records > 0 {
		keys = float64(d.Records)
	}
	return max(1, int(keys*frac)/max(1, s.topo.Servers(s.dc)))
}

// state returns key's state, created on first use.
func (s *server) state(key string) *keyState {
	k := s.keys[key]
	if k == nil {
		k = newKeyState()
		s.keys[key] = k
	}
	return k
}

// replica reports whether this server's DC stores key's value.
func (s *server) replica(key string) bool { return isReplica(s.topo, s.dc, key) }

// now returns a fresh timestamp of this server's Lamport clock.
func (s *server) tick() uint64 {
	s.clock++
	return stamp(s.clock, s.idx)
}

// nowTS is the server's current logical time, without advancing it.
func (s *server) nowTS() uint64 { return stamp(s.clock, s.idx) }

// observe advances the clock past a received clock value.
func (s *server) observe(c uint64) { s.clock = max(s.clock, c) + 1 }

// clocked is every message of K2 (they all carry the sender's clock).
type clocked interface{ GetClock() uint64 }

// Start implements protocol.Node: resume what recovery found.
func (s *server) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	for _, txn := range slices.Sorted(maps.Keys(s.decided)) {
		d := s.decided[txn]
		d.retry = protocol.SentAt(now - resendAfter)
	}
	for _, v := range slices.Sorted(maps.Keys(s.out)) {
		s.out[v].started = now
		s.replicateStep(now, s.out[v], true, &r)
	}
	s.armTimer(&r)
	return r
}

func (s *server) armTimer(r *protocol.Ready) {
	if !s.ticking && s.busy() {
		s.ticking = true
		r.SetTimer(tickEvery, 0)
	}
}

// busy reports whether anything waits for a retransmission or a timeout.
func (s *server) busy() bool {
	return len(s.coord) > 0 || len(s.decided) > 0 || len(s.cohortPending) > 0 || len(s.out) > 0 ||
		len(s.rcoord) > 0 || len(s.rprepared) > 0 || len(s.fetches) > 0
}

// resendDue reports whether a retransmission with retry is due at now
// and within this tick's budget, and then takes it from the budget. It
// paces replication (the origin's phases 1 and 2, the remote
// coordinator's checks, prepares and commits); a local transaction's
// Commit and Status are not paced, since its pending marks hold up
// second rounds. The ticks go through their records oldest first, so a
// backlog is retransmitted in the order it can commit in. The budget
// keeps retransmissions from outgrowing what the receivers can serve:
// after a partition heals, thousands of transactions are unacknowledged
// because the receiving DC is still working through its queue, not
// because their messages were lost, and resending each of them every
// maxBackoff (each resend costing the receiver service time) kept that
// queue longer than maxBackoff for good — the run never went quiet.
func (s *server) resendDue(now time.Duration, retry *protocol.Retry) bool {
	if s.resendLeft <= 0 || !retry.Due(now, resendAfter, maxBackoff) {
		return false
	}
	s.resendLeft--
	return true
}

// Tick implements protocol.Node.
func (s *server) Tick(now time.Duration, _ uint64) protocol.Ready {
	var r protocol.Ready
	s.ticking = false
	s.resendLeft = resendPerTick
	s.tickWOT(now, &r)
	s.tickReplication(now, &r)
	s.tickRemote(now, &r)
	s.tickFetches(now, &r)
	s.armTimer(&r)
	return r
}

// Step implements protocol.Node.
func (s *server) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	if c, ok := m.Body.(clocked); ok {
		s.observe(c.GetClock())
	}
	switch b := m.Body.(type) {
	case *pb.ReadReq:
		s.read(now, m.From, b, &r)
	case *pb.ReadAtReq:
		s.readAt(now, &readAt{from: m.From, req: b}, &r)
	case *pb.Fetch:
		s.serveFetch(m.From, b, &r)
	case *pb.FetchReply:
		s.fetched(now, b, &r)
	case *pb.WriteReq:
		s.writeReq(now, m.From, b, &r)
	case *pb.Yes:
		s.yes(now, m.From, b, &r)
	case *pb.Commit:
		s.commitCohort(now, m.From, b, &r)
	case *pb.CommitAck:
		s.commitAck(now, m.From, b, &r)
	case *pb.Abort:
		s.abortCohort(m.From, b, &r)
	case *pb.Status:
		s.status(m.From, b, &r)
	case *pb.Replicated:
		s.replicated(b)
	case *pb.Phase1:
		s.phase1(now, m.From, b, &r)
	case *pb.Phase1Ack:
		s.phase1Ack(now, m.From, b, &r)
	case *pb.RemoteTxnAck:
		s.remoteTxnAck(now, m.From, b, &r)
	case *pb.RemoteTxn:
		s.remoteTxn(now, m.From, b, &r)
	case *pb.RemotePrepare:
		s.remotePrepare(now, m.From, b.Version, b.Keys, &r)
	case *pb.RemotePrepared:
		s.remotePrepared(now, m.From, b, &r)
	case *pb.RemoteCommit:
		s.remoteCommit(now, m.From, b, &r)
	case *pb.RemoteCommitAck:
		s.remoteCommitAck(now, m.From, b, &r)
	case *pb.DepCheck:
		s.depCheck(m.From, b, &r)
	case *pb.DepOK:
		s.depOK(now, b, &r)
	}
	s.armTimer(&r)
	return r
}

// apply commits version ver of key with EVT evt at this server (k2.txt
// §IV-A, "Applying writes"): a replica stores the value of every version,
// a non-replica only the metadata (and pins the value of a local write);
// the version is visible to local reads from evt on if it is the newest.
func (s *server) apply(now time.Duration, key string, ver, evt uint64, value []byte, hasValue bool, replicas []string, pin bool, r *protocol.Ready) {
	k := s.state(key)
	if _, done := k.done[ver]; done {
		return
	}
	k.done[ver] = evt
	st := &pb.Stored{Evt: evt, Replicas: replicas}
	if s.replica(key) {
		if !hasValue {
			value = k.incoming[ver]
		}
		if ver > k.maxVer {
			for v, old := range k.values {
				if v < ver && old.supersededAt == 0 {
					old.supersededAt = now
				}
			}
			k.values[ver] = &stored{value: value}
		} else {
			k.values[ver] = &stored{value: value, supersededAt: now}
		}
		st.Value, st.HasValue = value, true
		if _, ok := k.incoming[ver]; ok {
			delete(k.incoming, ver)
			r.Write(storage.Write{Kind: storage.Delete, Key: incomingKey(key, ver)}, true)
		}
	} else {
		if len(replicas) > 0 {
			k.replicas[ver] = replicas
		}
		if pin && hasValue {
			k.pinned[ver] = value
			st.Value, st.HasValue = value, true
		}
	}
	r.Write(storage.Write{Kind: storage.Put, Key: "v/" + depKey(key, ver), Value: marshal(st)}, true)
	if k.insert(ver, evt, now) {
		if s.replica(key) {
			r.VisibleVersion(key, value, ver)
		} else {
			r.VisibleVersion(key, nil, ver)
		}
	}
	k.gc(now)
	dk := depKey(key, ver)
	for _, from := range slices.Sorted(maps.Keys(s.depWaiters[dk])) {
		r.Send(s.id, from, &pb.DepOK{Clock: s.clock, Dep: &pb.Dep{Key: key, Version: ver}})
	}
	delete(s.depWaiters, dk)
}

// unpending removes a transaction's pending mark on key and serves the
// second rounds that waited for it.
func (s *server) unpending(now time.Duration, key, txn string, r *protocol.Ready) {
	k := s.keys[key]
	if k == nil {
		return
	}
	delete(k.pending, txn)
	waiting := k.waiting
	k.waiting = nil
	for _, w := range waiting {
		s.readAt(now, w, r)
	}
}

func depKey(key string, ver uint64) string { return key + "@" + strconv.FormatUint(ver, 16) }

func incomingKey(key string, ver uint64) string { return "i/" + depKey(key, ver) }

func marshal(m proto.Message) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err) // generated messages always marshal
	}
	return b
}

// Replicas implements protocol.Inspector: the visible value of every key
// this server's DC replicates.
func (s *server) Replicas(fn func(key string, value []byte)) {
	for _, key := range slices.Sorted(maps.Keys(s.keys)) {
		if !s.replica(key) {
			continue
		}
		k := s.keys[key]
		seg, ok := k.at(^uint64(0))
		if !ok || seg.ver == 0 {
			continue // the initial state, reported by no replica
		}
		fn(key, k.values[seg.ver].value)
	}
}
