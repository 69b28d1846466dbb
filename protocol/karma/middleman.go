package karma

import (
	"maps"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/depwait"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// object is the current value of a key at one replica.
type object struct {
	value   []byte
	version uint64
	// evt is the commit-clock time at which the version became readable
	// here (Eiger's earliest valid time).
	evt uint64
	// writer is the session that wrote it (RingPut.writer; "" if
	// installed before a restart), returned with it while in flight.
	writer string
}

// oldVersion is a superseded version kept for get-transactions (§4.5).
type oldVersion struct {
	object
	until time.Duration // when it was superseded, on this node's clock
	// stable: its STABLE has arrived (see isStable).
	stable bool
}

// Get-transactions' multiversion window: a superseded version is kept this
// long, and at most maxOldVersions of them per key.
const (
	txnWindow      = 5 * time.Second
	maxOldVersions = 16
)

// incomingWrite is a put-after waiting for its dependencies in this ring.
type incomingWrite struct {
	msg  *pb.RingPut
	from protocol.NodeID // the CC's propagator
	// ask paces the asks for a pending write's predecessors while a read
	// is held behind it (resend.go).
	ask protocol.Retry
}

// invalidation is a write stored here whose acknowledgement waits for the
// caches that may hold the key to drop it (§4.3) and, when it was stored
// once its thread's previous write was (gated), for that write to be
// written here too.
type invalidation struct {
	msg     *pb.Invalidate
	from    protocol.NodeID // the CC to acknowledge
	id      uint64
	pending map[protocol.NodeID]bool
	gated   bool
	// ordered: it waits for its thread's earlier writes to be written
	// themselves here (pipeline.go, progress).
	ordered bool
	retry   protocol.Retry
}

// middleMan is a storage server with its middle man (MM, karma.txt §4.1.2,
// §4.3): it stores one replica of its keys in its ring, tracks which of
// their versions are in flight or stable, and which DC caches may hold
// them (cached-at sets).
type middleMan struct {
	p     *Protocol
	id    protocol.NodeID
	dc    string
	ring  int
	topo  *topology.Topology
	store map[string]object
	// old holds each key's superseded versions, oldest first, for
	// get-transactions' second rounds.
	old map[string][]oldVersion
	lc  commitClock
	// committed holds every version written in this ring (stored, or
	// superseded by a newer one, after its dependencies and invalidations):
	// what a DepCheck asks for. See doc.go on why "or newer" is not enough.
	committed map[string]bool
	// stable is the highest version of each key known to be in every ring.
	stable map[string]uint64
	// cachedAt is the set of DCs whose cache may hold the key (§4.3).
	// After a restart the sets are lost (restarted): a key's set is known
	// again (cachedAtKnown) once its first write has invalidated every DC,
	// since any cache may hold it from before, written or not (caches keep
	// a never-written key's loaded value, or its absence, too).
	cachedAt      map[string]map[string]bool
	restarted     bool
	cachedAtKnown map[string]bool

	incoming map[string]*incomingWrite           // by depKey of the write
	deps     *depwait.Table[*pb.Dep]             // what the incoming writes wait for
	waiters  map[string]map[protocol.NodeID]bool // depKey -> DepChecks waiting here
	// readyWaiters are program-order DepChecks, answered once the version
	// is ready here rather than written (pipeline.go).
	readyWaiters map[string]map[protocol.NodeID]bool
	// pending holds the writes ready here and not yet installed, by
	// depKey; readyAt the ready time of every version that became ready
	// here (persisted with its committed marker), and knownReady the
	// ready times other MMs answered for program-order dependencies.
	pending    map[string]*incomingWrite
	readyAt    map[string]uint64
	knownReady map[string]uint64
	// knownWritten are other MMs' versions known written in the ring,
	// knownInstalled known installed; installed are this MM's installed
	// versions, and installedWaiters the DepChecks waiting for one.
	knownWritten, knownInstalled map[string]bool
	installed                    map[string]bool
	installedWaiters             map[string]map[protocol.NodeID]bool
	// selfWritten are this MM's versions written themselves and not yet
	// written (committed) here, selfWaiters the DepChecks waiting for one
	// to be, and knownSelfWritten other MMs' versions known so
	// (pipeline.go, progress).
	selfWritten, knownSelfWritten map[string]bool
	selfWaiters                   map[string]map[protocol.NodeID]bool
	// keyOf is the key of every version this MM has held or been told
	// of (a RingPut's own, its program-order list's; recovered from
	// storage), early the asks by version (byversion.go) about writes
	// that have not arrived here yet, and okOut the key-less DepOKs this
	// step is gathering, by destination.
	keyOf map[uint64]string
	early map[uint64]map[protocol.NodeID]askKind
	okOut map[protocol.NodeID]*okBatch
	// push is this MM's side of ready pushes: to its proxies, and as a
	// proxy (push.go).
	push pushState
	// held are reads waiting for unconfirmed versions of their key.
	held map[string][]*heldRead
	// probes are the ready probes of held reads in flight, by probe
	// number (probe.go).
	probes map[uint64]*probeRound
	// probing is each pending version's probe round in flight, nextRound
	// the reads held behind it since that round was sent.
	probing   map[string]uint64
	nextRound map[string][]*heldRead
	inval     map[string]*invalidation // by depKey of the write
	stab      stabilizer               // versions awaiting STABLE (stabilize.go)
	ticking   bool
	// loaded is the dataset the run starts with (nil: none): a read of a
	// loaded key's version 0 returns its loaded value.
	loaded *protocol.Dataset
}

func newMiddleMan(p *Protocol, cfg protocol.NodeConfig) *middleMan {
	m := &middleMan{p: p, id: cfg.ID, dc: cfg.ID.DC(), ring: cfg.Topology.RingOf(cfg.ID.DC()), topo: cfg.Topology,
		store: map[string]object{}, old: map[string][]oldVersion{}, committed: map[string]bool{}, stable: map[string]uint64{},
		cachedAt: map[string]map[string]bool{}, cachedAtKnown: map[string]bool{},
		incoming: map[string]*incomingWrite{}, deps: depwait.New[*pb.Dep](),
		waiters: map[string]map[protocol.NodeID]bool{}, readyWaiters: map[string]map[protocol.NodeID]bool{},
		pending: map[string]*incomingWrite{}, readyAt: map[string]uint64{}, knownReady: map[string]uint64{}, knownWritten: map[string]bool{}, knownInstalled: map[string]bool{},
		installed: map[string]bool{}, installedWaiters: map[string]map[protocol.NodeID]bool{},
		selfWritten: map[string]bool{}, knownSelfWritten: map[string]bool{}, selfWaiters: map[string]map[protocol.NodeID]bool{},
		keyOf: map[uint64]string{}, early: map[uint64]map[protocol.NodeID]askKind{}, okOut: map[protocol.NodeID]*okBatch{}, push: newPushState(),
		held: map[string][]*heldRead{}, probes: map[uint64]*probeRound{}, probing: map[string]uint64{}, nextRound: map[string][]*heldRead{}, inval: map[string]*invalidation{}, loaded: cfg.Loaded}
	if cfg.Storage == nil {
		return m
	}
	// Versions stored before the crash became readable at some time no
	// later than the clock's recovered mark; claiming the mark is safe
	// (a transaction reading earlier starts again).
	m.lc = recoverClock(cfg.Storage, clockKey)
	_, m.restarted, _ = cfg.Storage.Get(bootKey)
	_ = cfg.Storage.Scan("d/", func(r storage.Record) error {
		m.store[r.Key[2:]] = object{value: r.Value, version: r.Version, evt: m.lc.now}
		m.installed[depKey(r.Key[2:], r.Version)] = true
		m.learnKey(r.Key[2:], r.Version)
		return nil
	})
	_ = cfg.Storage.Scan("s/", func(r storage.Record) error {
		m.committed[r.Key[2:]] = true
		m.readyAt[r.Key[2:]] = r.Version
		m.learnKeyOf(r.Key[2:])
		return nil
	})
	m.recoverPending(cfg.Storage)
	_ = cfg.Storage.Scan("t/", func(r storage.Record) error {
		m.stable[r.Key[2:]] = r.Version
		return nil
	})
	m.recoverStability()
	return m
}

// Replicas implements protocol.Inspector.
func (m *middleMan) Replicas(fn func(key string, value []byte)) {
	for _, k := range slices.Sorted(maps.Keys(m.store)) {
		fn(k, m.store[k].value)
	}
}

// Start implements protocol.Node.
func (m *middleMan) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	r.Write(storage.Write{Kind: storage.Put, Key: bootKey}, true)
	if m.restarted {
		m.askResendAll(&r)
	}
	m.resumeWaits(now, &r)
	m.flushOKs(&r)
	m.flushPushes(&r)
	m.armTimer(&r)
	return r
}

