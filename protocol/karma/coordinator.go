package karma

import (
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
	pb "github.com/causeway/causeway/wire/karmapb"
)

// wbEntry is one put in a client thread's write buffer (§4.1.2), or a
// notify-after (§4.2), with its propagation state per ring.
type wbEntry struct {
	put     *pb.RingPut
	session string
	acked   []bool
	sent    []bool
	retry   []protocol.Retry
	// sentAt is when each ring was first sent the write, and resent
	// whether it has been sent again (its acknowledgement then says
	// nothing about the round trip: Karn's rule).
	sentAt []time.Duration
	resent []bool
	// lastSent is when each ring was last sent the write.
	lastSent []time.Duration
	// recovered: the entry was reloaded after a crash, so which rings it
	// reached, and what the thread had read, are unknown: a get never
	// answers from it without asking a ring too.
	recovered bool
	// readRing is the ring the thread was bound to when it put the write
	// (-1: none, or unknown after a crash): its put-after dependencies are
	// installed there, so that ring's copy says so (toRing).
	readRing int
}

func (e *wbEntry) allAcked() bool {
	for _, a := range e.acked {
		if !a {
			return false
		}
	}
	return true
}

// pendingGet is a session's get in progress at the CC.
type pendingGet struct {
	reqID      uint64 // the session's
	from       protocol.NodeID
	key        string
	restricted bool
	inCache    bool   // waiting for the DC cache
	ring       int    // the ring being read
	ringReq    uint64 // our request id to the cache or ring
	// attempts holds the ids of every ring read sent for this get: a
	// reply to an earlier attempt completes it as well as one to the
	// latest (a slow ring must not be outrun by its own retries).
	attempts   map[uint64]bool
	deadline   time.Duration
	cacheDC    string
	epoch, seq uint64 // of the cache's miss, for the fill
}

// threadState is what the CC keeps for one client thread (session).
type threadState struct {
	name string
	wb   []*wbEntry // puts in program order
	// drrRing is the ring the thread is restricted to (-1: none) and drr
	// the in-flight (key, version)s it read there (§4.2).
	drrRing    int
	drr        map[string]*pb.Dep
	notify     *wbEntry
	lastNotify time.Duration
	// home is an install check in flight to the CC's own ring while the
	// thread is bound to another (rebind.go, askHome).
	home *wbEntry
	get  *pendingGet
	txn  *pendingTxn
	// moving: a resumed session asked for this thread (token.go); under
	// COPS-PR only this makes its in-flight reads worth a notify-after.
	moving bool
	// maxSeen is the highest version the thread has read from a ring or
	// cache: every write in its causal past has a version at most this.
	maxSeen uint64
	// completed holds the thread's own completed writes, by key, until a
	// read returns that version or a newer one: a reply sent by a ring
	// before the write arrived there may overtake its acknowledgement.
	completed map[string]*pb.RingPut
	// inWB counts, by depKey, the thread's writes in wb, and covering
	// the writes in wb that carry each put-after dependency: kept as
	// writes enter and leave the buffer (buffer, complete), so that
	// buffered and uncovered need not walk the buffer and every
	// dependency of its writes at each tick.
	inWB, covering map[string]int
	// coverW counts the same dependencies by writer thread and version
	// (writers.go): a buffered write carrying a writer's later version
	// lifts that writer's earlier restrictions too.
	coverW map[string]map[uint64]int
}

// buffer appends e to the thread's write buffer.
func (t *threadState) buffer(e *wbEntry) {
	t.wb = append(t.wb, e)
	t.inWB[depKey(e.put.Key, e.put.Version)]++
	for _, d := range e.put.Deps {
		t.covering[depKey(d.Key, d.Version)]++
		t.coverWriter(d, 1)
	}
}

// unbuffer removes the oldest write from the thread's write buffer.
func (t *threadState) unbuffer() {
	e := t.wb[0]
	t.wb[0] = nil
	t.wb = t.wb[1:]
	decr(t.inWB, depKey(e.put.Key, e.put.Version))
	for _, d := range e.put.Deps {
		decr(t.covering, depKey(d.Key, d.Version))
		t.coverWriter(d, -1)
	}
}

func decr(m map[string]int, k string) {
	if m[k] <= 1 {
		delete(m, k)
		return
	}
	m[k]--
}

