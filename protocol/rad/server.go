package rad

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/depwait"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/radpb"
)

// Timing of retransmissions: first after resendAfter, then doubling up to
// maxBackoff (protocol.Retry); an origin coordinator aborts a transaction
// whose votes have not all arrived after abortAfter.
const (
	tickEvery   = 100 * time.Millisecond
	resendAfter = 500 * time.Millisecond
	maxBackoff  = 4 * time.Second
	abortAfter  = 2 * time.Second
)

// Storage keys (see doc.go, "Storage").
const (
	prefData     = "d/" // d/<key>: visible version (Stored), Version = version
	prefSeen     = "s/" // s/<key>@<version>: committed here
	prefPrepared = "p/" // p/<txn>: origin sub-request (WriteRequest), Version = prepare time
	prefRemPrep  = "q/" // q/<txn>: replicated sub-request prepared at Version
	prefIncoming = "i/" // i/<txn>/<from>: a received Replicate
	prefDecision = "c/" // c/<txn>: coordinator's decision (Commit; Abort: empty value)
	prefOutgoing = "r/" // r/<version>: unacknowledged replication (Outgoing)
)

func depName(key string, v uint64) string { return key + "@" + strconv.FormatUint(v, 16) }

// replicatedTxnID names a replicated transaction by its global version.
func replicatedTxnID(v uint64) string { return "r" + strconv.FormatUint(v, 16) }

// isReplicated reports whether txn names a replicated transaction (origin
// transactions are named by their client session, "o/...").
func isReplicated(txn string) bool { return strings.HasPrefix(txn, "r") }

// part is this server's share of a write-only transaction (Eiger §4.3):
// as a participant, whether it is the coordinator or a cohort.
type part struct {
	id       string
	version  uint64 // replicated: the transaction's version
	coordKey string
	keys     []string          // every key of the transaction
	writes   map[string][]byte // this server's keys received so far
	deps     []*pb.Dep         // the coordinator's: the client's one-hop deps
	incoming []string          // storage keys of received Replicates
	complete bool              // every key of this server is here
	prepared bool
	prepTime uint64
	retry    protocol.Retry
}

// coord is a transaction's coordinator state.
type coord struct {
	client  protocol.NodeID // origin: who to answer
	reqID   uint64
	votes   map[protocol.NodeID]uint64 // prepared participants -> prepare time
	notify  map[protocol.NodeID]bool   // replicated: cohorts holding their sub-request
	depsOK  bool
	started time.Duration
}

// decision is a coordinator's outcome of a transaction.
type decision struct {
	commit       bool
	version, evt uint64
}

// outgoing is a committed transaction's replication awaiting acks.
type outgoing struct {
	msgs  map[protocol.NodeID]*pb.Replicate
	retry protocol.Retry
}

// parkedRead is a round-2 read waiting for pending transactions.
type parkedRead struct {
	from   protocol.NodeID
	req    *pb.ReadRequest
	remote bool
	asked  bool // the coordinators were asked for their decisions
}

type server struct {
	id    protocol.NodeID
	dc    string
	group int
	pl    *placement
	clock lamport

	chains    map[string]*chain
	seen      map[string]bool // depName -> committed here
	parts     map[string]*part
	coords    map[string]*coord
	decisions map[string]decision
	out       map[uint64]*outgoing
	deps      *depwait.Table[*pb.Dep]             // replicated coordinators' dependency checks
	waiters   map[string]map[protocol.NodeID]bool // depName -> DepChecks waiting here
	parked    []*parkedRead
	backlogs  map[protocol.NodeID]backlogReport // receivers' reported backlogs (backpressure.go)
	held      []heldWrite                       // client writes held by backpressure
	ticking   bool
	loaded    *protocol.Dataset
}