// bootKey marks an MM's storage as used: found at start, the MM is
// restarting and its cached-at sets are lost.
const bootKey = "boot"

func (m *middleMan) armTimer(r *protocol.Ready) {
	if !m.ticking && (m.deps.Len() > 0 || len(m.inval) > 0 || len(m.pending) > 0 || m.stab.pending()) {
		m.ticking = true
		r.SetTimer(tickEvery, 0)
	}
}

// Tick implements protocol.Node: resend DepChecks and invalidations.
func (m *middleMan) Tick(now time.Duration, _ uint64) protocol.Ready {
	var r protocol.Ready
	m.ticking = false
	m.askAgain(now, &r)
	for _, k := range slices.Sorted(maps.Keys(m.inval)) {
		if iv := m.inval[k]; due(&iv.retry, now) {
			for _, c := range slices.Sorted(maps.Keys(iv.pending)) {
				r.Send(m.id, c, iv.msg)
			}
		}
	}
	m.probeStability(now, &r)
	m.flushOKs(&r)
	m.flushPushes(&r)
	m.armTimer(&r)
	m.lc.persist(&r)
	return r
}

// Step implements protocol.Node.
func (m *middleMan) Step(now time.Duration, msg protocol.Message) protocol.Ready {
	var r protocol.Ready
	switch b := msg.Body.(type) {
	case *pb.RingGet:
		m.lc.observe(b.Clock)
		m.read(now, msg.From, b, &r)
	case *pb.RingPut:
		m.lc.observe(b.Clock)
		m.put(now, msg.From, unpackAfter(b), &r)
	case *pb.Stable:
		m.lc.observe(b.Clock)
		m.markStable(b.Key, b.Version, &r)
	case *pb.ProbeReq:
		r.Send(m.id, msg.From, &pb.ProbeResp{Id: b.Id})
	case *pb.DepCheck:
		if b.Probe != 0 {
			m.answerProbe(msg.From, b, &r)
			break
		}
		if b.Proxy {
			m.askedAsProxy(now, msg.From, b)
			break
		}
		if b.Dep == nil {
			m.askedByVersion(msg.From, b)
			break
		}
		if b.Dep.Key == "" && m.askedWithoutKey(msg.From, b, &r) {
			break
		}
		dk := depKey(b.Dep.Key, b.Dep.Version)
		if b.Lost {
			m.askMinter(b.Dep, &r)
		}
		switch {
		case b.Dep.SelfWritten:
			m.askedSelfWritten(msg.From, b.Dep.Key, b.Dep.Version)
		case b.Dep.Installed:
			m.askedProgramOrder(msg.From, b.Dep.Key, b.Dep.Version, askInstalled)
		case b.Dep.ProgramOrder:
			kind := askReady
			if b.SelfToo {
				kind |= askSelf
			}
			m.askedProgramOrder(msg.From, b.Dep.Key, b.Dep.Version, kind)
		case m.topo.RingOf(msg.From.DC()) == m.ring:
			m.askedProgramOrder(msg.From, b.Dep.Key, b.Dep.Version, askWritten)
		case m.committed[dk]: // a stability probe (stabilize.go): by key
			r.Send(m.id, msg.From, &pb.DepOK{Dep: b.Dep, Clock: m.lc.now})
		default:
			addWaiter(m.waiters, dk, msg.From)
		}
	case *pb.DepOK:
		m.lc.observe(b.Clock)
		if b.Probe != 0 {
			m.probeAnswered(now, b, &r)
			if b.Absent {
				break
			}
		}
		if b.Dep == nil {
			m.answeredByVersion(now, b, &r)
			break
		}
		if m.topo.RingOf(msg.From.DC()) == m.ring {
			switch dk := depKey(b.Dep.Key, b.Dep.Version); {
			case b.Dep.SelfWritten:
				m.knownSelfWritten[dk] = true
			case b.Dep.ProgramOrder:
				m.knownReady[dk] = b.Ready
				if b.SelfToo {
					m.knownSelfWritten[dk] = true
				}
			case b.Dep.Installed:
				m.knownInstalled[dk] = true
			default:
				m.knownWritten[dk] = true
			}
		}
		if !m.stabilityAnswer(msg.From, b, &r) {
			m.depSatisfied(now, depName(b.Dep), &r)
			if b.SelfToo && b.Dep.ProgramOrder {
				m.depSatisfied(now, selfPrefix+depKey(b.Dep.Key, b.Dep.Version), &r)
			}
		}
	case *pb.ReadyPush:
		// The owner's clock is above the evt of every write it pushes as
		// installed: a write made ready here (or by the MM this proxy
		// answers) after one of them must get a ready time above it
		// (testdata/installed_push_carries_clock).
		m.lc.observe(b.Clock)
		m.pushed(now, b, &r)
	case *pb.InvalidateAck:
		dk := depKey(b.Key, b.Version)
		if iv := m.inval[dk]; iv != nil {
			delete(iv.pending, msg.From)
			m.progress(dk, &r)
		}
	}
	m.flushOKs(&r)
	m.flushPushes(&r)
	m.armTimer(&r)
	m.lc.persist(&r)
	return r
}

