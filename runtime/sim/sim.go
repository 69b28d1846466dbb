// Package sim is Causeway's deterministic discrete-event simulator: the
// runtime that drives protocol state machines with virtual time.
//
// One seed determines the whole run: network jitter, loss and reordering,
// the fault schedule and every node's randomness each draw from their own
// PRNG derived from the seed, events at equal times are ordered by
// insertion, and nothing depends on map iteration order. The same seed
// therefore gives the same run, byte for byte.
//
// The network model: a message from DC a to DC b takes RTT(a,b)/2 plus a
// uniform jitter in ±Jitter (wide-area links only), plus any congestion
// delay of the fault schedule. Messages may be lost, duplicated or
// reordered by faults and are dropped on cut links (partitions, symmetric or
// one-way) and at crashed nodes. Every message is copied when sent
// (proto.Clone, which keeps what the wire keeps: an empty bytes field
// arrives as nil, as it would decoded), so nothing is shared between nodes
// by aliasing — unless the protocol promises that its nodes never modify
// a body sent or received (protocol.Sharer; Config.CheckShared checks the
// promise), when receivers get the sent body itself; Config.WireRoundTrip
// encodes and decodes it with the wire codec instead, as the live runtimes
// do.
//
// Nodes: every server node of the protocol, plus client sessions added with
// AddSession. A server node may have a service time (Config.ServiceTime,
// priced per input by Config.Cost, see cost.go): it then handles one input
// at a time and queues the rest, high priority first (queue.go), so that
// offered load saturates it as a real CPU would. A crash discards a node's
// memory, queued inputs and timers and the unsynced suffix of its storage
// (a storage.Mem); a restart re-creates it from what its storage kept.
//
// Message-level control (intercept.go): a test driver can hold messages
// that match a rule when they arrive, list them, deliver or drop them
// later, and trace every message handed to a node (Hold, Held, Deliver,
// Drop, SetTrace); runtime/sim/scenario scripts races with it.
package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
)

// Config configures a simulation.
type Config struct {
	Topology *topology.Topology
	Protocol protocol.Protocol
	Seed     uint64
	// Jitter bounds the uniform one-way jitter on wide-area links; 0 uses
	// the topology's jitter_ms, negative means none.
	Jitter time.Duration
	// ServiceTime is the time a server node spends on each input (0: none),
	// scaled by the node's NodeSpec.Cost: the simple form of the cost model.
	ServiceTime time.Duration
	// Cost, when set, prices each input in units of ServiceTime by the
	// node's role, the message's kind and its payload bytes (cost.go,
	// DefaultCostModel). nil is the simple form.
	Cost *CostModel
	// OpTimeout is given to client sessions (default 5s).
	OpTimeout time.Duration
	// Faults is the fault schedule to carry out.
	Faults faults.Schedule
	// Observer is told about messages and visibility (optional).
	Observer runtime.Observer
	// Loaded is the dataset every server node starts with (optional; see
	// protocol.Dataset): the simulator's load phase, free of memory per
	// key.
	Loaded *protocol.Dataset
	// WireRoundTrip, when set, encodes every message with the wire codec
	// when it is sent and decodes it on delivery, as the live runtimes do,
	// instead of copying it (about twice the cost of the copy; a run is
	// the same either way, since both keep exactly what the wire keeps).
	WireRoundTrip bool
	// CheckShared, for tests: a body the protocol lets receivers share
	// (protocol.Sharer) is copied when first sent, and compared with its
	// copy whenever a node receives it, after the node's Step, and by
	// SharedIntact; a body that changed panics (or is SharedIntact's
	// error), naming its receiver.
	CheckShared bool
	// Served, when set, is told about each input a server node with a
	// service time starts serving: when (virtual time), the node, whether
	// the input is a message from a client session, how long it waited in
	// the node's queue since it arrived (a held message: since it first
	// arrived) and its service time. A measurement hook (bench's queued
	// visibility bound); it must not call back into the Sim.
	Served func(at time.Duration, node protocol.NodeID, client bool, wait, service time.Duration)
}