// coordinator is a client coordinator (CC, karma.txt §4.1): it holds the
// write buffers and ring restrictions of the client threads of its DC that
// map to it, propagates their writes to every ring in causal order, detects
// global write completion, and routes gets (Fig. 3).
type coordinator struct {
	p      *Protocol
	id     protocol.NodeID
	dc     string
	myRing int
	topo   *topology.Topology
	index  uint64      // among all CCs, for versions
	vc     commitClock // Lamport counter of write versions, leased like lc
	lc     commitClock
	nextID uint64 // write-buffer entry and request ids (firstID)

	threads map[string]*threadState
	entries map[uint64]*wbEntry // by RingPut.id
	reqs    map[uint64]string   // ring/cache request id -> thread
	// The latency estimates that choose where reads go (latency.go): est
	// per DC, pen per storage server, and the ring reads sent, by request
	// id, whose answers will measure est.
	est  map[string]time.Duration
	pen  map[protocol.NodeID]penalty
	sent map[uint64]sentRead
	// ackRTT estimates, per ring, how long a write takes to be
	// acknowledged, which sets when it is sent again.
	ackRTT  []rttEstimate
	ticking bool
	// The ring latency monitor (probe.go): probes awaiting answers by id,
	// whether its rounds run, and the time of the last client operation.
	pending map[uint64]pendingProbe
	probing bool
	lastOp  time.Duration
}

func newCoordinator(p *Protocol, cfg protocol.NodeConfig) *coordinator {
	c := &coordinator{p: p, id: cfg.ID, dc: cfg.ID.DC(), myRing: cfg.Topology.RingOf(cfg.ID.DC()), topo: cfg.Topology,
		threads: map[string]*threadState{}, entries: map[uint64]*wbEntry{}, reqs: map[uint64]string{}, pending: map[uint64]pendingProbe{},
		est: map[string]time.Duration{}, pen: map[protocol.NodeID]penalty{}, sent: map[uint64]sentRead{}, nextID: firstID(cfg.Incarnation), vc: commitClock{key: versionClockKey},
		ackRTT: make([]rttEstimate, len(cfg.Topology.Rings()))}
	i := uint64(0)
	for _, d := range cfg.Topology.Datacenters {
		for j := 0; j < d.Servers; j++ {
			if protocol.MakeNodeID(d.Name, ccName(j)) == cfg.ID {
				c.index = i
			}
			i++
		}
		c.est[d.Name] = cfg.Topology.RTT(c.dc, d.Name)
	}
	if cfg.Storage != nil {
		c.recover(cfg.Storage)
	}
	return c
}

// recover reloads the write buffers ("w/<thread>/<id>") and ring
// restrictions ("r/<thread>/<key@version>") after a crash.
func (c *coordinator) recover(st storage.Reader) {
	c.lc = recoverClock(st, clockKey)
	c.vc = recoverClock(st, versionClockKey)
	_ = st.Scan("w/", func(r storage.Record) error {
		i := strings.LastIndexByte(r.Key, '/')
		var put pb.RingPut
		if i < 2 || proto.Unmarshal(r.Value, &put) != nil {
			return nil // cannot happen: batches are atomic
		}
		t := c.thread(r.Key[2:i])
		e := c.newEntry(t.name, &put)
		e.recovered = true
		t.buffer(e)
		c.nextID = max(c.nextID, put.Id+1)
		c.vc.observe(put.Version >> ccBits)
		return nil
	})
	_ = st.Scan("r/", func(r storage.Record) error {
		i := strings.LastIndexByte(r.Key, '/')
		j := strings.LastIndexByte(r.Key, '@')
		if i < 2 || j < i || len(r.Value) < 1 {
			return nil
		}
		v, err := strconv.ParseUint(r.Key[j+1:], 16, 64)
		if err != nil {
			return nil
		}
		t := c.thread(r.Key[2:i])
		t.drr[r.Key[i+1:]] = &pb.Dep{Key: r.Key[i+1 : j], Version: v, Writer: string(r.Value[1:])}
		t.drrRing = int(r.Value[0])
		return nil
	})
}

// idIncarnationShift places a node's incarnation in the high bits of the
// ids it hands out and later matches replies against (a CC's write-buffer
// entry and request ids): ids never repeat across incarnations
// (protocol.NodeConfig), so a reply or acknowledgement addressed to an
// earlier incarnation of the CC matches nothing. 2^40 ids per incarnation
// will not run out.
const idIncarnationShift = 40

