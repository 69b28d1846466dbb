package chain

import (
	"encoding/binary"
	"maps"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// Timing of the server's retransmissions.
const (
	// ResendEvery is how often a node retransmits its unstable versions to
	// its successor, a joining node its Join or JoinDone, and a session
	// its outstanding request.
	ResendEvery = 300 * time.Millisecond
	// suspectAfter is how many retransmission periods without a word
	// from its successor make a node that retransmits to it report it to
	// the master (the congested successor of a busy chain keeps sending
	// acknowledgements, a crashed one does not).
	suspectAfter = 3
	// maxResendWait caps a version's retransmission backoff: its first
	// retransmission comes ResendEvery after the send, each next one
	// twice as late.
	maxResendWait = 8 * ResendEvery
	// resendPerTick bounds the versions a server retransmits per tick.
	resendPerTick = 32
)

// Timer tokens of a server.
const (
	tokResend uint64 = 1
)

// epochBits is how many low bits of a version hold the epoch of the view
// under which the head assigned it, so that a new head never reuses a
// version its failed predecessor assigned (a head-failure repair,
// chainreaction.txt §3.7).
const epochBits = 20

// MakeVersion builds a version from a counter and an epoch.
func MakeVersion(counter, epoch uint64) uint64 {
	return counter<<epochBits | epoch&(1<<epochBits-1)
}

// ver is one stored version of a key.
type ver struct {
	v     uint64
	value []byte
	// geo is the put's geo-replication metadata (nil when unknown: a
	// version recovered from disk, shipped as depending on everything).
	geo *pb.Geo
	// seq is the number the DC's sequencer gave the put (0: none, or
	// unknown; txn.go).
	seq uint64
}

// item is a server's state for one key.
type item struct {
	// versions ascending: the newest version at or below kacked and every
	// newer one.
	versions []ver
	stable   uint64 // highest version known DC-Write-Stable
	kacked   uint64 // highest version node k acknowledged
	// pushed is the version pushed to a new successor after a view change
	// and not yet acknowledged by it (PushAck; 0: none).
	pushed uint64
	// pushedUp is the version sent up to a new predecessor (a catch-up)
	// and not yet acknowledged by it (0: none).
	pushedUp uint64
	// retries counts retransmissions since the last StableAck (a round
	// trip is sampled only without one).
	retries int
	// retry and upRetry pace the retransmissions down the chain (an
	// unstable version, a push) and up it (a catch-up).
	retry, upRetry protocol.Retry
	// sentV is the newest version sent down the chain, at sentAt.
	sentV  uint64
	sentAt time.Duration
	// dropped says older versions than the first kept were dropped (or
	// never received: a recovered or pushed state), so that a
	// get-transaction's snapshot below them cannot be served (txn.go).
	dropped bool
	// kwait are reads waiting for node k's acknowledgement (kwait.go).
	kwait []kwaiter
	// geoItem is the state of geo-replication (geo.go).
	geoItem
}

func (it *item) latest() ver {
	if len(it.versions) == 0 {
		return ver{}
	}
	return it.versions[len(it.versions)-1]
}

// upTo is the newest version at or below v.
func (it *item) upTo(v uint64) ver {
	for i := len(it.versions) - 1; i >= 0; i-- {
		if it.versions[i].v <= v {
			return it.versions[i]
		}
	}
	return ver{}
}

// holds says whether version v is among the versions it keeps.
func (it *item) holds(v uint64) bool {
	for _, x := range it.versions {
		if x.v == v {
			return true
		}
	}
	return false
}

func (it *item) add(x ver) bool {
	if x.v <= it.latest().v {
		return false
	}
	it.versions = append(it.versions, x)
	return true
}

// trim drops versions no read can be served anymore.
func (it *item) trim() {
	floor := min(it.kacked, it.stable)
	floor = max(floor, it.stable)
	i := 0
	for i+1 < len(it.versions) && it.versions[i+1].v <= floor {
		i++
	}
	it.dropped = it.dropped || i > 0
	it.versions = it.versions[i:]
}

type reqRec struct {
	req     uint64
	key     string
	version uint64
}

type waiter struct {
	from protocol.NodeID
	msg  *pb.Stabilize
}

// server is one chain-replication storage server.
type server struct {
	id     protocol.NodeID
	inc    uint64
	layout *Layout
	loaded *protocol.Dataset

	view   *View
	joined bool // the view lists this incarnation
	// syncedFrom holds, per epoch, the servers that sent Synced.
	syncedFrom map[uint64]map[protocol.NodeID]bool
	synced     bool // every live server sent Synced for view.Epoch

	items   map[string]*item
	lastReq map[string]reqRec
	waiters map[string][]waiter
	ticking bool
	// dirty says some version may be unstable here (retransmissions due).
	dirty bool
	// pushes counts this epoch's unacknowledged pushes to new successors.
	pushes int
	asked  uint64 // the epoch last asked of the master
	// clock is the node's clock in µs at the last put: a head's versions
	// are at least its clock, so that a head that lost state (a restart, a
	// repaired chain) still orders new writes after old ones.
	clock uint64
	// heard holds the sessions that sent this node a request since it
	// started: the only ones it can answer directly (ARCHITECTURE.md
	// "Replies to sessions").
	heard map[protocol.NodeID]bool
	// now is the time of the input being handled.
	now time.Duration
	// heardAt is when each server last sent this one anything: a
	// successor that answers other messages is congested, not dead.
	heardAt map[protocol.NodeID]time.Duration
	// resendLeft is what the current tick may still retransmit.
	resendLeft int
	// rtt is, per successor, the estimated time from sending a version
	// down the chain to its StableAck, measured on versions never
	// retransmitted: under load the chain's queues make it longer than
	// ResendEvery, and a retransmission would only queue again behind the
	// original.
	rtt map[protocol.NodeID]*rttEstimate
}

func newServer(l *Layout, cfg protocol.NodeConfig) *server {
	s := &server{id: cfg.ID, inc: cfg.Incarnation, layout: l, loaded: cfg.Loaded,
		syncedFrom: map[uint64]map[protocol.NodeID]bool{}, heard: map[protocol.NodeID]bool{},
		heardAt: map[protocol.NodeID]time.Duration{}, rtt: map[protocol.NodeID]*rttEstimate{},
		items: map[string]*item{}, lastReq: map[string]reqRec{}, waiters: map[string][]waiter{}}
	if cfg.Storage != nil {
		_ = cfg.Storage.Scan("q/", func(rec storage.Record) error {
			var u pb.Update
			if proto.Unmarshal(rec.Value, &u) == nil {
				s.lastReq[rec.Key[2:]] = reqRec{req: u.ReqId, key: u.Key, version: u.Version}
			}
			return nil
		})
		_ = cfg.Storage.Scan("d/", func(rec storage.Record) error {
			it := s.get(rec.Key[2:])
			if rec.Version > it.latest().v {
				// Recovered versions are served as they are; whether they
				// are stable is learnt again from the tail.
				it.versions = []ver{{v: rec.Version, value: rec.Value}}
				it.kacked = rec.Version
				it.dropped = true
			}
			return nil
		})
		_ = cfg.Storage.Scan("n/", func(rec storage.Record) error {
			if it := s.items[rec.Key[2:]]; it != nil && len(rec.Value) == 8 && it.latest().v == rec.Version {
				it.versions[len(it.versions)-1].seq = binary.BigEndian.Uint64(rec.Value)
			}
			return nil
		})
	}
	return s
}

// remember records, durably, the last put of client seen here, so that a
// retransmission is recognised even after a restart.
func (s *server) remember(client string, rec reqRec, r *protocol.Ready) {
	if client == "" {
		return
	}
	if old, ok := s.lastReq[client]; ok && old.req > rec.req {
		return
	}
	s.lastReq[client] = rec
	data, err := proto.Marshal(&pb.Update{Key: rec.key, Version: rec.version, ReqId: rec.req})
	if err != nil {
		panic(err)
	}
	r.Write(storage.Write{Kind: storage.Put, Key: "q/" + client, Value: data}, true)
}

// seenFor lists the last puts of key known here, by client.
func (s *server) seenFor(key string) []*pb.Seen {
	var out []*pb.Seen
	for _, c := range slices.Sorted(maps.Keys(s.lastReq)) {
		if rec := s.lastReq[c]; rec.key == key {
			out = append(out, &pb.Seen{Client: c, ReqId: rec.req, Version: rec.version})
		}
	}
	return out
}

// persist makes x durable (synced before the Ready's messages), with its
// sequence number when its counter does not stand for it (seqOf: a
// remote version's, which a restarted head needs to serve
// get-transactions).
func persist(key string, x ver, r *protocol.Ready) {
	r.Write(storage.Write{Kind: storage.Put, Key: "d/" + key, Version: x.v, Value: x.value}, true)
	r.Write(storage.Write{Kind: storage.DeleteBelow, Key: "d/" + key, Version: x.v}, true)
	if x.seq != 0 && x.seq != x.v>>epochBits {
		r.Write(storage.Write{Kind: storage.Put, Key: "n/" + key, Version: x.v, Value: binary.BigEndian.AppendUint64(nil, x.seq)}, true)
		r.Write(storage.Write{Kind: storage.DeleteBelow, Key: "n/" + key, Version: x.v}, true)
	}
}

// Replicas implements protocol.Inspector.
func (s *server) Replicas(fn func(key string, value []byte)) {
	for _, k := range slices.Sorted(maps.Keys(s.items)) {
		if l := s.items[k].latest(); l.v > 0 {
			fn(k, l.value)
		}
	}
}

// Start implements protocol.Node. A server's state is in memory only
// (fail-stop, as in chain replication): the first incarnation starts as a
// member of the initial view; a restarted one asks the master to join.
func (s *server) Start(time.Duration) protocol.Ready {
	var r protocol.Ready
	if s.inc <= 1 {
		s.view, s.joined, s.synced = s.layout.InitialView(), true, true
	} else {
		s.view = &View{Members: map[protocol.NodeID]MemberState{}}
		r.Send(s.id, s.layout.Master(), &pb.Join{Incarnation: s.inc})
	}
	s.arm(&r, true)
	return r
}

func (s *server) arm(r *protocol.Ready, force bool) {
	if s.ticking {
		return
	}
	if force || s.needsTick() {
		s.ticking = true
		r.SetTimer(ResendEvery, tokResend)
	}
}

func (s *server) needsTick() bool {
	if !s.joined || !s.synced || s.view.Members[s.id].Joining {
		return true
	}
	return s.dirty
}

func (s *server) chain(key string) ([]protocol.NodeID, int, int) {
	c, full := s.layout.ChainFor(s.view, key, s.id.DC())
	return c, full, Index(c, s.id)
}

func (s *server) get(key string) *item {
	it := s.items[key]
	if it == nil {
		it = &item{}
		s.items[key] = it
	}
	return it
}

// resendDue reports whether a retransmission paced by retry may go now:
// its backoff has passed (protocol.Retry: ResendEvery, doubling up to
// maxResendWait) and this tick has not retransmitted resendPerTick
// versions yet. Unpaced, a congested successor's queue grew with every
// tick's retransmission of every unstable version, past the master's
// ping timeout: live servers were removed, rejoined and removed again,
// and FAWN-KV at 200 threads never converged.
func (s *server) resendDue(retry *protocol.Retry, to protocol.NodeID) bool {
	first := s.rto(to)
	if s.resendLeft <= 0 || !retry.Due(s.now, first, max(maxResendWait, first)) {
		return false
	}
	s.resendLeft--
	return true
}

// rto is the wait before a version's first retransmission to successor
// to (its rttEstimate; ResendEvery before any sample).
func (s *server) rto(to protocol.NodeID) time.Duration {
	if e := s.rtt[to]; e != nil {
		return e.rto()
	}
	return ResendEvery
}

// sampleRTT folds one round trip to successor n into its estimate.
func (s *server) sampleRTT(n protocol.NodeID, rtt time.Duration) {
	e := s.rtt[n]
	if e == nil {
		e = &rttEstimate{}
		s.rtt[n] = e
	}
	e.sample(rtt)
}

// silent reports whether n sent this server nothing for suspectAfter
// retransmission periods.
func (s *server) silent(n protocol.NodeID) bool {
	return s.now-s.heardAt[n] >= suspectAfter*ResendEvery
}

// Tick implements protocol.Node: retransmissions.
func (s *server) Tick(now time.Duration, _ uint64) protocol.Ready {
	var r protocol.Ready
	s.ticking = false
	s.now = now
	s.resendLeft = resendPerTick
	if !s.joined {
		r.Send(s.id, s.layout.Master(), &pb.Join{Incarnation: s.inc})
		s.arm(&r, true)
		return r
	}
	if m := s.view.Members[s.id]; m.Joining && s.synced {
		r.Send(s.id, s.layout.Master(), &pb.JoinDone{Epoch: s.view.Epoch, Incarnation: s.inc})
	}
	if !s.synced {
		for _, n := range s.missingSynced() {
			r.Send(s.id, n, &pb.Synced{Epoch: s.view.Epoch, Request: true})
		}
	}
	suspected := map[protocol.NodeID]bool{}
	s.dirty = false
	for _, k := range slices.Sorted(maps.Keys(s.items)) {
		it := s.items[k]
		l := it.latest()
		if it.pushedUp != 0 {
			if c, _, i := s.chain(k); i > 0 {
				s.dirty = true
				if s.resendDue(&it.upRetry, c[i-1]) {
					r.Send(s.id, c[i-1], &pb.Update{Key: k, Version: l.v, Value: l.value, Epoch: s.view.Epoch, Up: true, Seen: s.seenFor(k), Push: true, Geo: l.geo, Seq: s.wireSeq(l)})
				}
			} else {
				it.pushedUp = 0
				s.pushDone(&r)
			}
		}
		if s.shipTick(k, it, &r) {
			s.dirty = true
		}
		if l.v <= it.stable && it.pushed == 0 {
			continue
		}
		c, full, i := s.chain(k)
		if i < 0 || i == len(c)-1 {
			if it.pushed != 0 {
				it.pushed = 0
				s.pushDone(&r)
			}
			// No longer this node's to propagate (it left the chain, or
			// is its tail, which marks what it applies stable).
			continue
		}
		s.dirty = true
		next := c[i+1]
		if !suspected[next] && s.silent(next) && s.now-it.sentAt >= ResendEvery {
			suspected[next] = true
			r.Send(s.id, s.layout.Master(), &pb.Suspect{Node: string(next), Epoch: s.view.Epoch})
		}
		if !s.resendDue(&it.retry, next) {
			continue
		}
		it.retries++
		r.Send(s.id, next, &pb.Update{Key: k, Version: l.v, Value: l.value, Lazy: i+1 > s.layout.ReplyIndex(c, full), Epoch: s.view.Epoch, Seen: s.seenFor(k), Push: it.pushed != 0, Geo: l.geo, Seq: s.wireSeq(l),
			Unshipped: s.unshipped(it, l.v)})
	}
	s.arm(&r, false)
	return r
}

func (s *server) missingSynced() []protocol.NodeID {
	var out []protocol.NodeID
	got := s.syncedFrom[s.view.Epoch]
	for _, n := range slices.Sorted(maps.Keys(s.view.Members)) {
		if n != s.id && !got[n] && s.syncsWith(n) {
			out = append(out, n)
		}
	}
	return out
}

// Step implements protocol.Node.
func (s *server) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	s.now = now
	s.heardAt[m.From] = now
	m = s.hear(m)
	if s.relay(m.Body, &r) {
		return r
	}
	if v, ok := m.Body.(*pb.View); ok {
		s.adopt(FromWire(v), &r)
		r.Send(s.id, m.From, &pb.ViewAck{Epoch: v.Epoch})
		s.arm(&r, false)
		return r
	}
	if !s.joined {
		return r
	}
	switch b := m.Body.(type) {
	case *pb.Announce: // recorded by hear
	case *pb.ViewRequest:
		// A session of this DC starting (Client.Fetch): the master may
		// be a wide-area round trip away.
		r.Send(s.id, m.From, s.view.ToWire())
	case *pb.Ping:
		r.Send(s.id, m.From, &pb.Pong{Nonce: b.Nonce, Incarnation: s.inc})
	case *pb.Synced:
		s.onSynced(m.From, b, &r)
	case *pb.Put:
		s.put(now, b, 0, &r)
	case *pb.SeqPut:
		s.seqPut(now, b, &r)
	case *pb.HeadRead:
		s.headRead(m.From, b, &r)
	case *pb.Update:
		s.update(m.From, b, &r)
	case *pb.StableAck:
		s.stableAck(b.Key, b.Version, &r)
	case *pb.KAck:
		s.kAck(b.Key, b.Version, &r)
	case *pb.PushAck:
		it := s.items[b.Key]
		if it == nil || b.Epoch != s.view.Epoch {
			break
		}
		if it.pushed != 0 && b.Version >= it.pushed && s.successor(b.Key) == m.From {
			it.pushed = 0
			s.pushDone(&r)
		}
		if it.pushedUp != 0 && b.Version >= it.pushedUp && s.predecessor(b.Key) == m.From {
			it.pushedUp = 0
			s.pushDone(&r)
		}
	case *pb.Get:
		s.read(b, &r)
	case *pb.Stabilize:
		s.stabilize(m.From, b, &r)
	case *pb.ShipAck:
		s.shipAck(b, &r)
	case *pb.GlobalStable:
		s.globalStable(b.Key, b.Version, &r)
	}
	s.arm(&r, false)
	return r
}

