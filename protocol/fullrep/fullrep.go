package fullrep

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

// Mode selects the variant a Protocol runs.
type Mode struct {
	// Name and Summary are what `causeway protocols` shows.
	Name, Summary string
	// Causal enables COPS dependency tracking and Lamport versions.
	Causal bool
}

// Protocol is a fullrep deployment factory (protocol.Protocol).
type Protocol struct{ mode Mode }

// New returns the protocol for mode.
func New(mode Mode) *Protocol { return &Protocol{mode: mode} }

// Name implements protocol.Protocol.
func (p *Protocol) Name() string { return p.mode.Name }

// Summary implements protocol.Protocol.
func (p *Protocol) Summary() string { return p.mode.Summary }

// Guarantee implements protocol.Protocol.
func (p *Protocol) Guarantee() protocol.Guarantee {
	if p.mode.Causal {
		return protocol.CausalPlus
	}
	return protocol.Eventual
}

// Canary implements protocol.Canary: the variant without dependency
// tracking (eventual) is the checker's canary.
func (p *Protocol) Canary() bool { return !p.mode.Causal }

// maxServers bounds the server index that fits in a version's low bits.
const serverBits = 10

// Validate implements protocol.Protocol.
func (p *Protocol) Validate(t *topology.Topology) error {
	n := 0
	for _, d := range t.Datacenters {
		n += d.Servers
	}
	if n > 1<<serverBits {
		return fmt.Errorf("%s: at most %d servers in all, topology %s has %d", p.mode.Name, 1<<serverBits, t.Name, n)
	}
	return nil
}

// serverName names the i-th storage server of a DC.
func serverName(i int) string { return "s" + strconv.Itoa(i) }

// Nodes implements protocol.Protocol: Servers storage servers per DC, all
// of RoleStorage.
func (p *Protocol) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, d := range t.Datacenters {
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, serverName(i)), Role: protocol.RoleStorage})
		}
	}
	return out
}

// owner returns the server of dc that stores key.
func owner(t *topology.Topology, dc, key string) protocol.NodeID {
	return protocol.MakeNodeID(dc, serverName(t.ServerIndex(dc, key)))
}

// Replicas implements protocol.Protocol: key's shard in every DC.
func (p *Protocol) Replicas(t *topology.Topology, key string) []protocol.NodeID {
	out := make([]protocol.NodeID, 0, len(t.Datacenters))
	for _, d := range t.Datacenters {
		out = append(out, owner(t, d.Name, key))
	}
	return out
}

// NewNode implements protocol.Protocol.
func (p *Protocol) NewNode(cfg protocol.NodeConfig) protocol.Node {
	return withInvariants(newServer(p.mode, cfg))
}

// NewSession implements protocol.Protocol.
func (p *Protocol) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return &session{mode: p.mode, id: cfg.ID, topo: cfg.Topology, timeout: cfg.OpTimeout,
		local: newShards(cfg.Topology, cfg.ID.DC())}
}

// Timing of the retry machinery: a retransmission waits resendAfter, then
// twice as long each time up to maxBackoff, so that a backlog (a DC that was
// down or partitioned) is not buried under its own retries.
const (
	tickEvery   = 250 * time.Millisecond
	resendAfter = 500 * time.Millisecond
	maxBackoff  = 8 * time.Second
)

// due reports whether a retransmission is due (see protocol.Retry).
func due(r *protocol.Retry, now time.Duration) bool { return r.Due(now, resendAfter, maxBackoff) }

type entry struct {
	value   []byte
	version uint64
}

// outgoing is a write still being replicated to other DCs.
type outgoing struct {
	msg     *pb.Replicate
	unacked []protocol.NodeID // the other DCs' replicas yet to acknowledge it, sorted
	retry   protocol.Retry
}

// incoming is a replicated write waiting for its dependencies.
type incoming struct {
	msg  *pb.Replicate
	from protocol.NodeID
	// deps are the dependencies it was found waiting for, in the order
	// the Replicate lists them; met says which have been answered since,
	// missing how many have not.
	deps    []*pb.Dep
	met     []bool
	missing int
	// retry paces the resends of its DepChecks (one per owner server,
	// listing only its own dependencies still missing).
	retry protocol.Retry
}