// firstID is the first id incarnation inc hands out (incarnation 0, from
// a runtime that does not count, behaves as before: ids from 1).
func firstID(inc uint64) uint64 { return inc<<idIncarnationShift | 1 }

func (c *coordinator) thread(name string) *threadState {
	t := c.threads[name]
	if t == nil {
		t = &threadState{name: name, drrRing: -1, drr: map[string]*pb.Dep{}, completed: map[string]*pb.RingPut{},
			inWB: map[string]int{}, covering: map[string]int{}, coverW: map[string]map[uint64]int{}}
		c.threads[name] = t
	}
	return t
}

func (c *coordinator) newEntry(thread string, put *pb.RingPut) *wbEntry {
	n := len(c.topo.Rings())
	e := &wbEntry{put: put, session: thread, acked: make([]bool, n), sent: make([]bool, n), retry: make([]protocol.Retry, n),
		sentAt: make([]time.Duration, n), resent: make([]bool, n), lastSent: make([]time.Duration, n), readRing: -1}
	c.entries[put.Id] = e
	return e
}

func wbKey(thread string, id uint64) string { return fmt.Sprintf("w/%s/%016x", thread, id) }
func drrKey(thread, dk string) string       { return "r/" + thread + "/" + dk }

// Start implements protocol.Node: resume propagation after a restart.
func (c *coordinator) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	for _, name := range slices.Sorted(maps.Keys(c.threads)) {
		c.propagate(now, c.threads[name], &r)
	}
	c.armTimer(&r)
	return r
}

func (c *coordinator) busy() bool {
	if len(c.entries) > 0 {
		return true
	}
	for _, t := range c.threads {
		if t.get != nil || t.txn != nil || len(t.drr) > 0 && c.notifies(t) {
			return true
		}
	}
	return false
}

func (c *coordinator) armTimer(r *protocol.Ready) {
	if !c.ticking && c.busy() {
		c.ticking = true
		r.SetTimer(tickEvery, 0)
	}
}

// Tick implements protocol.Node: retransmissions, get timeouts and
// notify-after write insertion, or a probe round (probe.go).
func (c *coordinator) Tick(now time.Duration, token uint64) protocol.Ready {
	var r protocol.Ready
	if token == probeToken {
		c.probeRound(now, &r)
		return r
	}
	c.ticking = false
	c.forgetReads(now)
	c.probePenalized(now, &r)
	for _, name := range slices.Sorted(maps.Keys(c.threads)) {
		t := c.threads[name]
		c.propagate(now, t, &r)
		if g := t.get; g != nil && now >= g.deadline {
			c.getTimedOut(now, t, &r)
		}
		if tx := t.txn; tx != nil && now >= tx.deadline {
			c.txnTimedOut(now, t, &r)
		}
		c.maybeNotify(now, t, &r)
		c.askHome(now, t, &r)
	}
	c.armTimer(&r)
	c.lc.persist(&r)
	c.vc.persist(&r)
	return r
}

// Step implements protocol.Node.
func (c *coordinator) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	c.heard(m.From)
	switch b := m.Body.(type) {
	case *pb.ClientPut:
		c.clientOp(now, &r)
		c.put(now, m.From, b, &r)
	case *pb.ClientGet:
		c.clientOp(now, &r)
		c.get(now, m.From, b, &r)
	case *pb.ClientTxn:
		c.clientOp(now, &r)
		c.txnStart(now, m.From, b, &r)
	case *pb.ProbeResp:
		c.probeResp(now, m.From, b)
	case *pb.MigrateReq:
		c.migrate(now, m.From, b, &r)
	case *pb.ClientAdopt:
		c.adopt(m.From, b, &r)
	case *pb.RingPutAck:
		c.lc.observe(b.Clock)
		c.ringAck(now, b, &r)
	case *pb.RingGetReply:
		c.lc.observe(b.Clock)
		c.measured(now, b.ReqId)
		if t := c.threads[c.reqs[b.ReqId]]; t != nil && t.txn != nil {
			c.txnReply(now, t, b, &r)
		} else {
			c.ringReply(now, b, &r)
		}
	case *pb.CacheGetReply:
		c.lc.observe(b.Clock)
		c.cacheReply(now, b, &r)
	case *pb.ResendReq:
		c.resend(now, m.From, b, &r)
	}
	c.armTimer(&r)
	c.lc.persist(&r)
	c.vc.persist(&r)
	return r
}