// askedSelfWritten answers, or waits to answer, a DepCheck asking
// whether a version is written itself here (or written).
func (m *middleMan) askedSelfWritten(from protocol.NodeID, key string, version uint64) {
	if dk := depKey(key, version); m.committed[dk] || m.selfWritten[dk] {
		m.answerSelf(from, version)
	} else {
		addWaiter(m.selfWaiters, dk, from)
	}
}

// get answers a ring read with the current version and whether it is in
// flight. A stable value about to be cached at cache_dc adds that DC to
// the key's cached-at set. A get-transaction's second round (at > 0) reads
// the version valid at that commit-clock time instead (§4.5).
//
// A first round's read of a key with versions ready and not installed
// (pipeline.go) passes capped: it reads as of, and claims validity only
// until, the commit-clock time until.
func (m *middleMan) get(from protocol.NodeID, b *pb.RingGet, capped bool, until uint64, r *protocol.Ready) {
	o := m.store[b.Key]
	at, clock, asOf := until, until, capped
	if !capped {
		clock = m.lc.now
	}
	if b.At > 0 {
		// Every version committed from now on is later than at.
		m.lc.observe(b.At)
		at, clock, asOf = b.At, m.lc.now, true
	}
	if asOf {
		var ok bool
		if o, ok = m.versionAt(b.Key, at); !ok {
			r.Send(m.id, from, &pb.RingGetReply{ReqId: b.ReqId, Key: b.Key, Ring: int32(m.ring), Clock: clock, TooOld: true})
			return
		}
	}
	if o.version == 0 {
		// Never written (at that time): the loaded value, if the key is
		// a record, else absence. Either is in every ring from the start,
		// so stable.
		o.value = m.loaded.Value(b.Key)
	}
	inFlight := !m.isStable(b.Key, o.version)
	if !inFlight && b.CacheDc != "" && m.p.mode.Caches && !b.Txn {
		if m.cachedAt[b.Key] == nil {
			m.cachedAt[b.Key] = map[string]bool{}
		}
		m.cachedAt[b.Key][b.CacheDc] = true
	}
	writer := ""
	if inFlight {
		writer = o.writer
	}
	r.Send(m.id, from, &pb.RingGetReply{ReqId: b.ReqId, Key: b.Key, Value: o.value, Version: o.version,
		InFlight: inFlight, Ring: int32(m.ring), Clock: clock, Evt: o.evt, Writer: writer})
}