func newServer(cfg protocol.NodeConfig) *server {
	pl := newPlacement(cfg.Topology)
	s := &server{id: cfg.ID, dc: cfg.ID.DC(), pl: pl, group: pl.groupOf[cfg.ID.DC()],
		chains: map[string]*chain{}, seen: map[string]bool{}, parts: map[string]*part{},
		coords: map[string]*coord{}, decisions: map[string]decision{}, out: map[uint64]*outgoing{},
		deps: depwait.New[*pb.Dep](), waiters: map[string]map[protocol.NodeID]bool{}, loaded: cfg.Loaded,
		backlogs: map[protocol.NodeID]backlogReport{}}
	s.clock.index = serverIndex(cfg.Topology, cfg.ID)
	if cfg.Storage != nil {
		s.recover(cfg.Storage)
	}
	return s
}

// coordinator returns the node coordinating a transaction in this group.
func (s *server) coordinator(coordKey string) protocol.NodeID { return s.pl.owner(coordKey, s.group) }

// participants lists the servers of this group holding keys.
func (s *server) participants(keys []string) []protocol.NodeID {
	set := map[protocol.NodeID]bool{}
	for _, k := range keys {
		set[s.pl.owner(k, s.group)] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// myKeys lists the keys this server holds among keys.
func (s *server) myKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		if s.pl.owner(k, s.group) == s.id {
			out = append(out, k)
		}
	}
	return out
}

// spansDCs reports whether a transaction's participants in this group are
// in more than one DC (so waiting on it crosses the wide area).
func (s *server) spansDCs(keys []string) bool {
	for _, p := range s.participants(keys) {
		if p.DC() != s.dc {
			return true
		}
	}
	return false
}

func (s *server) chain(key string) *chain {
	c := s.chains[key]
	if c == nil {
		c = &chain{}
		s.chains[key] = c
	}
	return c
}

// Replicas implements protocol.Inspector: the newest version of every key
// written here.
func (s *server) Replicas(fn func(key string, value []byte)) {
	for _, k := range slices.Sorted(maps.Keys(s.chains)) {
		if v := s.chains[k].newest(); v.version > 0 {
			fn(k, v.value)
		}
	}
}

// Start implements protocol.Node: resume what recovery found.
func (s *server) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	for _, id := range slices.Sorted(maps.Keys(s.coords)) {
		s.coords[id].started = now
	}
	for _, id := range slices.Sorted(maps.Keys(s.parts)) {
		p := s.parts[id]
		p.retry = protocol.SentAt(now - resendAfter)
		if s.coordinator(p.coordKey) != s.id || !p.complete {
			continue
		}
		// A coordinator resumes where it stopped: dependency checks, then
		// whatever its votes already allow (all of them, alone).
		if !isReplicated(id) {
			s.tryCommitOrigin(now, id, &r)
			continue
		}
		if !p.prepared {
			s.startDepChecks(now, p, &r)
		}
		s.tryPrepare(now, id, &r)
	}
	for _, o := range s.out {
		o.retry = protocol.SentAt(now - resendAfter)
	}
	s.resend(now, &r)
	s.armTimer(&r)
	return r
}

func (s *server) armTimer(r *protocol.Ready) {
	if !s.ticking && (len(s.out) > 0 || len(s.parts) > 0 || len(s.coords) > 0 || s.deps.Len() > 0 || len(s.held) > 0) {
		s.ticking = true
		r.SetTimer(tickEvery, 0)
	}
}

// Tick implements protocol.Node: held writes, retransmissions and origin
// aborts.
func (s *server) Tick(now time.Duration, _ uint64) protocol.Ready {
	var r protocol.Ready
	s.ticking = false
	s.releaseWrites(now, &r)
	s.abortStale(now, &r)
	s.resend(now, &r)
	s.clock.advance(len(r.After.Messages), &r) // each send is an event; the timer is none
	s.armTimer(&r)
	return r
}

// resend retransmits unacknowledged replication, participants' votes and
// notifications, and dependency checks.
func (s *server) resend(now time.Duration, r *protocol.Ready) {
	for _, v := range slices.Sorted(maps.Keys(s.out)) {
		o := s.out[v]
		if !o.retry.Due(now, resendAfter, maxBackoff) {
			continue
		}
		for _, to := range slices.Sorted(maps.Keys(o.msgs)) {
			r.Send(s.id, to, o.msgs[to])
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.parts)) {
		p := s.parts[id]
		if p.complete && p.retry.Due(now, resendAfter, maxBackoff) {
			s.sendStatus(p, r)
		}
	}
	s.deps.Resend(now, resendAfter, maxBackoff, func(d *pb.Dep) {
		r.Send(s.id, s.pl.owner(d.Key, s.group), &pb.DepCheck{Dep: d})
	})
}