// put appends a write to the thread's persistent write buffer and
// acknowledges it; propagation follows asynchronously. The write carries
// the thread's in-flight reads as put-after dependencies (§4.1.2).
func (c *coordinator) put(now time.Duration, from protocol.NodeID, b *pb.ClientPut, r *protocol.Ready) {
	t := c.thread(b.Session)
	t.get, t.txn = nil, nil
	// Program order (the write must follow every earlier write of the
	// thread still buffered, in every ring) is added to each copy sent
	// (toRing), not kept here: a backlog of n writes would hold n²
	// dependencies (doc.go, "Pipelined propagation").
	put := &pb.RingPut{Key: b.Key, Value: b.Value, Version: c.vc.tick()<<ccBits | c.index, Id: c.nextID, Deps: t.deps(), Writer: t.name}
	c.nextID++
	e := c.newEntry(t.name, put)
	if len(put.Deps) > 0 {
		e.readRing = t.drrRing
	}
	t.buffer(e)
	r.Write(storage.Write{Kind: storage.Put, Key: wbKey(t.name, put.Id), Value: marshal(put)}, true)
	r.Send(c.id, from, &pb.ClientReply{ReqId: b.ReqId, Restricted: c.restricted(t)})
	c.propagate(now, t, r)
}

// deps are the put-after dependencies of the thread's next write: its
// restrictions, but for its own buffered writes (inWB). Reading one back
// from a ring restricts the thread like any in-flight read, but it is no
// put-after dependency of the thread's later writes: program order
// already puts them after it in every ring (§4.1.2: "no put-after is
// needed if the puts are completed in thread program order"), and its
// completion lifts the restriction (complete). As a put-after dependency
// it would hold every later write until it is written in every ring, one
// write per ring round trip again.
//
// Of one writer thread's writes only the latest is kept (writers.go,
// collapse): waiting for it waits for the earlier ones.
//
// A restriction an earlier buffered write already carries is kept too,
// although program order implies it: dropped, it let the write become
// ready before it, so reads of the write's key were held behind it
// (pending, waiting for its predecessors) instead of answered
// (doc.go, "Issue 12", (5)).
func (t *threadState) deps() []*pb.Dep {
	var keys []string // few: sorted after filtering, in restrictions' order
	for dk := range t.drr {
		if t.inWB[dk] == 0 {
			keys = append(keys, dk)
		}
	}
	return collapse(t.sortedDeps(keys))
}

// restrictions are the thread's DRR entries, in key order, one per
// writer thread (collapse): what a notify-after confirms. A version
// written in a ring is written there in full, its thread's earlier writes
// included, so confirming a writer's latest confirms the rest.
func (t *threadState) restrictions() []*pb.Dep {
	return collapse(t.sortedDeps(slices.Collect(maps.Keys(t.drr))))
}

// restricted reports whether the thread's accesses are under a DRR (for
// the drr_fraction metric; COPS-PR's static binding is not counted).
func (c *coordinator) restricted(t *threadState) bool { return !c.p.mode.OwnRing && t.drrRing >= 0 }

// binding is the ring the thread must read from, or -1 for any.
func (c *coordinator) binding(t *threadState) int {
	if c.p.mode.OwnRing {
		return c.myRing
	}
	return t.drrRing
}