// Stats counts what the network did.
type Stats struct {
	Messages    int64 // messages handed to the network
	WANMessages int64 // of which crossed between DCs
	WANBytes    int64 // payload bytes (proto.Size) that crossed between DCs
	Dropped     int64 // lost, cut by a partition, or sent to a crashed node
	Duplicated  int64
	Events      int64 // events processed
	// NoRoute counts the messages from a server node to a client session
	// that had not sent that node anything since it (re)started. The live
	// transport has no connection back to such a session (a node answers
	// a session only on the stream the session opened to it,
	// ARCHITECTURE.md) and drops them; the simulator still delivers them
	// (the chain protocols rely on it yet), and only counts them.
	NoRoute int64

	// WANFrameBytes is WANBytes plus the wire codec's framing (each
	// message's kind, wire.FrameSize): the payload bytes of the live
	// transport's frames.
	WANFrameBytes int64
	// ReplicatedWrites counts the messages that crossed between DCs
	// carrying a replicated write (protocol.WriteCarrier), and
	// MetadataBytes their payload bytes minus their values' lengths.
	ReplicatedWrites int64
	MetadataBytes    int64
}

type eventKind uint8

const (
	evDeliver eventKind = iota
	evTimer
	evSubmit
	evWake
	evFault
	evCall
	evOutput // a busy node's outputs, leaving when its service time is over
)

// event is one entry of the event queue. Events are recycled (Sim.free)
// once handled, unless a node's service queue or a hold keeps them.
// It is kept small (what it refers to, a fault, a Ready, a session's
// request, lives elsewhere): recycling one clears it, and the queue's
// events are the run's working set.
//
// 80 bytes (a size class of its own): an operation's timeout is one, and
// a busy run holds a hundred thousand of them for seconds. Its sequence
// number lives only in its queue entry (queued, laneHead), and a fault is
// an evFault's call.
type event struct {
	at    time.Duration
	kind  eventKind
	inc   int32 // node incarnation the event belongs to
	node  *simNode
	src   *simNode      // a delivered message's sender
	size  int           // payload bytes of a delivered message
	body  proto.Message // a delivered message: the receiver's own copy (or the shared body)
	token uint64
	call  func()          // evCall, evFault
	ready *protocol.Ready // evOutput: what the node's input produced (recycled once applied)
}

type simNode struct {
	id      protocol.NodeID
	dc      string
	dcIdx   int // dc's index in the topology (-1: unknown)
	zone    string
	role    protocol.Role
	session bool
	sm      protocol.Node
	// recycler is sm when it reuses its Readies (protocol.Recycler):
	// each Ready goes back to it once applied.
	recycler protocol.Recycler
	engine   *storage.Mem
	rng      *rand.Rand // the node's own randomness, handed to the protocol
	up       bool
	inc      int32
	skew     time.Duration
	// service-time queueing; service is the node's time per input
	service   time.Duration
	busyUntil time.Duration
	queue     serviceQueue
	waking    bool
	// client sessions: the outstanding operation (submitted by an
	// evSubmit event) and its reply callback
	req     protocol.Request
	onReply func(now time.Duration, rep protocol.Reply)
	// heard are the sessions a server node has received a message from
	// since it last started: the only sessions it can send to
	// (Stats.NoRoute). A bit set by session ordinal (sidx).
	heard []uint64
	// sidx is a session's ordinal among the sessions (its bit in heard).
	sidx int
}

// hears reports whether server n has heard from session f since it
// started.
func (n *simNode) hears(f *simNode) bool {
	w := f.sidx >> 6
	return w < len(n.heard) && n.heard[w]&(1<<(f.sidx&63)) != 0
}

// hear records that server n has heard from session f.
func (n *simNode) hear(f *simNode) {
	w := f.sidx >> 6
	for len(n.heard) <= w {
		n.heard = append(n.heard, 0)
	}
	n.heard[w] |= 1 << (f.sidx & 63)
}

// Sim is one simulation. It is not safe for concurrent use.
type Sim struct {
	cfg     Config
	topo    *topology.Topology
	oneWay  [][]time.Duration // topo.OneWay by DC index
	now     time.Duration
	seq     uint64
	events  eventQueue
	pool    []*event          // handled events, for reuse
	readies []*protocol.Ready // applied evOutput Readies, for reuse
	nodes   map[protocol.NodeID]*simNode
	// byAddr caches nodes by their ID's bytes' address (node).
	byAddr [nodeCache]nodeRef
	order  []*simNode // servers in creation order, then sessions
	// sessions counts the sessions created (the next one's sidx).
	sessions int
	netRng   *rand.Rand
	faultRg  *rand.Rand
	jitter   time.Duration
	obs      runtime.Observer
	prio     protocol.Prioritizer            // nil unless the protocol has priorities
	carrier  protocol.WriteCarrier           // nil unless the protocol says which messages replicate writes
	cloner   protocol.Cloner                 // nil unless the protocol copies its own messages
	sizer    protocol.Sizer                  // nil unless the protocol sizes its own messages
	sharer   protocol.Sharer                 // nil unless the protocol's bodies may be shared
	shared   map[proto.Message]proto.Message // Config.CheckShared: each shared body's copy when first sent
	stats    Stats
	net      netState
	icpt     intercept // message-level control (intercept.go)
	sized    sized     // the last message sized, while a Ready is applied (countBytes)
	// FaultLog records every fault event as it was carried out.
	FaultLog []string
}