// adopt installs a newer view: every server pushes the newest version of
// each key whose successor changed (state transfer to a new tail, §3.7's
// retransmission to a middle node's successor), takes over the duties of
// a new tail or node k, and tells every other server it is done (Synced).
func (s *server) adopt(v *View, r *protocol.Ready) {
	if v.Epoch <= s.view.Epoch && s.joined {
		return
	}
	me, in := v.Members[s.id]
	if !in || me.Incarnation != s.inc {
		if s.joined && v.Epoch > s.view.Epoch {
			// Removed while alive (a false suspicion): start over as a
			// new, empty server that joins at the tail.
			s.inc++ // a fresh identity for the master
			clear(s.items)
			clear(s.lastReq)
			clear(s.waiters)
			s.joined = false
			s.view = v
			r.Send(s.id, s.layout.Master(), &pb.Join{Incarnation: s.inc})
		}
		return
	}
	old := s.view
	s.view, s.joined, s.synced, s.dirty = v, true, false, true
	s.pushes = 0
	for e := range s.syncedFrom {
		if e < v.Epoch {
			delete(s.syncedFrom, e)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.items)) {
		it := s.items[k]
		l := it.latest()
		if l.v == 0 {
			continue
		}
		c, full, i := s.chain(k)
		if i < 0 {
			continue
		}
		oc, _ := s.layout.Chain(old, k)
		oi := Index(oc, s.id)
		ri := s.layout.ReplyIndex(c, full)
		upUnacked := it.pushedUp != 0
		it.pushedUp = 0
		if i > 0 && (upUnacked || oi <= 0 || !same(old, v, oc[oi-1], c[i-1])) {
			// A new predecessor (a promoted or new head) may lack what
			// this node holds: catch it up, until acknowledged.
			it.pushedUp = l.v
			it.upRetry = protocol.SentAt(s.now)
			s.pushes++
			r.Send(s.id, c[i-1], &pb.Update{Key: k, Version: l.v, Value: l.value, Epoch: v.Epoch, Up: true, Seen: s.seenFor(k), Push: true, Geo: l.geo, Seq: s.wireSeq(l)})
		}
		// A push still unacknowledged from an earlier view is pushed again.
		unacked := it.pushed != 0
		it.pushed = 0
		if i+1 < len(c) && (unacked || oi < 0 || oi+1 >= len(oc) || !same(old, v, oc[oi+1], c[i+1])) {
			// Acknowledged by a PushAck; retransmitted until.
			it.pushed = l.v
			it.retry = protocol.SentAt(s.now)
			s.pushes++
			r.Send(s.id, c[i+1], &pb.Update{Key: k, Version: l.v, Value: l.value, Lazy: i+1 > ri, Epoch: v.Epoch, Seen: s.seenFor(k), Push: true, Geo: l.geo, Seq: s.wireSeq(l),
				Unshipped: s.unshipped(it, l.v)})
		}
		if i == ri && i > 0 {
			it.kacked = max(it.kacked, l.v)
			r.Send(s.id, c[i-1], &pb.KAck{Key: k, Version: it.kacked})
		}
		if i == len(c)-1 {
			s.atTail(k, it, c, i, r)
		}
	}
	if s.pushes == 0 {
		s.announce(r)
	}
	s.checkSynced(r)
	s.rereadK(r)
}