// propagate sends every buffered write of the thread to every ring that
// has not acknowledged it, retransmitting with backoff. Program order
// holds because each write names the thread's earlier buffered writes as
// program-order dependencies, so all of a thread's writes are in flight at
// once rather than one per ring round trip (doc.go, "Pipelined
// propagation").
func (c *coordinator) propagate(now time.Duration, t *threadState, r *protocol.Ready) {
	entries := t.wb
	if t.notify != nil {
		entries = append(entries[:len(entries):len(entries)], t.notify)
	}
	unacked := make([]int, len(c.topo.Rings())) // earlier writes each ring has not acknowledged
	for _, e := range entries {
		for ring := range c.topo.Rings() {
			switch {
			case e.acked[ring]:
				continue
			case !e.sent[ring] && !e.put.Notify && unacked[ring] >= pipelineWindow:
				// The window is full: the write waits for an earlier
				// one's acknowledgement from this ring.
			case !e.sent[ring]:
				e.sent[ring], e.retry[ring], e.sentAt[ring], e.lastSent[ring] = true, protocol.SentAt(now), now, now
				r.Send(c.id, replica(c.topo, ring, e.put.Key), c.toRing(t, ring, e))
			case e.retry[ring].Due(now, c.ackRTT[ring].timeout(), c.ackRTT[ring].backoffLimit()):
				e.resent[ring], e.lastSent[ring] = true, now
				c.ackRTT[ring].backOff(now)
				r.Send(c.id, replica(c.topo, ring, e.put.Key), c.toRing(t, ring, e))
			}
			unacked[ring]++
		}
	}
}

// pipelineWindow is how many of a thread's writes a ring may have
// unacknowledged: a later write is sent to the ring once an earlier one is
// acknowledged there. Each copy of a write names as program-order
// dependencies every earlier write the ring has not acknowledged, and its
// MM waits for each, so an unbounded backlog (a ring that falls behind a
// fast writer) cost each write, and each MM, work in proportion to the
// backlog: quadratic in all, and the contention run grew to gigabytes
// without converging. The window must hold what a fast writer has in
// flight to its farthest ring: on karma-aws8 (ycsb-95-5, 4 clients per
// DC, seed 2) sao-paulo's threads, all local, write a put every ~25 ms
// and rings answer in up to ~1 s, so 32 and 64 held writes back
// (visibility p50 995 / 324 ms, p99 3.4 / 1.8 s) where 128 matches no
// window at all (301 / 453 ms).
const pipelineWindow = 128

// ringAck records that a ring has a write. A write every ring has, and
// whose predecessors in the thread are complete, is complete: the MMs are
// told it is stable, it leaves the write buffer, and the thread's
// restrictions from before it are lifted (the transitivity argument of
// §4.2). Completing in program order keeps the buffer's newest write of a
// key the thread's newest, and STABLE in causal order, when
// acknowledgements arrive out of order.
func (c *coordinator) ringAck(now time.Duration, b *pb.RingPutAck, r *protocol.Ready) {
	e := c.entries[b.Id]
	if e == nil || e.put.Key != b.Key || e.put.Version != b.Version || int(b.Ring) >= len(e.acked) || e.acked[b.Ring] {
		return // not this entry's acknowledgement, or a duplicate
	}
	if t := c.threads[e.session]; t != nil && t.home == e {
		// An install check: not a write's acknowledgement, so no sample
		// of the ring's acknowledgement time (rebind.go).
		c.homeAcked(now, t, e, r)
		return
	}
	e.acked[b.Ring] = true
	c.ackRTT[b.Ring].acked(now)
	if !e.resent[b.Ring] && !e.recovered {
		c.ackRTT[b.Ring].sample(now - e.sentAt[b.Ring])
	}
	t := c.thread(e.session)
	if e.put.Notify {
		c.rebind(now, t, e, int(b.Ring), r)
		if e.allAcked() {
			delete(c.entries, b.Id)
			t.notify = nil
			c.lift(t, e.put.Deps, r)
		}
		return
	}
	for len(t.wb) > 0 && t.wb[0].allAcked() {
		c.complete(t, t.wb[0], r)
	}
	c.propagate(now, t, r) // the ring's window has room for a later write
}

// complete retires the oldest write of the thread's buffer, which every
// ring has.
func (c *coordinator) complete(t *threadState, e *wbEntry, r *protocol.Ready) {
	delete(c.entries, e.put.Id)
	for ring := range c.topo.Rings() {
		r.Send(c.id, replica(c.topo, ring, e.put.Key), &pb.Stable{Key: e.put.Key, Version: e.put.Version, Clock: c.lc.now})
	}
	t.unbuffer()
	if old := t.completed[e.put.Key]; old == nil || old.Version < e.put.Version {
		t.completed[e.put.Key] = e.put
	}
	r.Write(storage.Write{Kind: storage.Delete, Key: wbKey(t.name, e.put.Id)}, false)
	c.lift(t, append(e.put.Deps[:len(e.put.Deps):len(e.put.Deps)], &pb.Dep{Key: e.put.Key, Version: e.put.Version, Writer: t.name}), r)
}

