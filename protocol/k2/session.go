package k2

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/depwait"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/k2pb"
)

// session is K2's client library (k2.txt §III-B): it keeps a Lamport
// clock, the one-hop dependencies and the read timestamp read_ts, runs
// read-only transactions (Fig. 5) and sends write-only transactions to
// the local participants (§III-C). A PaRiS* session also keeps its own
// writes for PrivateCacheTTL (§VII-A).
type session struct {
	mode    Mode
	id      protocol.NodeID
	dc      string
	topo    *topology.Topology
	rand    *rand.Rand
	timeout time.Duration

	clock  uint64
	readTS uint64
	deps   map[string]*pb.Dep
	// private is PaRiS*'s cache of the session's own writes.
	private map[cacheKey]privateEntry
	// resume, while not nil, holds the dependencies a session resumed
	// from a token waits for (token.go).
	resume *depwait.Table[*pb.Dep]

	seq uint64
	op  *operation
}

type privateEntry struct {
	value []byte
	at    time.Duration
}

// operation is the outstanding client operation.
type operation struct {
	req   protocol.Request
	reqID uint64
	txnID string
	// keys are the keys a read reads, in request order.
	keys []string
	// versions: first-round answers by key; awaiting: servers or keys
	// still to answer.
	versions map[string]*pb.KeyVersions
	awaiting map[string]bool
	ts       uint64
	reads    map[string]result
	second   bool
	remote   bool
	missing  uint32
	hits     int
	stale    float64
	// keyStale is each key's staleness (the first key's is reported as
	// MetricStalenessKey).
	keyStale map[string]float64
}

type result struct {
	ver   uint64
	value []byte
}

func newSession(mode Mode, cfg protocol.SessionConfig) *session {
	return &session{mode: mode, id: cfg.ID, dc: cfg.ID.DC(), topo: cfg.Topology, rand: cfg.Rand,
		timeout: cfg.OpTimeout, deps: map[string]*pb.Dep{}, private: map[cacheKey]privateEntry{}}
}

// Start implements protocol.Node: a session resumed from a token checks
// its dependencies.
func (c *session) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	if c.resume != nil {
		c.startResume(now, &r)
	}
	return r
}

// Submit implements protocol.Session.
func (c *session) Submit(now time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	switch req.Op {
	case protocol.OpGet, protocol.OpReadTxn, protocol.OpPut, protocol.OpWriteTxn:
	default:
		r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
		return r
	}
	c.seq++
	c.op = &operation{req: req, reqID: c.seq}
	if c.resume == nil {
		c.dispatch(now, c.op, &r)
	}
	if c.timeout > 0 {
		r.SetTimer(c.timeout, c.seq)
	}
	return r
}

// dispatch sends an operation's first requests.
func (c *session) dispatch(now time.Duration, op *operation, r *protocol.Ready) {
	req := op.req
	switch req.Op {
	case protocol.OpGet:
		c.startRead(now, []string{req.Key}, r)
	case protocol.OpReadTxn:
		c.startRead(now, req.Keys, r)
	case protocol.OpPut:
		c.startWrite([]protocol.KV{{Key: req.Key, Value: req.Value}}, r)
	case protocol.OpWriteTxn:
		c.startWrite(req.Writes, r)
	}
}

// Tick implements protocol.Node: a resumed session's DepCheck resends
// and the operation's timeout.
func (c *session) Tick(now time.Duration, token uint64) protocol.Ready {
	var r protocol.Ready
	if token == tickToken {
		c.resumeTick(now, &r)
		return r
	}
	if c.op != nil && token == c.op.reqID {
		r.Reply(protocol.Reply{Op: c.op.req.Op, Err: protocol.ErrTimeout})
		c.op = nil
	}
	return r
}

// Step implements protocol.Node.
func (c *session) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	if cl, ok := m.Body.(clocked); ok {
		c.clock = max(c.clock, cl.GetClock())
	}
	if b, ok := m.Body.(*pb.DepOK); ok {
		c.depOK(now, b, &r)
		return r
	}
	if c.op == nil {
		return r
	}
	switch b := m.Body.(type) {
	case *pb.ReadReply:
		c.firstRound(now, m.From, b, &r)
	case *pb.ReadAtReply:
		c.secondRound(now, b, &r)
	case *pb.WriteReply:
		c.written(now, b, &r)
	}
	return r
}