// same reports whether a in view old and b in view v are the same server
// with the same state: a restarted (or wiped and rejoined) server is a new
// incarnation that must be sent its state again.
func same(old, v *View, a, b protocol.NodeID) bool {
	return a == b && old.Members[a].Incarnation == v.Members[b].Incarnation
}

// predecessor is the node before this one in key's chain ("" if none).
func (s *server) predecessor(key string) protocol.NodeID {
	c, _, i := s.chain(key)
	if i <= 0 {
		return ""
	}
	return c[i-1]
}

// successor is the node after this one in key's chain ("" if none).
func (s *server) successor(key string) protocol.NodeID {
	c, _, i := s.chain(key)
	if i < 0 || i+1 >= len(c) {
		return ""
	}
	return c[i+1]
}

// announce tells every other server that this one's state transfer for
// the current epoch is complete (every push acknowledged).
func (s *server) announce(r *protocol.Ready) {
	for _, n := range slices.Sorted(maps.Keys(s.view.Members)) {
		if n != s.id && s.syncsWith(n) {
			r.Send(s.id, n, &pb.Synced{Epoch: s.view.Epoch})
		}
	}
}

// pushDone counts one acknowledged push.
func (s *server) pushDone(r *protocol.Ready) {
	if s.pushes == 0 {
		return
	}
	s.pushes--
	if s.pushes == 0 {
		s.announce(r)
	}
}