// lift removes the restrictions of a thread that deps cover (each of
// deps, and the earlier writes of their writer threads: complete in every
// ring, as they are, so are those); with none left it may read from any
// ring again.
func (c *coordinator) lift(t *threadState, deps []*pb.Dep, r *protocol.Ready) {
	for _, dk := range slices.Sorted(maps.Keys(t.drr)) {
		if covered(t.drr[dk], deps) {
			delete(t.drr, dk)
			r.Write(storage.Write{Kind: storage.Delete, Key: drrKey(t.name, dk)}, false)
		}
	}
	if len(t.drr) == 0 {
		t.drrRing = -1
		c.dropHome(t)
	}
}

// maybeNotify inserts a notify-after (§4.2) for a thread that holds
// restrictions no write of its in flight will lift: a read-only thread, or
// one that read in-flight values since its last put. At most one is in
// flight per thread, and one starts at most every NotifyEvery.
func (c *coordinator) maybeNotify(now time.Duration, t *threadState, r *protocol.Ready) {
	if len(t.drr) == 0 || !c.notifies(t) || t.notify != nil || now-t.lastNotify < c.p.opts.NotifyEvery || !t.uncovered() {
		return
	}
	deps := t.restrictions()
	t.lastNotify = now
	e := c.newEntry(t.name, &pb.RingPut{Key: deps[0].Key, Deps: deps, Notify: true, Id: c.nextID})
	c.nextID++
	t.notify = e
	c.propagate(now, t, r)
}

// notifies reports whether the thread's in-flight reads are to be
// confirmed by notify-after. Under COPS-PR they restrict nothing (the
// thread is bound to its DC's ring anyway): they are only the put-after
// dependencies of its next write, which a COPS client keeps in its context
// until a put carries them (§1, §5), so no notify-after is sent — except
// for a thread moving to another DC, whose history must be complete first
// (token.go).
func (c *coordinator) notifies(t *threadState) bool { return !c.p.mode.OwnRing || t.moving }

// uncovered reports whether the thread holds a restriction that no write
// in its write buffer carries as a dependency (and so would lift).
func (t *threadState) uncovered() bool {
	for dk, d := range t.drr {
		if !t.coveredByWB(dk, d) {
			return true
		}
	}
	return false
}

// get follows Fig. 3: the write buffer, then (under a restriction) the
// restricted ring, else the DC cache, else the nearest ring.
func (c *coordinator) get(now time.Duration, from protocol.NodeID, b *pb.ClientGet, r *protocol.Ready) {
	t := c.thread(b.Session)
	t.txn = nil // a session has one operation outstanding: an older one timed out
	g := &pendingGet{reqID: b.ReqId, from: from, key: b.Key, restricted: c.restricted(t)}
	t.get = g
	bound := c.binding(t)
	if e := t.latest(b.Key); e != nil && !e.recovered && e.put.Version > t.maxSeen {
		// The write buffer answers unless (the corner case of §4.1.2) the
		// thread is bound to ring Ri and the entry already reached Ri,
		// where writes the thread depends on may have overwritten it. The
		// version test adds what last-writer-wins needs: no newer write of
		// the key can be in the thread's causal past.
		if bound < 0 || !e.acked[bound] {
			t.get = nil
			r.Send(c.id, from, &pb.ClientReply{ReqId: b.ReqId, Value: e.put.Value, Found: true, Restricted: g.restricted, WriteBuffer: true})
			return
		}
	}
	switch {
	case bound >= 0:
		c.readRing(now, t, bound, r)
	case c.p.mode.Caches:
		g.inCache = true
		g.ringReq = c.newReq(t)
		g.deadline = now + c.topo.RTT(c.dc, c.dc)*4 + 50*time.Millisecond
		r.Send(c.id, c.p.cacheFor(c.dc, b.Key), &pb.CacheGet{ReqId: g.ringReq, Key: b.Key})
	default:
		c.readRing(now, t, c.nearestRing(b.Key), r)
	}
}

// latest is the thread's newest buffered write of key.
func (t *threadState) latest(key string) *wbEntry {
	for i := len(t.wb) - 1; i >= 0; i-- {
		if t.wb[i].put.Key == key {
			return t.wb[i]
		}
	}
	return nil
}