type server struct {
	// ReadyPool reuses the slices of the Readies a runtime hands back
	// (protocol.Recycler).
	protocol.ReadyPool
	mode  Mode
	id    protocol.NodeID
	dc    string
	topo  *topology.Topology
	index uint64   // this server's index among all servers
	local shards   // the servers of this DC
	all   []shards // the servers of every DC, in topology order
	clock uint64   // Lamport counter (causal) or last physical µs (eventual)
	store map[string]entry
	out   map[versionID]*outgoing // stored under "r/" + depKey
	// outOrder lists the keys of out in the order their versions were
	// minted (keys no longer in out are skipped lazily): the first one
	// still in out holds the oldest write not yet committed everywhere.
	outOrder []versionID
	// stable is, by origin server index, the highest stable frontier that
	// origin has sent (Replicate.stable): its versions with a Lamport
	// counter below it are committed in every DC (causal mode).
	stable map[uint64]uint64
	// persisted is, by origin, the frontier stored in its "t/" record
	// (prune.go): what this server knows of stability across a crash.
	persisted map[uint64]uint64
	in        map[versionID]*incoming // replicated writes waiting
	// waitingOn lists, by dependency, the writes in `in` that wait for
	// it, in the order they started waiting.
	waitingOn map[versionID][]*incoming
	seen      map[versionID]bool        // committed here and not yet known stable (causal mode); stored under "s/" + depKey
	seenBy    map[uint64]*seenQueue     // seen by origin, for pruning (prune.go)
	waiters   map[versionID][]*depQuery // DepChecks waiting here, by the dependency each misses
	ticking   bool
	// pairs is the array the server's checkBatches collect in, reused.
	pairs []checkPair
	// loaded is the dataset the run starts with (nil: none).
	loaded *protocol.Dataset
}

func depKey(key string, version uint64) string { return key + "@" + strconv.FormatUint(version, 16) }

// versionID names one version of a key: the key of the server's
// per-version maps, a struct rather than depKey's string so that the hot
// path neither builds nor hashes strings. Where order matters (resends,
// reports) versions go in the order of their depKey spelling, as they did
// when the maps were keyed by it.
type versionID struct {
	key     string
	version uint64
}

// String is the version's depKey spelling.
func (v versionID) String() string { return depKey(v.key, v.version) }

// parseVersionID reads a depKey spelling back (the key may hold '@'; the
// hexadecimal version cannot).
func parseVersionID(s string) (versionID, bool) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return versionID{}, false
	}
	v, err := strconv.ParseUint(s[i+1:], 16, 64)
	if err != nil {
		return versionID{}, false
	}
	return versionID{key: s[:i], version: v}, true
}

// sortedVersions lists the keys of m in the order of their depKey
// spelling.
func sortedVersions[V any](m map[versionID]V) []versionID {
	type named struct {
		name string
		v    versionID
	}
	all := make([]named, 0, len(m))
	for v := range m {
		all = append(all, named{v.String(), v})
	}
	slices.SortFunc(all, func(a, b named) int { return strings.Compare(a.name, b.name) })
	out := make([]versionID, len(all))
	for i, n := range all {
		out[i] = n.v
	}
	return out
}