func (s *server) onSynced(from protocol.NodeID, b *pb.Synced, r *protocol.Ready) {
	if b.Epoch > s.view.Epoch && s.asked < b.Epoch {
		s.asked = b.Epoch
		r.Send(s.id, s.layout.Master(), &pb.ViewRequest{Epoch: s.view.Epoch})
	}
	if b.Request && b.Epoch == s.view.Epoch && s.pushes == 0 {
		r.Send(s.id, from, &pb.Synced{Epoch: b.Epoch})
	}
	if b.Epoch < s.view.Epoch {
		return
	}
	if s.syncedFrom[b.Epoch] == nil {
		s.syncedFrom[b.Epoch] = map[protocol.NodeID]bool{}
	}
	s.syncedFrom[b.Epoch][from] = true
	s.checkSynced(r)
}

func (s *server) checkSynced(r *protocol.Ready) {
	if s.synced || len(s.missingSynced()) > 0 {
		return
	}
	s.synced = true
	if s.view.Members[s.id].Joining {
		r.Send(s.id, s.layout.Master(), &pb.JoinDone{Epoch: s.view.Epoch, Incarnation: s.inc})
	}
}

// put handles a client's put at the head: assign a version (or recognise a
// retransmission by its request id) and start eager propagation. seq is
// the put's sequence number when the sequencer numbered it (§5): it is
// then the version's counter.
func (s *server) put(now time.Duration, b *pb.Put, seq uint64, r *protocol.Ready) {
	s.clock = uint64(max(now, 0) / time.Microsecond)
	c, full, i := s.chain(b.Key)
	if len(c) == 0 {
		return
	}
	if i != 0 {
		r.Send(s.id, c[0], b)
		return
	}
	if b.Geo.GetRemoteVersion() != 0 {
		s.remotePut(b, seq, c, full, i, r)
		return
	}
	it := s.get(b.Key)
	if rec, ok := s.lastReq[b.Client]; ok && b.ReqId < rec.req {
		// A late copy of a put the client has finished with (it has one
		// put outstanding at a time, with increasing ids): executing it
		// now would order it after the client's later puts.
		return
	}
	if rec, ok := s.lastReq[b.Client]; ok && rec.req == b.ReqId && rec.key == b.Key {
		// A retransmission (§3.7: the proxy retransmits after a failure):
		// the same version again, or an answer if it was superseded.
		if s.layout.Geo && rec.version < it.latest().v && (it.stable >= rec.version || !it.holds(rec.version)) {
			// Under Geo it may have been a late put, never stored nor
			// shipped: answered as latePut answers it (needlessly for one
			// that was shipped, which only keeps the session's
			// dependencies longer).
			s.supersededReply(b, it, c, full, r)
			return
		}
		if it.stable >= rec.version {
			// Applied by the whole chain: the put is done.
			s.toClient(b.Client, b.Entry, &pb.PutReply{ReqId: b.ReqId, Key: b.Key, Version: rec.version,
				ChainIndex: uint32(s.layout.ReplyIndex(c, full))}, r)
			return
		}
		for _, x := range it.versions {
			if x.v == rec.version {
				if x.v == it.latest().v && s.now-it.sentAt < s.rto(s.successor(b.Key)) {
					// Sent down the chain within a round trip: the
					// retransmission would only queue behind it (the
					// session asks again, and the put is answered here
					// once stable).
					return
				}
				s.apply(b.Key, x, b.Client, b.Entry, b.ReqId, true, c, full, i, r)
				return
			}
		}
		if it.latest().v >= rec.version {
			// Overwritten before it was stored (a late put) or collected.
			s.toClient(b.Client, b.Entry, &pb.PutReply{ReqId: b.ReqId, Key: b.Key, Version: rec.version}, r)
		}
		return
	}
	counter := max(it.latest().v>>epochBits, b.MinVersion>>epochBits, s.clock) + 1
	if seq > b.MinVersion>>epochBits {
		counter = seq
	}
	x := ver{v: s.newVersion(counter), value: b.Value, geo: b.Geo, seq: seq}
	if !it.add(x) {
		s.latePut(b, x, c, full, r)
		return
	}
	persist(b.Key, x, r)
	r.VisibleVersion(b.Key, x.value, x.v)
	s.remember(b.Client, reqRec{req: b.ReqId, key: b.Key, version: x.v}, r)
	s.apply(b.Key, x, b.Client, b.Entry, b.ReqId, true, c, full, i, r)
}