// markStable records a STABLE: the version is in every ring. The highest
// stable version of each key is persisted; a superseded version still in
// the multiversion window is marked there, since a get-transaction's
// second round may return it (isStable).
func (m *middleMan) markStable(key string, version uint64, r *protocol.Ready) {
	if version > m.stable[key] {
		m.stable[key] = version
		r.Write(storage.Write{Kind: storage.Put, Key: "t/" + key, Version: version}, false)
	}
	for i := range m.old[key] {
		if m.old[key][i].version == version {
			m.old[key][i].stable = true
		}
	}
}

// isStable reports whether version of key is stable (§4.1.2: known to be
// in every ring; any other version is in flight, and reading it restricts
// the reader). stable[key] is only the key's highest stable version: an
// older one returned by a get-transaction's second round (versionAt) is
// stable only if its own STABLE arrived, whatever newer version has since
// become stable. A version older than the highest stable one that the
// window no longer holds counts as in flight: a needless restriction,
// lifted by notify-after, never a wrong release. Version 0, a key's
// initial state, is in every ring from the start.
func (m *middleMan) isStable(key string, version uint64) bool {
	switch high := m.stable[key]; {
	case version == 0 || version == high:
		return true
	case version > high:
		return false
	}
	for _, o := range m.old[key] {
		if o.version == version {
			return o.stable
		}
	}
	return false
}