func newServer(mode Mode, cfg protocol.NodeConfig) *server {
	s := &server{mode: mode, id: cfg.ID, dc: cfg.ID.DC(), topo: cfg.Topology,
		store: map[string]entry{}, out: map[versionID]*outgoing{}, in: map[versionID]*incoming{},
		waitingOn: map[versionID][]*incoming{}, seen: map[versionID]bool{}, seenBy: map[uint64]*seenQueue{}, persisted: map[uint64]uint64{},
		waiters: map[versionID][]*depQuery{},
		stable:  map[uint64]uint64{}, loaded: cfg.Loaded,
		local: newShards(cfg.Topology, cfg.ID.DC()), all: allShards(cfg.Topology)}
	i := 0
	for _, d := range cfg.Topology.Datacenters {
		for j := 0; j < d.Servers; j++ {
			if protocol.MakeNodeID(d.Name, serverName(j)) == cfg.ID {
				s.index = uint64(i)
			}
			i++
		}
	}
	if cfg.Storage == nil {
		return s
	}
	_ = cfg.Storage.Scan("d/", func(r storage.Record) error {
		s.store[r.Key[2:]] = entry{value: r.Value, version: r.Version}
		s.clock = max(s.clock, r.Version>>serverBits)
		return nil
	})
	_ = cfg.Storage.Scan("t/", func(r storage.Record) error {
		if origin, err := strconv.ParseUint(r.Key[2:], 10, 64); err == nil {
			s.stable[origin] = max(s.stable[origin], r.Version)
			s.persisted[origin] = s.stable[origin]
		}
		return nil
	})
	_ = cfg.Storage.Scan("s/", func(r storage.Record) error {
		if v, ok := parseVersionID(r.Key[2:]); ok {
			if origin, counter := originOf(v.version); counter >= s.stable[origin] {
				s.addSeen(v)
			}
		}
		return nil
	})
	_ = cfg.Storage.Scan("r/", func(r storage.Record) error {
		var m pb.Replicate
		if err := proto.Unmarshal(r.Value, &m); err != nil {
			return nil // a torn record cannot exist (batches are atomic); skip defensively
		}
		v := versionID{m.Key, m.Version} // the record's key spells it
		s.out[v] = &outgoing{msg: &m, unacked: s.otherReplicas(m.Key), retry: protocol.SentAt(-resendAfter)}
		s.outOrder = append(s.outOrder, v)
		s.clock = max(s.clock, m.Version>>serverBits)
		return nil
	})
	slices.SortFunc(s.outOrder, func(a, b versionID) int {
		return cmp.Compare(s.out[a].msg.Version, s.out[b].msg.Version)
	})
	return s
}

// otherReplicas lists key's shard in every other DC, sorted (a slice,
// not a set: one per DC, each a different node).
func (s *server) otherReplicas(key string) []protocol.NodeID {
	out := make([]protocol.NodeID, 0, len(s.topo.Datacenters))
	h := topology.KeyHash(key) // once for every DC's ring
	for i, d := range s.topo.Datacenters {
		if d.Name != s.dc {
			out = append(out, s.all[i].ownerAt(h))
		}
	}
	slices.Sort(out)
	return out
}

// Replicas implements protocol.Inspector.
func (s *server) Replicas(fn func(key string, value []byte)) {
	for _, k := range slices.Sorted(maps.Keys(s.store)) {
		fn(k, s.store[k].value)
	}
}

// Start implements protocol.Node: resume replication recovered from storage.
func (s *server) Start(now time.Duration) protocol.Ready {
	r := s.Take()
	s.resend(now, &r)
	s.armTimer(&r)
	return r
}

func (s *server) armTimer(r *protocol.Ready) {
	if !s.ticking && (len(s.out) > 0 || len(s.in) > 0) {
		s.ticking = true
		r.SetTimer(tickEvery, 0)
	}
}

// Tick implements protocol.Node: resend what has not been acknowledged.
func (s *server) Tick(now time.Duration, _ uint64) protocol.Ready {
	r := s.Take()
	s.ticking = false
	s.resend(now, &r)
	s.armTimer(&r)
	return r
}

func (s *server) resend(now time.Duration, r *protocol.Ready) {
	for _, k := range sortedVersions(s.out) {
		o := s.out[k]
		if !due(&o.retry, now) {
			continue
		}
		for _, to := range o.unacked {
			r.Send(s.id, to, o.msg)
		}
	}
	for _, ik := range sortedVersions(s.in) {
		w := s.in[ik]
		if !due(&w.retry, now) {
			continue
		}
		checks := checkBatch{pairs: s.pairs[:0]}
		for i, d := range w.deps {
			if !w.met[i] {
				checks.add(s.local.owner(d.Key), d)
			}
		}
		checks.send(s.id, r)
		s.pairs = checks.done()
	}
}