// startWrite sends a write-only transaction's sub-requests: every write
// to the coordinator (a random key's server), each cohort its own.
func (c *session) startWrite(writes []protocol.KV, r *protocol.Ready) {
	op := c.op
	last := map[string]int{}
	for i, w := range writes {
		last[w.Key] = i
	}
	var kvs []*pb.KV
	for i, w := range writes {
		if last[w.Key] == i {
			kvs = append(kvs, &pb.KV{Key: w.Key, Value: w.Value})
		}
	}
	coordKey := kvs[c.rand.IntN(len(kvs))].Key
	coord := owner(c.topo, c.dc, coordKey)
	op.txnID = string(c.id) + "/" + strconv.FormatUint(op.reqID, 10)
	byServer := map[protocol.NodeID][]*pb.KV{}
	for _, w := range kvs {
		to := owner(c.topo, c.dc, w.Key)
		byServer[to] = append(byServer[to], w)
	}
	var cohorts []string
	for _, to := range sortedKeys(byServer) {
		if to != coord {
			cohorts = append(cohorts, string(to))
		}
	}
	deps := make([]*pb.Dep, 0, len(c.deps))
	for _, k := range sortedKeys(c.deps) {
		deps = append(deps, c.deps[k])
	}
	r.Send(c.id, coord, &pb.WriteReq{Clock: c.clock, TxnId: op.txnID, CoordKey: coordKey, Writes: kvs, Deps: deps,
		Cohorts: cohorts, Coordinator: string(coord), IsCoordinator: true})
	for _, to := range sortedKeys(byServer) {
		if to != coord {
			r.Send(c.id, to, &pb.WriteReq{Clock: c.clock, TxnId: op.txnID, CoordKey: coordKey, Writes: byServer[to],
				Coordinator: string(coord)})
		}
	}
	op.keys = []string{coordKey}
}

// written completes a write-only transaction: deps become just
// ⟨coordinator key, version⟩ and read_ts moves to the version (§III-C).
func (c *session) written(now time.Duration, b *pb.WriteReply, r *protocol.Ready) {
	op := c.op
	if b.TxnId != op.txnID {
		return
	}
	c.op = nil
	c.clock = max(c.clock, clockOf(b.Version))
	c.readTS = max(c.readTS, b.Version)
	c.deps = map[string]*pb.Dep{op.keys[0]: {Key: op.keys[0], Version: b.Version}}
	if c.mode.Paris {
		c.expirePrivate(now)
		for _, w := range op.req.Writes {
			c.private[cacheKey{w.Key, b.Version}] = privateEntry{value: w.Value, at: now}
		}
		if op.req.Op == protocol.OpPut {
			c.private[cacheKey{op.req.Key, b.Version}] = privateEntry{value: op.req.Value, at: now}
		}
	}
	rep := protocol.Reply{Op: op.req.Op, Key: op.req.Key}
	rep.SetWANRounds(0) // committed in the local DC
	r.Reply(rep)
}

// expirePrivate drops private-cache entries older than PrivateCacheTTL.
func (c *session) expirePrivate(now time.Duration) {
	for k, e := range c.private {
		if now-e.at > PrivateCacheTTL {
			delete(c.private, k)
		}
	}
}

// startRead sends the first round of a read-only transaction to the
// local servers of its keys.
func (c *session) startRead(now time.Duration, keys []string, r *protocol.Ready) {
	op := c.op
	op.keys = keys
	op.versions = map[string]*pb.KeyVersions{}
	op.awaiting = map[string]bool{}
	op.reads = map[string]result{}
	op.keyStale = map[string]float64{}
	byServer := map[protocol.NodeID][]string{}
	for _, k := range keys {
		to := owner(c.topo, c.dc, k)
		if !slices.Contains(byServer[to], k) {
			byServer[to] = append(byServer[to], k)
		}
	}
	for _, to := range sortedKeys(byServer) {
		op.awaiting[string(to)] = true
		r.Send(c.id, to, &pb.ReadReq{Clock: c.clock, ReqId: op.reqID, ReadTs: c.readTS, Keys: byServer[to]})
	}
}

// firstRound collects a server's versions; with every server in, it picks
// ts (find_ts) and reads at ts what it can, asking a second round for the
// rest.
func (c *session) firstRound(now time.Duration, from protocol.NodeID, b *pb.ReadReply, r *protocol.Ready) {
	op := c.op
	if b.ReqId != op.reqID || op.versions == nil || !op.awaiting[string(from)] || op.ts != 0 {
		return
	}
	delete(op.awaiting, string(from))
	for _, kv := range b.Keys {
		op.versions[kv.Key] = kv
	}
	if len(op.awaiting) > 0 {
		return
	}
	if c.mode.Paris {
		c.expirePrivate(now)
	}
	op.ts = c.findTS(op)
	c.clock = max(c.clock, clockOf(op.ts))
	for _, key := range op.keys {
		if _, done := op.reads[key]; done {
			continue
		}
		if seg := coveringSegment(op.versions[key], op.ts); seg != nil {
			if v, ok, cached := c.valueOf(key, seg); ok {
				op.reads[key] = result{ver: seg.Version, value: v}
				op.stale = max(op.stale, seg.StaleMs)
				op.keyStale[key] = seg.StaleMs
				if cached {
					op.hits++
				}
				continue
			}
		}
		op.second = true
		op.awaiting[key] = true
		r.Send(c.id, owner(c.topo, c.dc, key), &pb.ReadAtReq{Clock: c.clock, ReqId: op.reqID, Ts: op.ts, Key: key})
	}
	c.maybeFinishRead(r)
}