// update handles a version propagated by the predecessor.
func (s *server) update(from protocol.NodeID, b *pb.Update, r *protocol.Ready) {
	if b.Epoch != s.view.Epoch {
		if b.Epoch < s.view.Epoch {
			// The sender has not seen this view (it may have been
			// removed behind a partition): tell it.
			r.Send(s.id, from, s.view.ToWire())
		}
		if b.Epoch > s.view.Epoch && s.asked < b.Epoch {
			s.asked = b.Epoch
			r.Send(s.id, s.layout.Master(), &pb.ViewRequest{Epoch: s.view.Epoch})
		}
		return // the sender retransmits in the new epoch
	}
	c, full, i := s.chain(b.Key)
	if i < 0 || (b.Up && (i+1 >= len(c) || c[i+1] != from)) || (!b.Up && (i == 0 || c[i-1] != from)) {
		return
	}
	it := s.get(b.Key)
	s.addUnshipped(b, it, r)
	x := ver{v: b.Version, value: b.Value, geo: b.Geo, seq: b.Seq}
	if it.add(x) {
		persist(b.Key, x, r)
		r.VisibleVersion(b.Key, x.value, x.v)
	} else if n := len(it.versions); n > 0 && it.versions[n-1].v == x.v && it.versions[n-1].seq == 0 {
		// A version recovered without its number learns it again.
		it.versions[n-1].seq = x.seq
	}
	if b.Push || b.Up {
		it.dropped = true // a push carries the newest version only
	}
	s.remember(b.Client, reqRec{req: b.ReqId, key: b.Key, version: b.Version}, r)
	for _, x := range b.Seen {
		s.remember(x.Client, reqRec{req: x.ReqId, key: b.Key, version: x.Version}, r)
	}
	if b.Push {
		r.Send(s.id, from, &pb.PushAck{Key: b.Key, Version: it.latest().v, Epoch: b.Epoch})
	}
	s.apply(b.Key, x, b.Client, b.Entry, b.ReqId, b.Reply, c, full, i, r)
}