// Step implements protocol.Node.
func (s *server) Step(now time.Duration, m protocol.Message) protocol.Ready {
	r := s.Take()
	switch b := m.Body.(type) {
	case *pb.GetRequest:
		e, ok := s.store[b.Key]
		if !ok {
			// A loaded record never written: its loaded value, at version
			// 0, below every written version.
			e.value = s.loaded.Value(b.Key)
		}
		r.Send(s.id, m.From, &pb.GetReply{ReqId: b.ReqId, Value: e.value, Version: e.version, Stable: s.isStable(e.version)})
	case *pb.PutRequest:
		s.put(now, m.From, b, &r)
	case *pb.Replicate:
		s.replicate(now, m.From, b, &r)
	case *pb.ReplicateAck:
		k := versionID{b.Key, b.Version}
		if o := s.out[k]; o != nil {
			if i := slices.Index(o.unacked, m.From); i >= 0 {
				o.unacked = slices.Delete(o.unacked, i, i+1)
			}
			if len(o.unacked) == 0 {
				delete(s.out, k)
				// The record was put at version 0 (replicate): deleting
				// that version needs no read of the key.
				r.Write(storage.Write{Kind: storage.DeleteVersion, Key: "r/" + k.String()}, false)
				if s.mode.Causal {
					s.prune(s.index, &r)
				}
			}
		}
	case *pb.DepCheck:
		s.depCheck(m.From, b, &r)
	case *pb.DepOK:
		for _, d := range b.Deps {
			if d != nil {
				s.depSatisfied(versionID{d.Key, d.Version}, &r)
			}
		}
	}
	s.armTimer(&r)
	return r
}

// put handles a client's local put: mint a version, persist the value and
// the outgoing replication record, acknowledge, replicate.
func (s *server) put(now time.Duration, from protocol.NodeID, b *pb.PutRequest, r *protocol.Ready) {
	if s.mode.Causal {
		s.clock = max(s.clock, b.MinVersion>>serverBits) + 1
	} else {
		s.clock = max(s.clock+1, uint64(max(now, 0)/time.Microsecond))
	}
	version := s.clock<<serverBits | s.index
	msg := &pb.Replicate{Key: b.Key, Value: b.Value, Version: version}
	if s.mode.Causal {
		msg.PackedDeps = appendDeps(nil, b.Key, version, b.Deps)
	}
	s.commit(b.Key, b.Value, version, r)
	if others := s.otherReplicas(b.Key); len(others) > 0 {
		k := versionID{b.Key, version}
		s.out[k] = &outgoing{msg: msg, unacked: others, retry: protocol.SentAt(now)}
		s.outOrder = append(s.outOrder, k)
		if s.mode.Causal {
			msg.Stable = s.frontier() // at most this write's own counter
		}
		data, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
		if err != nil {
			panic(err) // a generated message always marshals
		}
		r.Write(storage.Write{Kind: storage.Put, Key: "r/" + k.String(), Value: data}, true)
		for _, to := range others {
			r.Send(s.id, to, msg)
		}
	}
	r.Send(s.id, from, &pb.PutReply{ReqId: b.ReqId, Version: version})
}

// committed reports whether version of key has been committed here.
func (s *server) committed(key string, version uint64) bool {
	return s.store[key].version == version || s.seen[versionID{key, version}] || s.isStable(version)
}

// commit makes a version durable here: it becomes the key's value if it
// is newer than the current one (LWW), and in causal mode it is recorded as
// committed and wakes the dep_checks waiting for it. A key's current
// version is committed by its "d/" record alone: it goes to seen (and an
// "s/" record, in the same batch as the "d/" record that replaces it) only
// when a newer version replaces it before a stored frontier covers it
// (durablyStable: a frontier known only in memory may be lost in a crash,
// and the version with it), and a version older than the current one goes
// there at once.
func (s *server) commit(key string, value []byte, version uint64, r *protocol.Ready) {
	cur := s.store[key].version
	if s.mode.Causal {
		dk := versionID{key, version}
		switch {
		case version <= cur:
			s.remember(dk, r)
		case cur != 0 && !s.durablyStable(cur):
			s.remember(versionID{key, cur}, r)
		}
		s.wakeQueries(dk, r)
	}
	if version <= cur {
		return
	}
	s.store[key] = entry{value: value, version: version}
	dk := "d/" + key // one string for both writes
	r.Write(storage.Write{Kind: storage.Put, Key: dk, Version: version, Value: value}, true)
	r.Write(storage.Write{Kind: storage.DeleteBelow, Key: dk, Version: version}, true)
	r.VisibleVersion(key, value, version)
}