// sendStatus sends a participant's state to its coordinator: its vote when
// prepared (which is also Eiger's status check), else its notification.
func (s *server) sendStatus(p *part, r *protocol.Ready) {
	c := s.coordinator(p.coordKey)
	if c == s.id {
		return
	}
	if p.prepared {
		r.Send(s.id, c, &pb.Prepared{TxnId: p.id, PrepareTime: p.prepTime})
	} else {
		r.Send(s.id, c, &pb.Notify{TxnId: p.id})
	}
}

// Step implements protocol.Node.
func (s *server) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	switch b := m.Body.(type) {
	case *pb.ReadRequest:
		s.read(m.From, b, &r)
	case *pb.WriteRequest:
		s.admitWrite(now, m.From, b, &r)
	case *pb.Prepared:
		s.prepared(now, m.From, b, &r)
	case *pb.Commit:
		s.commitMsg(now, b, &r)
	case *pb.Abort:
		s.abortMsg(b, &r)
	case *pb.Replicate:
		s.replicate(now, m.From, b, &r)
	case *pb.ReplicateAck:
		s.replicateAck(m.From, b, &r)
		s.noteBacklog(now, m.From, b.Backlog, &r)
	case *pb.Notify:
		s.notify(now, m.From, b, &r)
	case *pb.Prepare:
		s.prepare(now, b, &r)
	case *pb.DepCheck:
		s.depCheck(m.From, b, &r)
	case *pb.DepOK:
		s.clock.observe(b.Clock)
		for _, id := range s.deps.Satisfied(depName(b.Dep.Key, b.Dep.Version)) {
			if c := s.coords[id]; c != nil {
				c.depsOK = true
				s.tryPrepare(now, id, &r)
			}
		}
	}
	s.clock.advance(1+len(r.After.Messages), &r) // the receive and each send
	s.armTimer(&r)
	return r
}

// marshal encodes a message for storage.
func marshal(m proto.Message) []byte {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err) // generated messages always marshal
	}
	return data
}

// commitVersion commits one key's version here at evt: recorded for
// dependency checks, added to the key's chain, made visible if newest.
func (s *server) commitVersion(now time.Duration, key string, value []byte, ver, evt uint64, r *protocol.Ready) {
	dn := depName(key, ver)
	if s.seen[dn] {
		return
	}
	s.seen[dn] = true
	r.Write(storage.Write{Kind: storage.Put, Key: prefSeen + dn}, true)
	if s.chain(key).add(version{version: ver, evt: evt, value: value, at: now}, now) {
		r.Write(storage.Write{Kind: storage.Put, Key: prefData + key, Version: ver, Value: marshal(&pb.Stored{Value: value, Evt: evt})}, true)
		r.Write(storage.Write{Kind: storage.DeleteBelow, Key: prefData + key, Version: ver}, true)
		r.VisibleVersion(key, value, ver)
	}
	for _, from := range slices.Sorted(maps.Keys(s.waiters[dn])) {
		r.Send(s.id, from, &pb.DepOK{Dep: &pb.Dep{Key: key, Version: ver}, Clock: s.clock.now(r)})
	}
	delete(s.waiters, dn)
}

// depCheck answers a dependency check once that exact version is
// committed here (see doc.go, deviations).
func (s *server) depCheck(from protocol.NodeID, b *pb.DepCheck, r *protocol.Ready) {
	dn := depName(b.Dep.Key, b.Dep.Version)
	if s.seen[dn] {
		r.Send(s.id, from, &pb.DepOK{Dep: b.Dep, Clock: s.clock.now(r)})
		return
	}
	if s.waiters[dn] == nil {
		s.waiters[dn] = map[protocol.NodeID]bool{}
	}
	s.waiters[dn][from] = true
}