// apply runs a node's duties for version x at chain index i: answer the
// client at node k, acknowledge k and stability upward, propagate down.
func (s *server) apply(key string, x ver, client, entry string, req uint64, reply bool, c []protocol.NodeID, full, i int, r *protocol.Ready) {
	it := s.get(key)
	s.dirty = true
	ri := s.layout.ReplyIndex(c, full)
	if i == ri {
		if reply && client != "" && !s.deferReply(key, it, x, client, entry, req) {
			s.toClient(client, entry, &pb.PutReply{ReqId: req, Key: key, Version: x.v, ChainIndex: uint32(i)}, r)
		}
		if x.v > it.kacked {
			it.kacked = x.v
			if i > 0 && i < len(c)-1 { // a tail's StableAck says as much
				r.Send(s.id, c[i-1], &pb.KAck{Key: key, Version: x.v})
			}
		}
	}
	if i == len(c)-1 {
		s.atTail(key, it, c, i, r)
		return
	}
	if it.stable >= x.v {
		// Already stable downstream: a retransmission after a repair.
		if reply && client != "" && i < ri {
			// Applied by the whole chain: the put is done (as the head
			// answers a retransmission of a stable put).
			s.toClient(client, entry, &pb.PutReply{ReqId: req, Key: key, Version: x.v, ChainIndex: uint32(ri)}, r)
		}
		if i > 0 {
			r.Send(s.id, c[i-1], &pb.StableAck{Key: key, Version: it.stable})
		}
		return
	}
	u := &pb.Update{Key: key, Version: x.v, Value: x.value, Client: client, ReqId: req,
		Reply: reply && i < ri, Lazy: i+1 > ri, Epoch: s.view.Epoch, Geo: x.geo, Seq: s.wireSeq(x),
		Unshipped: s.unshipped(it, x.v)}
	if u.Reply {
		u.Entry = entry // where node k's PutReply may have to go
	}
	if x.v != it.sentV {
		// A new version (not a retransmission's copy, which must not
		// restart the backoff or the wait for the successor's answer).
		it.sentV, it.sentAt = x.v, s.now
		it.retry = protocol.SentAt(s.now)
	}
	r.Send(s.id, c[i+1], u)
}