// ownNewer returns the thread's own write of key, buffered or completed,
// if it is newer than version (read your writes), and forgets a completed
// write once a read has seen it or something newer.
func (t *threadState) ownNewer(key string, version uint64) *pb.RingPut {
	if e := t.latest(key); e != nil && e.put.Version > version {
		return e.put
	}
	if p := t.completed[key]; p != nil {
		if p.Version > version {
			return p
		}
		delete(t.completed, key)
	}
	return nil
}

func (c *coordinator) newReq(t *threadState) uint64 {
	id := c.nextID
	c.nextID++
	c.reqs[id] = t.name
	return id
}

func (c *coordinator) readRing(now time.Duration, t *threadState, ring int, r *protocol.Ready) {
	g := t.get
	g.inCache, g.ring = false, ring
	if g.attempts == nil {
		delete(c.reqs, g.ringReq) // the cache's request
		g.attempts = map[uint64]bool{}
	}
	g.ringReq = c.attempt(now, t, ring, r)
	g.deadline = now + c.readWait(replica(c.topo, ring, g.key).DC())
}

// attempt sends one attempt of the thread's get to ring and returns its
// request id; an answer to any attempt completes the get.
func (c *coordinator) attempt(now time.Duration, t *threadState, ring int, r *protocol.Ready) uint64 {
	g := t.get
	id := c.newReq(t)
	g.attempts[id] = true
	req := &pb.RingGet{ReqId: id, Key: g.key, Clock: c.lc.now}
	if c.p.mode.Caches && c.binding(t) < 0 {
		req.CacheDc = c.dc
		g.cacheDC = c.dc
	}
	c.sendRead(now, replica(c.topo, ring, g.key), req, r)
	return id
}

// getTimedOut moves an unanswered get on: the cache is skipped; an
// unrestricted thread tries the next ring (penalizing the silent replica,
// latency.go); a bound thread asks its ring again, at the pace of its
// round trip, until its own timeout gives up.
func (c *coordinator) getTimedOut(now time.Duration, t *threadState, r *protocol.Ready) {
	g := t.get
	switch {
	case g.inCache:
		c.readRing(now, t, c.nearestRing(g.key), r)
	case c.binding(t) >= 0:
		// Still bound: ask the bound ring again, waiting longer. (A
		// restriction lifted meanwhile frees the get to try another ring
		// below.)
		c.unanswered(now, replica(c.topo, g.ring, g.key))
		c.readRing(now, t, c.binding(t), r)
		c.boundGetTimedOut(now, t, r) // another ring may take the thread (rebind.go)
	default:
		prev := g.ring
		c.unanswered(now, replica(c.topo, prev, g.key))
		next := c.nearestRing(g.key)
		c.readRing(now, t, next, r)
		if next != prev {
			// Ask the silent ring again too: the read may have been lost
			// to a server that is back by now (a restart), which then
			// answers first if it is nearer, rather than binding the
			// thread to a farther ring's in-flight value.
			c.attempt(now, t, prev, r)
		}
	}
}

func (c *coordinator) cacheReply(now time.Duration, b *pb.CacheGetReply, r *protocol.Ready) {
	t := c.threads[c.reqs[b.ReqId]]
	if t == nil || t.get == nil || !t.get.inCache || t.get.ringReq != b.ReqId || t.get.key != b.Key {
		return
	}
	delete(c.reqs, b.ReqId)
	g := t.get
	if !b.Hit {
		g.epoch, g.seq = b.Epoch, b.Seq
		c.readRing(now, t, c.nearestRing(g.key), r)
		return
	}
	t.get = nil
	if own := t.ownNewer(g.key, b.Version); own != nil {
		// The thread's own newer write wins (read your writes).
		r.Send(c.id, g.from, &pb.ClientReply{ReqId: g.reqID, Value: own.Value, Found: true, CacheHit: true})
		return
	}
	c.vc.observe(b.Version >> ccBits)
	t.maxSeen = max(t.maxSeen, b.Version)
	r.Send(c.id, g.from, &pb.ClientReply{ReqId: g.reqID, Value: b.Value, Found: found(b.Version, b.Value), CacheHit: true})
}