// seedFor derives a per-subsystem seed from the run seed and a name.
func seedFor(seed uint64, name string) (uint64, uint64) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	x := h.Sum64()
	return seed ^ x, x*0x9e3779b97f4a7c15 + seed
}

// NewRand returns the PRNG of subsystem name for a run seeded with seed.
func NewRand(seed uint64, name string) *rand.Rand {
	a, b := seedFor(seed, name)
	return rand.New(rand.NewPCG(a, b))
}

// New creates a simulation with every server node of cfg.Protocol started
// at time 0 and the fault schedule queued.
func New(cfg Config) (*Sim, error) {
	if cfg.Topology == nil || cfg.Protocol == nil {
		return nil, fmt.Errorf("sim: Config needs a Topology and a Protocol")
	}
	if err := cfg.Protocol.Validate(cfg.Topology); err != nil {
		return nil, fmt.Errorf("sim: protocol %s on topology %s: %w", cfg.Protocol.Name(), cfg.Topology.Name, err)
	}
	if cfg.OpTimeout <= 0 {
		cfg.OpTimeout = 5 * time.Second
	}
	if err := cfg.Cost.Validate(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s := &Sim{
		cfg:     cfg,
		topo:    cfg.Topology,
		nodes:   map[protocol.NodeID]*simNode{},
		netRng:  NewRand(cfg.Seed, "network"),
		faultRg: NewRand(cfg.Seed, "faults"),
		obs:     cfg.Observer,
		net:     newNetState(),
	}
	s.net.now = s.Now
	s.prio, _ = cfg.Protocol.(protocol.Prioritizer)
	s.carrier, _ = cfg.Protocol.(protocol.WriteCarrier)
	s.cloner, _ = cfg.Protocol.(protocol.Cloner)
	s.sizer, _ = cfg.Protocol.(protocol.Sizer)
	s.sharer, _ = cfg.Protocol.(protocol.Sharer)
	if cfg.CheckShared {
		s.shared = map[proto.Message]proto.Message{}
	}
	if s.obs == nil {
		s.obs = runtime.NopObserver{}
	}
	switch {
	case cfg.Jitter < 0:
		s.jitter = 0
	case cfg.Jitter == 0:
		s.jitter = cfg.Topology.Jitter()
	default:
		s.jitter = cfg.Jitter
	}
	s.oneWay = make([][]time.Duration, len(s.topo.Datacenters))
	for i, a := range s.topo.Datacenters {
		s.oneWay[i] = make([]time.Duration, len(s.topo.Datacenters))
		for j, b := range s.topo.Datacenters {
			s.oneWay[i][j] = s.topo.OneWay(a.Name, b.Name)
		}
	}
	for _, spec := range cfg.Protocol.Nodes(cfg.Topology) {
		if _, dup := s.nodes[spec.ID]; dup {
			return nil, fmt.Errorf("sim: protocol %s lists node %s twice", cfg.Protocol.Name(), spec.ID)
		}
		role := spec.Role
		if role == "" {
			role = protocol.RoleStorage
		}
		n := &simNode{id: spec.ID, dc: spec.ID.DC(), dcIdx: s.dcIndex(spec.ID.DC()), zone: spec.Zone, role: role, engine: storage.NewMem(),
			rng: NewRand(cfg.Seed, "node/"+string(spec.ID)), service: cfg.ServiceTime}
		if scale := cfg.Cost.Scale(role, spec.Cost); scale != 1 {
			n.service = time.Duration(float64(cfg.ServiceTime) * scale)
		}
		s.nodes[spec.ID] = n
		s.order = append(s.order, n)
	}
	for _, n := range s.order {
		s.startNode(n)
	}
	for i, f := range cfg.Faults {
		// Node names are the protocol's, so only here can a target that
		// names no node be caught.
		targets := []string{f.Crash, f.Restart}
		var groups [][]string
		groups = append(groups, f.Partition...)
		if o := f.PartitionOneway; o != nil {
			groups = append(groups, o.From, o.To)
		}
		for _, g := range groups {
			for _, name := range g {
				if strings.Contains(name, "/") {
					targets = append(targets, "zone:"+name)
				}
			}
		}
		for _, target := range targets {
			if target != "" && len(s.matching(target, false)) == 0 {
				return nil, fmt.Errorf("sim: fault event %d (at %v): %q matches no node of protocol %s on %s",
					i+1, f.At, target, cfg.Protocol.Name(), cfg.Topology.Name)
			}
		}
		s.push(&event{at: f.At, kind: evFault, call: func() { s.doFault(f) }})
	}
	return s, nil
}

// Now returns the current virtual time.
func (s *Sim) Now() time.Duration { return s.now }

// Stats returns the network counters so far.
func (s *Sim) Stats() Stats { return s.stats }

// Topology returns the simulated topology.
func (s *Sim) Topology() *topology.Topology { return s.topo }

func (s *Sim) push(e *event) {
	s.seq++
	s.events.push(e, s.seq)
}

// pushAfter queues e, due delay from now (e.at == s.now+delay), in the
// lane of events with that delay (eventQueue).
func (s *Sim) pushAfter(e *event, delay time.Duration) {
	s.seq++
	s.events.pushAfter(e, s.seq, delay)
}

// newEvent returns a zeroed event, recycled when one is free.
func (s *Sim) newEvent() *event {
	if n := len(s.pool); n > 0 {
		e := s.pool[n-1]
		s.pool = s.pool[:n-1]
		return e
	}
	return &event{}
}

// free recycles a handled event that nothing refers to any more.
func (s *Sim) free(e *event) {
	*e = event{}
	s.pool = append(s.pool, e)
}

// AddSession creates a client session called name in datacenter dc.
func (s *Sim) AddSession(dc, name string) (protocol.NodeID, error) {
	return s.addSession(dc, name, nil)
}

// ResumeSession creates a client session called name in datacenter dc
// that continues the session token was taken from (SessionToken): the
// protocol holds its operations until dc has caught up with the token's
// causal context. It fails when the protocol does not support moving
// sessions (protocol.ErrMoveUnsupported) or refuses the token
// (protocol.ErrBadToken).
func (s *Sim) ResumeSession(dc, name string, token []byte) (protocol.NodeID, error) {
	if token == nil {
		token = []byte{}
	}
	return s.addSession(dc, name, token)
}

// SessionToken returns the token of a session with no operation
// outstanding, for ResumeSession. The session may go on being used.
func (s *Sim) SessionToken(session protocol.NodeID) ([]byte, error) {
	n, ok := s.nodes[session]
	if !ok || !n.session {
		return nil, fmt.Errorf("sim: no session %s", session)
	}
	if n.onReply != nil {
		return nil, fmt.Errorf("sim: session %s has an operation outstanding", session)
	}
	return protocol.SessionToken(s.cfg.Protocol, n.sm.(protocol.Session))
}

// addSession creates a session, from token unless it is nil.
func (s *Sim) addSession(dc, name string, token []byte) (protocol.NodeID, error) {
	if !s.topo.HasDC(dc) {
		return "", fmt.Errorf("sim: unknown datacenter %q (valid: %v)", dc, s.topo.DCNames())
	}
	id := protocol.MakeNodeID(dc, name)
	if _, dup := s.nodes[id]; dup {
		return "", fmt.Errorf("sim: node %s exists already", id)
	}
	n := &simNode{id: id, dc: dc, dcIdx: s.dcIndex(dc), session: true, up: true, rng: NewRand(s.cfg.Seed, "session/"+string(id)),
		sidx: s.sessions}
	cfg := protocol.SessionConfig{ID: id, Topology: s.topo, Rand: n.rng, OpTimeout: s.cfg.OpTimeout}
	if token == nil {
		n.sm = s.cfg.Protocol.NewSession(cfg)
	} else {
		sm, err := protocol.ResumeSession(s.cfg.Protocol, cfg, token)
		if err != nil {
			return "", fmt.Errorf("sim: session %s: %w", id, err)
		}
		n.sm = sm
	}
	n.recycler, _ = n.sm.(protocol.Recycler)
	s.nodes[id] = n
	s.order = append(s.order, n)
	s.sessions++
	s.apply(n, n.sm.Start(s.localNow(n)))
	return id, nil
}

// Submit starts a client operation on a session now; onReply is called
// (from inside Run) with its reply. A session has one operation at a time.
func (s *Sim) Submit(session protocol.NodeID, req protocol.Request, onReply func(now time.Duration, rep protocol.Reply)) error {
	n := s.node(session)
	if n == nil || !n.session {
		return fmt.Errorf("sim: no session %s", session)
	}
	if n.onReply != nil {
		return fmt.Errorf("sim: session %s already has an operation outstanding", session)
	}
	n.onReply, n.req = onReply, req
	e := s.newEvent()
	e.at, e.kind, e.node, e.inc = s.now, evSubmit, n, n.inc
	s.pushAfter(e, 0)
	return nil
}

// Inject carries out a fault event now, whatever its At (scenario tests
// drive faults step by step this way).
func (s *Sim) Inject(f faults.Event) { s.doFault(f) }

// At runs fn at virtual time t (or now, if t is in the past).
func (s *Sim) At(t time.Duration, fn func()) {
	if t < s.now {
		t = s.now
	}
	e := s.newEvent()
	e.at, e.kind, e.call = t, evCall, fn
	s.push(e)
}

// RunUntil processes every event due at or before t and leaves the clock
// at t.
func (s *Sim) RunUntil(t time.Duration) {
	for {
		if at, ok := s.events.next(); !ok || at > t {
			break
		}
		e := s.events.pop()
		s.now = e.at
		s.stats.Events++
		if !s.handle(e) {
			s.free(e)
		}
	}
	if t > s.now {
		s.now = t
	}
}

// Quiesce heals every fault, restarts crashed nodes, and then runs until a
// whole step passes with no message sent, or until limit more virtual time
// has passed. It reports whether the network went quiet. Held messages
// (Hold) stay held.
func (s *Sim) Quiesce(step, limit time.Duration) bool {
	s.heal("all")
	return s.RunUntilQuiet(step, limit)
}

// RunUntilQuiet runs until a whole step passes with no message sent, or
// until limit more virtual time has passed, and reports whether the
// network went quiet. Unlike Quiesce it leaves faults and held messages
// alone.
func (s *Sim) RunUntilQuiet(step, limit time.Duration) bool {
	deadline := s.now + limit
	for s.now < deadline {
		before := s.stats.Messages
		s.RunUntil(s.now + step)
		if s.stats.Messages == before {
			return true
		}
	}
	return false
}

// Replicas collects, from every live server node implementing
// protocol.Inspector, the value each key has there.
func (s *Sim) Replicas() map[protocol.NodeID]map[string][]byte {
	out := map[protocol.NodeID]map[string][]byte{}
	for _, n := range s.order {
		if n.session || !n.up {
			continue
		}
		in, ok := n.sm.(protocol.Inspector)
		if !ok {
			continue
		}
		m := map[string][]byte{}
		in.Replicas(func(k string, v []byte) { m[k] = v })
		out[n.id] = m
	}
	return out
}

// NodeIDs lists the server nodes in creation order.
func (s *Sim) NodeIDs() []protocol.NodeID {
	var ids []protocol.NodeID
	for _, n := range s.order {
		if !n.session {
			ids = append(ids, n.id)
		}
	}
	return ids
}

func (s *Sim) localNow(n *simNode) time.Duration {
	t := s.now + n.skew
	if t < 0 {
		return 0
	}
	return t
}

func (s *Sim) startNode(n *simNode) {
	n.up = true
	n.inc++
	n.busyUntil, n.waking = 0, false
	n.queue.reset()
	n.sm = s.cfg.Protocol.NewNode(protocol.NodeConfig{ID: n.id, Role: n.role, Incarnation: uint64(n.inc),
		Topology: s.topo, Storage: n.engine, Rand: n.rng, Loaded: s.cfg.Loaded})
	n.recycler, _ = n.sm.(protocol.Recycler)
	s.apply(n, n.sm.Start(s.localNow(n)))
}

// handle carries out one event and reports whether something (a hold, a
// node's service queue) still refers to it.
func (s *Sim) handle(e *event) (kept bool) {
	switch e.kind {
	case evFault, evCall:
		e.call()
		return false
	case evOutput:
		r := e.ready
		if n := e.node; n.up && n.inc == e.inc {
			s.apply(n, *r)
		}
		*r = protocol.Ready{}
		s.readies = append(s.readies, r)
		return false
	case evWake:
		n := e.node
		n.waking = false
		if !n.up || e.inc != n.inc || n.queue.len() == 0 {
			return false
		}
		q := n.queue.pop()
		s.process(n, q)
		s.free(q)
		return false
	}
	if e.kind == evDeliver && s.maybeHold(e) {
		return true
	}
	return s.arrive(e)
}

// arrive hands a delivery, timer or submission to its node, or to the
// node's service queue; it reports whether the queue kept e.
func (s *Sim) arrive(e *event) (queued bool) {
	n := e.node
	if e.kind == evDeliver && s.cutFrom(e.src, n) {
		s.stats.Dropped++ // the link was cut while the message was in flight
		return false
	}
	if !n.up || (e.kind != evDeliver && e.inc != n.inc) {
		if e.kind == evDeliver {
			s.stats.Dropped++
		}
		return false
	}
	if e.kind == evDeliver && !n.session {
		if f := e.src; f.session {
			n.hear(f)
		}
	}
	if n.session || n.service <= 0 {
		s.process(n, e)
		return false
	}
	if n.busyUntil > s.now || n.queue.len() > 0 {
		n.queue.push(e, s.priority(n, e))
		s.scheduleWake(n)
		return true
	}
	s.process(n, e)
	return false
}

func (s *Sim) scheduleWake(n *simNode) {
	if n.waking {
		return
	}
	n.waking = true
	at := n.busyUntil
	if at < s.now {
		at = s.now
	}
	e := s.newEvent()
	e.at, e.kind, e.node, e.inc = at, evWake, n, n.inc
	s.push(e)
}

// cutFrom reports whether the link from node f to n is cut (a message in
// flight when a partition began is lost).
func (s *Sim) cutFrom(f, n *simNode) bool {
	return len(s.net.cuts) > 0 && s.net.cut(f, n)
}

// process hands one input to a node and applies its Ready. With a service
// time the node is busy for the input's cost (cost.go) and its outputs
// leave then.
func (s *Sim) process(n *simNode, e *event) {
	now := s.localNow(n)
	var r protocol.Ready
	switch e.kind {
	case evDeliver:
		m := protocol.Message{From: e.src.id, To: n.id, Body: e.body}
		if s.icpt.trace != nil {
			s.icpt.trace(s.now, m)
		}
		s.checkShared(e.body, n, "before")
		r = n.sm.Step(now, m)
		s.checkShared(e.body, n, "after")
	case evTimer:
		r = n.sm.Tick(now, e.token)
	case evSubmit:
		req := n.req
		n.req = protocol.Request{}
		r = n.sm.(protocol.Session).Submit(now, req)
	}
	if !n.session && n.service > 0 {
		c := s.cost(n, e)
		n.busyUntil = s.now + c
		if s.cfg.Served != nil {
			s.cfg.Served(s.now, n.id, e.kind == evDeliver && e.src.session, s.now-e.at, c)
		}
		if n.queue.len() > 0 {
			s.scheduleWake(n)
		}
		// Outputs leave when the service time is over.
		var rp *protocol.Ready
		if k := len(s.readies); k > 0 {
			rp = s.readies[k-1]
			s.readies = s.readies[:k-1]
		} else {
			rp = new(protocol.Ready)
		}
		*rp = r
		out := s.newEvent()
		out.at, out.kind, out.node, out.inc, out.ready = n.busyUntil, evOutput, n, n.inc, rp
		s.pushAfter(out, n.busyUntil-s.now)
		return
	}
	s.apply(n, r)
}

// apply carries out a Ready of n's current state machine: persistence
// first, then its effects; the Ready then goes back to the state machine
// if it recycles them (protocol.Recycler: nothing here keeps its slices).
func (s *Sim) apply(n *simNode, r protocol.Ready) {
	rc := n.recycler // the reply callbacks below may not change it, but be sure
	if len(r.Persist.Writes) > 0 {
		if n.engine == nil {
			panic(fmt.Sprintf("sim: session %s asked to persist writes", n.id))
		}
		if err := n.engine.Apply(r.Persist.Writes, r.Persist.Sync); err != nil {
			panic(fmt.Sprintf("sim: node %s storage: %v", n.id, err))
		}
	}
	s.sized = sized{}
	for _, m := range r.After.Messages {
		s.send(n, m)
	}
	s.sized = sized{} // the sender may change its messages once it runs again
	for _, t := range r.After.Timers {
		e := s.newEvent()
		e.at, e.kind, e.node, e.inc, e.token = s.now+t.After, evTimer, n, n.inc, t.Token
		s.pushAfter(e, t.After)
	}
	for _, v := range r.After.Visible {
		s.obs.Visible(s.now, n.id, v)
	}
	for _, rep := range r.After.Replies {
		cb := n.onReply
		n.onReply = nil
		if cb == nil {
			panic(fmt.Sprintf("sim: session %s replied with no operation outstanding (%v)", n.id, rep.Op))
		}
		cb(s.now, rep)
	}
	if rc != nil {
		rc.Recycle(r)
	}
}

// dcIndex returns the index of dc in the topology, -1 if it has none.
func (s *Sim) dcIndex(dc string) int {
	for i, d := range s.topo.Datacenters {
		if d.Name == dc {
			return i
		}
	}
	return -1
}

// delay is the one-way network delay from one node to another, before
// jitter and faults: topo.OneWay, looked up by index.
func (s *Sim) delay(from, to *simNode) time.Duration {
	if from.dcIdx < 0 || to.dcIdx < 0 {
		return s.topo.OneWay(from.dc, to.dc) // panics: an unknown DC
	}
	return s.oneWay[from.dcIdx][to.dcIdx]
}

// nodeRef is a node and the ID string it was found by.
type nodeRef struct {
	id protocol.NodeID
	n  *simNode
}

// nodeCache is the number of Sim.byAddr slots (a power of two).
const nodeCache = 256

// node returns the node called id, nil if there is none. A protocol
// addresses its messages with the same few ID strings over and over
// (fullrep builds each server's once), so a direct-mapped cache by the
// address of the string's bytes answers most lookups without hashing
// the string: an entry keeps its string alive, so an equal address and
// length is the same string.
func (s *Sim) node(id protocol.NodeID) *simNode {
	p := unsafe.StringData(string(id))
	slot := &s.byAddr[(uintptr(unsafe.Pointer(p))>>4)&(nodeCache-1)]
	if len(slot.id) == len(id) && unsafe.StringData(string(slot.id)) == p && slot.n != nil {
		return slot.n
	}
	n := s.nodes[id]
	if n != nil && len(id) > 0 {
		*slot = nodeRef{id, n}
	}
	return n
}

func (s *Sim) send(from *simNode, m protocol.Message) {
	to := s.node(m.To)
	if to == nil {
		panic(fmt.Sprintf("sim: node %s sent %T to unknown node %s", from.id, m.Body, m.To))
	}
	if m.From != from.id {
		panic(fmt.Sprintf("sim: node %s sent a message claiming to be from %s", from.id, m.From))
	}
	s.stats.Messages++
	wan := from.dc != to.dc
	size := s.countBytes(from, m.Body, wan)
	s.obs.MessageSent(s.now, from.id, to.id, size)
	copies := 1
	if to.session && !from.session {
		if !from.hears(to) {
			s.stats.NoRoute++ // the live node would have no stream back to it
		}
	}
	if s.net.cut(from, to) {
		s.stats.Dropped++
		return
	}
	if wan {
		if s.net.lost(s.netRng, from, to) {
			s.stats.Dropped++
			return
		}
		if s.net.duplicated(s.netRng, from, to) {
			copies = 2
			s.stats.Duplicated++
		}
	}
	for c := 0; c < copies; c++ {
		d := s.delay(from, to)
		if wan {
			if s.jitter > 0 {
				d += time.Duration(s.netRng.Int64N(int64(2*s.jitter)+1)) - s.jitter
			}
			d += s.net.extraDelay(s.netRng, from, to)
			if d < 0 {
				d = 0
			}
		}
		e := s.newEvent()
		e.at, e.kind, e.node, e.src, e.size, e.body = s.now+d, evDeliver, to, from, size, s.copyBody(from, m.Body)
		if wan {
			s.push(e) // jittered: no lane
		} else {
			s.pushAfter(e, d)
		}
	}
}