// remember adds dk to seen, durably, unless it is there.
func (s *server) remember(dk versionID, r *protocol.Ready) {
	if !s.seen[dk] {
		s.addSeen(dk)
		r.Write(storage.Write{Kind: storage.Put, Key: "s/" + dk.String()}, true)
	}
}

// replicate handles a write from another DC.
func (s *server) replicate(now time.Duration, from protocol.NodeID, b *pb.Replicate, r *protocol.Ready) {
	s.clock = max(s.clock, b.Version>>serverBits)
	if origin := b.Version & (1<<serverBits - 1); s.mode.Causal && b.Stable > s.stable[origin] {
		s.stable[origin] = b.Stable
		s.prune(origin, r)
	}
	if s.committed(b.Key, b.Version) || (!s.mode.Causal && b.Version <= s.store[b.Key].version) {
		r.Send(s.id, from, &pb.ReplicateAck{Key: b.Key, Version: b.Version})
		return
	}
	ik := versionID{b.Key, b.Version}
	if _, waiting := s.in[ik]; waiting {
		return // a retransmission of a write already waiting for its deps
	}
	deps, err := decodeDeps(b.PackedDeps, b.Key, b.Version)
	if err != nil {
		return // no server sends such a write: drop it rather than guess
	}
	checks := checkBatch{pairs: s.pairs[:0]}
	w := &incoming{msg: b, from: from, retry: protocol.SentAt(now)}
	for _, d := range deps {
		to := s.local.owner(d.Key)
		dk := versionID{d.Key, d.Version}
		if (to == s.id && s.committed(d.Key, d.Version)) || w.waitsFor(dk) {
			continue
		}
		// A dep owned by this server is checked here (and answered by
		// commit's wake-up of s.waiters) like any other. Each write
		// sends its own DepChecks, one per owner listing the write's
		// dependencies it owns (depcheck.go), even for a dependency
		// another waiting write already checks: an owner answers a
		// DepCheck only when all it lists are committed, so a shared
		// check would make a write wait for another's dependencies.
		s.waitingOn[dk] = append(s.waitingOn[dk], w)
		w.deps = append(w.deps, d)
		checks.add(to, d)
	}
	checks.send(s.id, r)
	s.pairs = checks.done()
	if len(w.deps) == 0 {
		s.finish(w, r)
		return
	}
	w.met = make([]bool, len(w.deps))
	w.missing = len(w.deps)
	s.in[ik] = w
}

// waitsFor reports whether w already waits for dk.
func (w *incoming) waitsFor(dk versionID) bool {
	for _, d := range w.deps {
		if d.Key == dk.key && d.Version == dk.version {
			return true
		}
	}
	return false
}

// depSatisfied records that dependency dk is committed in this DC and
// commits, in the order they started waiting for it, the writes that now
// miss nothing.
func (s *server) depSatisfied(dk versionID, r *protocol.Ready) {
	ws := s.waitingOn[dk]
	if ws == nil {
		return // a duplicate answer
	}
	delete(s.waitingOn, dk)
	for _, w := range ws {
		for i, d := range w.deps {
			if !w.met[i] && d.Key == dk.key && d.Version == dk.version {
				w.met[i] = true
				w.missing--
				break
			}
		}
		if w.missing > 0 {
			continue
		}
		if ik := (versionID{w.msg.Key, w.msg.Version}); s.in[ik] == w {
			delete(s.in, ik)
			s.finish(w, r)
		}
	}
}

// finish applies a replicated write whose dependencies are satisfied and
// acknowledges it to its origin.
func (s *server) finish(w *incoming, r *protocol.Ready) {
	s.commit(w.msg.Key, w.msg.Value, w.msg.Version, r)
	r.Send(s.id, w.from, &pb.ReplicateAck{Key: w.msg.Key, Version: w.msg.Version})
}