// ringReply completes a get from a ring: an in-flight value restricts the
// thread to that ring; a stable one may fill the DC cache.
func (c *coordinator) ringReply(now time.Duration, b *pb.RingGetReply, r *protocol.Ready) {
	t := c.threads[c.reqs[b.ReqId]]
	if t == nil || t.get == nil || t.get.inCache || !t.get.attempts[b.ReqId] || t.get.key != b.Key {
		return
	}
	delete(c.reqs, b.ReqId)
	g := t.get
	t.get = nil
	for id := range g.attempts {
		delete(c.reqs, id)
	}
	dc, _ := c.topo.RingReplica(int(b.Ring), g.key)
	if own := t.ownNewer(g.key, b.Version); own != nil {
		// The ring had not got the thread's own newer write when it
		// answered: that write wins (read your writes), and the ring's
		// older value is not returned.
		r.Send(c.id, g.from, &pb.ClientReply{ReqId: g.reqID, Value: own.Value, Found: true,
			WideArea: dc != c.dc, WanRounds: remote(dc != c.dc), Restricted: g.restricted})
		return
	}
	c.vc.observe(b.Version >> ccBits)
	t.maxSeen = max(t.maxSeen, b.Version)
	if b.Version > 0 && b.InFlight {
		c.restrict(t, int(b.Ring), g.key, b.Version, b.Writer, r)
		c.maybeNotify(now, t, r)
		c.askHome(now, t, r)
	} else if g.cacheDC != "" && g.epoch != 0 {
		// Stable, including a key never written (version 0): its loaded
		// value, or its absence if it is not a loaded record, is as
		// cacheable as any value, and the MM invalidates it on the first
		// write like any other.
		r.Send(c.id, c.p.cacheFor(c.dc, g.key), &pb.CacheFill{Key: g.key, Value: b.Value, Version: b.Version, Epoch: g.epoch, Seq: g.seq, Clock: c.lc.now})
	}
	r.Send(c.id, g.from, &pb.ClientReply{ReqId: g.reqID, Value: b.Value, Found: found(b.Version, b.Value),
		WideArea: dc != c.dc, WanRounds: remote(dc != c.dc), Restricted: g.restricted, InFlight: b.Version > 0 && b.InFlight})
}

// toRing returns a copy of a buffered write for ring carrying the CC's
// commit clock now (the buffered message itself may be in a runtime's
// hands). Of its program-order dependencies it keeps those the ring has
// not acknowledged yet: an acknowledged one is written there, and the
// clock this copy carries is above its evt (doc.go, "Pipelined
// propagation"). They go packed, by owner and version without their
// keys (after_owners, after_versions; the MM unpacks them, unpackAfter,
// and asks about them by version: doc.go, "Program-order asks by
// version").
func (c *coordinator) toRing(t *threadState, ring int, e *wbEntry) *pb.RingPut {
	p := e.put
	if !p.Notify {
		deps := make([]*pb.Dep, 0, len(p.Deps))
		for _, d := range p.Deps {
			switch {
			case d.ProgramOrder: // a write buffered before they were computed here
			case ring == e.readRing:
				// Read here, so installed here: its MM need not ask
				// (doc.go, "Pipelined propagation").
				deps = append(deps, &pb.Dep{Key: d.Key, Version: d.Version, Installed: true})
			default:
				deps = append(deps, stripped(d))
			}
		}
		out := &pb.RingPut{Key: p.Key, Value: p.Value, Version: p.Version, Deps: deps, Id: p.Id, Clock: c.lc.now, Writer: p.Writer}
		var last uint64
		for _, e := range t.wb {
			if e.put.Version >= p.Version {
				break
			}
			if !e.acked[ring] {
				out.AfterOwners = append(out.AfterOwners, ringIndex(c.topo, ring, e.put.Key))
				out.AfterVersions = append(out.AfterVersions, e.put.Version-last)
				last = e.put.Version
			}
		}
		return out
	}
	deps := make([]*pb.Dep, 0, len(p.Deps))
	for _, d := range p.Deps {
		deps = append(deps, stripped(d))
	}
	return &pb.RingPut{Key: p.Key, Value: p.Value, Version: p.Version, Deps: deps, Notify: p.Notify, Id: p.Id, Clock: c.lc.now, Writer: p.Writer}
}

// found reports whether a read of version with value returned data: a
// written version, or a loaded record's value at version 0 (see
// protocol.Dataset).
func found(version uint64, value []byte) bool { return version > 0 || value != nil }