// wireSeq is the sequence number an Update carries with x: a remote
// version's, which a node that becomes head needs to serve
// get-transactions (a local version's counter, at least its number,
// stands in for its own: seqOf).
func (s *server) wireSeq(x ver) uint64 {
	if s.layout.Geo && !s.localOrigin(x.v) {
		return x.seq
	}
	return 0
}

// becomeStable marks v stable at the tail and acknowledges it upward
// (DC-Write-Stable, chainreaction.txt §3.5).
func (s *server) becomeStable(key string, it *item, v uint64, c []protocol.NodeID, i int, r *protocol.Ready) {
	it.stable = max(it.stable, v)
	it.kacked = max(it.kacked, it.stable)
	it.retries = 0
	it.trim()
	s.wake(key, it, r)
	s.flushReplies(key, it, r)
	s.flushReads(it, r)
	if i > 0 {
		r.Send(s.id, c[i-1], &pb.StableAck{Key: key, Version: it.stable})
	}
}

func (s *server) stableAck(key string, v uint64, r *protocol.Ready) {
	it := s.get(key)
	if it.latest().v < v {
		// This node lacks v (it joined after v passed, and the push is
		// still on its way): only once it holds v may it call v stable
		// and release its predecessor's push, which is retransmitted.
		return
	}
	if v <= it.stable {
		return
	}
	if it.retries == 0 && v == it.latest().v && it.sentAt > 0 {
		if next := s.successor(key); next != "" {
			s.sampleRTT(next, s.now-it.sentAt)
		}
	}
	it.stable = v
	it.kacked = max(it.kacked, v)
	it.retries = 0
	it.trim()
	s.wake(key, it, r)
	s.releaseK(key, it, r)
	s.flushReplies(key, it, r)
	s.flushReads(it, r)
	if c, _, i := s.chain(key); i > 0 {
		r.Send(s.id, c[i-1], &pb.StableAck{Key: key, Version: v})
	}
}

func (s *server) kAck(key string, v uint64, r *protocol.Ready) {
	it := s.get(key)
	if v <= it.kacked {
		return
	}
	it.kacked = v
	if c, _, i := s.chain(key); i > 0 {
		r.Send(s.id, c[i-1], &pb.KAck{Key: key, Version: v})
	}
	s.releaseK(key, it, r)
}

// read serves a Get (FAWN-KV: at the tail only; ChainReaction: at any
// node of the safe prefix, forwarding upward when behind, §3.6–3.7).
func (s *server) read(b *pb.Get, r *protocol.Ready) {
	c, full, i := s.chain(b.Key)
	if len(c) == 0 {
		return
	}
	it := s.items[b.Key]
	if it == nil {
		it = &item{}
	}
	if s.layout.K == 0 {
		// FAWN-KV: the tail serves every read; a quarantined tail waits.
		if i != len(c)-1 {
			r.Send(s.id, c[len(c)-1], b)
			return
		}
		if !s.synced {
			return
		}
		s.replyGet(b, it, it.latest(), i, r)
		return
	}
	if i < 0 {
		r.Send(s.id, c[0], b)
		return
	}
	if !s.synced && !b.Down {
		// Not yet caught up after a view change: the head waits (the
		// session retransmits), the others defer to their predecessor.
		if i > 0 {
			r.Send(s.id, c[i-1], b)
		}
		return
	}
	ri := s.layout.ReplyIndex(c, full)
	if b.MinVersion > it.kacked && it.latest().v >= b.MinVersion {
		// The session saw MinVersion: node k has acknowledged it.
		it.kacked = b.MinVersion
	}
	served := it.latest()
	if s.layout.LoggedTail && i >= ri && served.v > it.stable {
		// Node k under LoggedTail (cr-cops: the tail, or, while the chain
		// has fewer full members than k, the last full one) and the
		// quarantined tails after it serve only what their DC's
		// remote-proxy has logged (a read must not lead a client's put to
		// be shipped before what it read), and never an older version
		// (which an acknowledged put may have overwritten): the read
		// waits until its newest version is stable (geo.go).
		it.reads = append(it.reads, b)
		return
	}
	if i < ri {
		// Nodes before k serve only versions node k acknowledged (the
		// head-failure gap, see doc.go); under LoggedTail only logged
		// ones, which node k may not have waited for when it is not
		// the tail.
		served = it.upTo(it.kacked)
		if s.layout.LoggedTail {
			served = it.upTo(it.stable)
		}
		if served.v < it.latest().v && ri < len(c) {
			// A newer version may be stable already (its StableAck not
			// here yet), and a session drops its entry for a stable
			// version, so an older one must not be served: the read
			// waits for node k's acknowledgement (kwait.go). Under
			// LoggedTail node k's acknowledgement does not mean logged,
			// so node k, which holds every version past the head-failure
			// gap and waits for the log, serves it.
			if s.layout.LoggedTail {
				r.Send(s.id, c[ri], &pb.Get{Client: b.Client, ReqId: b.ReqId, Key: b.Key, MinVersion: b.MinVersion, Down: true, Entry: b.Entry})
				return
			}
			it.kwait = append(it.kwait, kwaiter{get: b, until: it.latest().v})
			return
		}
	}
	s.serve(b, it, served, c, i, r)
}