// versionAt returns key's version valid at commit-clock time at: the
// newest with evt <= at, if the window still holds it.
func (m *middleMan) versionAt(key string, at uint64) (object, bool) {
	if o := m.store[key]; o.evt <= at {
		return o, true
	}
	old := m.old[key]
	for i := len(old) - 1; i >= 0; i-- {
		if old[i].evt <= at {
			return old[i].object, true
		}
	}
	return object{}, false
}

// supersede keeps key's current version in the multiversion window and
// prunes what has left it.
func (m *middleMan) supersede(now time.Duration, key string) {
	cur := m.store[key]
	old := append(m.old[key], oldVersion{object: cur, until: now, stable: m.isStable(key, cur.version)})
	drop := max(0, len(old)-maxOldVersions)
	for drop < len(old) && now-old[drop].until > txnWindow {
		drop++
	}
	m.old[key] = old[drop:]
}

// invalidationTargets returns the cache nodes that may hold key and
// forgets them: after the invalidation no cache holds an older version.
// They include every cache that an earlier version of the key is still
// invalidating: the cached-at set was cleared when that invalidation
// began, but until the cache acknowledges it may hold the key, so a
// version written without asking it again could be followed, in a reader
// that read it, by the cache's older copy
// (testdata/invalidation_pending_for_older_version).
func (m *middleMan) invalidationTargets(key string) map[protocol.NodeID]bool {
	if !m.p.mode.Caches {
		return nil
	}
	out := map[protocol.NodeID]bool{}
	for _, iv := range m.inval {
		if iv.msg.Key == key {
			for c := range iv.pending {
				out[c] = true
			}
		}
	}
	if m.restarted && !m.cachedAtKnown[key] {
		for _, dc := range m.topo.DCNames() {
			out[m.p.cacheFor(dc, key)] = true
		}
		m.cachedAtKnown[key] = true
	} else {
		for dc := range m.cachedAt[key] {
			out[m.p.cacheFor(dc, key)] = true
		}
	}
	delete(m.cachedAt, key)
	return out
}

// written marks a version as committed in this ring, wakes the DepChecks
// waiting for it and acknowledges the CC.
func (m *middleMan) written(key string, version uint64, cc protocol.NodeID, id uint64, r *protocol.Ready) {
	dk := depKey(key, version)
	if m.selfWaiters[dk] != nil {
		m.markSelfWritten(dk, version)
	}
	delete(m.selfWritten, dk) // committed answers for it now
	if !m.committed[dk] {
		m.committed[dk] = true
		r.Write(storage.Write{Kind: storage.Put, Key: "s/" + dk, Version: m.readyAt[dk]}, true)
		r.Write(storage.Write{Kind: storage.Delete, Key: installedKey(dk)}, true)
	}
	if version == m.store[key].version && version > m.stable[key] {
		m.stab.committed(key, version)
	}
	for _, from := range slices.Sorted(maps.Keys(m.waiters[dk])) {
		if m.topo.RingOf(from.DC()) == m.ring {
			m.okTo(from).wrote[version] = true // by version (byversion.go)
		} else { // a stability probe (stabilize.go)
			r.Send(m.id, from, &pb.DepOK{Dep: &pb.Dep{Key: key, Version: version}, Clock: m.lc.now})
		}
	}
	delete(m.waiters, dk)
	if cc != "" { // else recovered pending: acknowledged on its retransmission
		r.Send(m.id, cc, &pb.RingPutAck{Id: id, Ring: int32(m.ring), Clock: m.lc.now, Key: key, Version: version})
	}
}

// marshal encodes a generated message (it cannot fail).
func marshal(msg proto.Message) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		panic(err)
	}
	return b
}