// secondRound records a key read at ts.
func (c *session) secondRound(_ time.Duration, b *pb.ReadAtReply, r *protocol.Ready) {
	op := c.op
	if b.ReqId != op.reqID || !op.awaiting[b.Key] {
		return
	}
	if b.Unavailable {
		r.Reply(protocol.Reply{Op: op.req.Op, Err: protocol.ErrUnavailable})
		c.op = nil
		return
	}
	delete(op.awaiting, b.Key)
	op.reads[b.Key] = result{ver: b.Version, value: b.Value}
	op.remote = op.remote || b.Remote
	op.missing += b.Missing
	op.stale = max(op.stale, b.StaleMs)
	op.keyStale[b.Key] = b.StaleMs
	if b.Cached {
		op.hits++
	}
	c.maybeFinishRead(r)
}

// maybeFinishRead answers the client once every key is read, and updates
// read_ts and deps (Fig. 5, lines 13–14).
func (c *session) maybeFinishRead(r *protocol.Ready) {
	op := c.op
	if len(op.awaiting) > 0 {
		return
	}
	c.op = nil
	c.readTS = max(c.readTS, op.ts)
	rep := protocol.Reply{Op: op.req.Op, Key: op.req.Key}
	for _, key := range op.keys {
		res := op.reads[key]
		v := res.value
		if res.ver > 0 {
			if v == nil {
				v = []byte{}
			}
			dk := depKey(key, res.ver)
			c.deps[dk] = &pb.Dep{Key: key, Version: res.ver}
		}
		rep.Reads = append(rep.Reads, protocol.KV{Key: key, Value: v})
	}
	if op.req.Op == protocol.OpGet {
		rep.Value = rep.Reads[0].Value
		rep.Reads = nil
	}
	rounds := 0
	if op.remote {
		rounds = 1
	}
	rep.SetWANRounds(rounds)
	if op.second {
		rep.Tags = append(rep.Tags, TagSecondRound)
	}
	if op.hits > 0 {
		rep.Tags = append(rep.Tags, TagCacheHit)
	}
	rep.SetMetric(MetricCacheHits, float64(op.hits))
	rep.SetMetric(MetricFetchWaited, 0)
	rep.SetMetric(MetricFetchMissing, float64(op.missing))
	rep.SetMetric(MetricStaleness, op.stale)
	rep.SetMetric(MetricStalenessKey, op.keyStale[op.keys[0]])
	r.Reply(rep)
}

// coveringSegment returns kv's segment valid at ts, or nil.
func coveringSegment(kv *pb.KeyVersions, ts uint64) *pb.Segment {
	if kv == nil {
		return nil
	}
	for _, s := range kv.Segments {
		if s.Evt <= ts && ts <= s.Lvt {
			return s
		}
	}
	return nil
}

// valueOf returns seg's value if the DC returned it or (PaRiS*) the
// session wrote it, and whether it came from a cache.
func (c *session) valueOf(key string, seg *pb.Segment) ([]byte, bool, bool) {
	if seg.HasValue {
		return seg.Value, true, seg.Cached
	}
	if e, ok := c.private[cacheKey{key, seg.Version}]; ok && c.mode.Paris {
		return e.value, true, true
	}
	return nil, false, false
}

// findTS is Fig. 5's find_ts: among read_ts and the EVTs returned (never
// below read_ts nor below a key's oldest known version), the earliest
// time at which (1) every key, else (2) every non-replica key has a valid
// value here, else (3) the most keys do.
func (c *session) findTS(op *operation) uint64 {
	lb := c.readTS
	for _, kv := range op.versions {
		lb = max(lb, kv.Floor)
	}
	cands := []uint64{lb}
	for _, kv := range op.versions {
		for _, s := range kv.Segments {
			if s.Evt > lb {
				cands = append(cands, s.Evt)
			}
		}
	}
	slices.Sort(cands)
	best, bestScore := lb, [3]int{-1, -1, -1}
	for _, t := range cands {
		n, nonRep, nonRepValid := 0, 0, 0
		for _, key := range op.keys {
			valid := false
			if seg := coveringSegment(op.versions[key], t); seg != nil {
				_, valid, _ = c.valueOf(key, seg)
			}
			rep := isReplica(c.topo, c.dc, key)
			if !rep {
				nonRep++
			}
			if valid {
				n++
				if !rep {
					nonRepValid++
				}
			}
		}
		score := [3]int{b2i(n == len(op.keys)), b2i(nonRepValid == nonRep), n}
		if score[0] > bestScore[0] || (score[0] == bestScore[0] && (score[1] > bestScore[1] || (score[1] == bestScore[1] && score[2] > bestScore[2]))) {
			best, bestScore = t, score
		}
	}
	return best
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