// serve answers Get b with version served at chain index i of c, or
// passes it on when served is older than the session's min_version.
func (s *server) serve(b *pb.Get, it *item, served ver, c []protocol.NodeID, i int, r *protocol.Ready) {
	if served.v < b.MinVersion {
		switch {
		case b.Down && i+1 < len(c):
			r.Send(s.id, c[i+1], b)
		case i > 0 && !b.Down:
			r.Send(s.id, c[i-1], b)
		case i == 0 && len(c) > 1:
			r.Send(s.id, c[1], &pb.Get{Client: b.Client, ReqId: b.ReqId, Key: b.Key, MinVersion: b.MinVersion, Down: true, Entry: b.Entry})
		}
		return
	}
	s.replyGet(b, it, served, i, r)
}

func (s *server) replyGet(b *pb.Get, it *item, x ver, i int, r *protocol.Ready) {
	value := x.value
	if x.v == 0 {
		value = s.loaded.Value(b.Key)
	} else if value == nil {
		value = []byte{}
	}
	if x.v <= it.kacked && x.v > 0 {
		// Node k acknowledged x: every node up to k holds it, so the
		// session may read it anywhere in that prefix (§3.6), not only
		// at or before this node (reads would gather at the head).
		c, full, _ := s.chain(b.Key)
		i = max(i, min(s.layout.ReplyIndex(c, full), len(c)-1))
	}
	s.toClient(b.Client, b.Entry, &pb.GetReply{ReqId: b.ReqId, Key: b.Key, Value: value, Version: x.v,
		ChainIndex: uint32(i), Stable: s.stableFor(it, x.v)}, r)
}

// stableFor says whether a reply serving version v tells the session v
// is stable (so that it drops its entry, §3.5).
func (s *server) stableFor(it *item, v uint64) bool {
	if s.layout.Geo {
		// Under geo-replication an entry is garbage-collected only once
		// Global-Write-Stable (chainreaction.txt §4.1).
		// Only versions written in this DC are known so (their proxy
		// learns it); a remote version's entry stays until the next put.
		return v == 0 || (s.localOrigin(v) && v <= it.global)
	}
	return v <= it.stable
}

// stabilize answers the blocking read of the dependency stabilization
// procedure once version is stable here (at the tail, or known upward).
func (s *server) stabilize(from protocol.NodeID, b *pb.Stabilize, r *protocol.Ready) {
	it := s.items[b.Key]
	if it != nil && it.stable >= b.Version {
		s.toClient(b.Client, b.Entry, &pb.StabilizeReply{ReqId: b.ReqId, Key: b.Key, Version: b.Version}, r)
		return
	}
	c, _, i := s.chain(b.Key)
	if len(c) == 0 {
		return
	}
	if i != len(c)-1 {
		r.Send(s.id, c[len(c)-1], b)
		return
	}
	ws := s.waiters[b.Key]
	for j, w := range ws {
		if w.msg.Client == b.Client && w.msg.ReqId == b.ReqId && w.msg.Version == b.Version {
			// A retransmission waits once (answered where it came from).
			ws[j] = waiter{from: from, msg: b}
			return
		}
	}
	s.waiters[b.Key] = append(ws, waiter{from: from, msg: b})
}

func (s *server) wake(key string, it *item, r *protocol.Ready) {
	ws := s.waiters[key]
	keep := ws[:0]
	for _, w := range ws {
		if it.stable >= w.msg.Version {
			s.toClient(w.msg.Client, w.msg.Entry, &pb.StabilizeReply{ReqId: w.msg.ReqId, Key: key, Version: w.msg.Version}, r)
		} else {
			keep = append(keep, w)
		}
	}
	if len(keep) == 0 {
		delete(s.waiters, key)
	} else {
		s.waiters[key] = keep
	}
}
