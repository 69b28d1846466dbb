package rad

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/depwait"
	pb "github.com/causeway/causeway/wire/radpb"
)

// TagSecondRound marks a read-only transaction that needed Eiger's second
// round; a run reports protocol_metrics.second_round_fraction.
const TagSecondRound = "second_round"

// dep is one (key, version) a session depends on.
type dep struct {
	key     string
	version uint64
}

// session is a client session (Eiger's client library, §4–§5) in one DC:
// it sends every request to the servers of its own replica group that hold
// the keys, wherever in the group they are. It keeps one-hop dependencies
// and a Lamport clock ts that is also its read timestamp: a read-only
// transaction never reads below it, so reads move forward in the group's
// time.
type session struct {
	id      protocol.NodeID
	pl      *placement
	group   int
	timeout time.Duration
	rand    func(n int) int
	nonce   string

	nextReq uint64
	op      *operation // outstanding, nil if none

	ts   uint64
	deps map[dep]bool

	// resume, while not nil, holds the dependencies of a resumed session
	// (token.go) not yet confirmed in its group: no operation is sent.
	resume *depwait.Table[*pb.Dep]
}

// operation is the session's outstanding request.
type operation struct {
	req   protocol.Request
	reqID uint64
	keys  []string
	// read-only transactions
	results map[string]*pb.ReadResult
	expect  map[protocol.NodeID]bool
	at      uint64 // round 2's effective time, 0 in round 1
	rounds  int
	waited  bool
	round2  bool
	// write-only transactions
	wanRounds int
}

func newSession(cfg protocol.SessionConfig) *session {
	pl := newPlacement(cfg.Topology)
	c := &session{id: cfg.ID, pl: pl, group: pl.groupOf[cfg.ID.DC()], timeout: cfg.OpTimeout, rand: func(n int) int { return 0 }}
	if cfg.Rand != nil {
		c.rand = cfg.Rand.IntN
		c.nonce = strconv.FormatUint(cfg.Rand.Uint64(), 36)
	}
	return c
}

func (c *session) owner(key string) protocol.NodeID { return c.pl.owner(key, c.group) }

// Start implements protocol.Node: a resumed session checks its
// dependencies.
func (c *session) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	if c.resume != nil {
		c.startResume(now, &r)
	}
	return r
}

// Submit implements protocol.Session.
func (c *session) Submit(_ time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	c.nextReq++
	op := &operation{req: req, reqID: c.nextReq}
	switch req.Op {
	case protocol.OpGet, protocol.OpReadTxn, protocol.OpPut, protocol.OpWriteTxn:
	default:
		r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
		return r
	}
	c.op = op
	if c.resume == nil {
		c.dispatch(op, &r)
	}
	if c.timeout > 0 {
		r.SetTimer(c.timeout, op.reqID)
	}
	return r
}

// dispatch sends an operation's first requests.
func (c *session) dispatch(op *operation, r *protocol.Ready) {
	req := op.req
	switch req.Op {
	case protocol.OpGet:
		c.startRead(op, []string{req.Key}, r)
	case protocol.OpReadTxn:
		c.startRead(op, req.Keys, r)
	case protocol.OpPut:
		c.startWrite(op, []protocol.KV{{Key: req.Key, Value: req.Value}}, r)
	case protocol.OpWriteTxn:
		c.startWrite(op, req.Writes, r)
	}
}

// byServer groups keys by the server of the session's group holding them.
func (c *session) byServer(keys []string) map[protocol.NodeID][]string {
	out := map[protocol.NodeID][]string{}
	for _, k := range keys {
		o := c.owner(k)
		out[o] = append(out[o], k)
	}
	return out
}

// sendReads sends one round of reads (at = 0: round 1) and counts a
// wide-area round when any server is outside the session's DC.
func (c *session) sendReads(op *operation, keys []string, r *protocol.Ready) {
	op.expect = map[protocol.NodeID]bool{}
	remote := false
	groups := c.byServer(keys)
	for _, to := range slices.Sorted(maps.Keys(groups)) {
		op.expect[to] = true
		remote = remote || to.DC() != c.id.DC()
		r.Send(c.id, to, &pb.ReadRequest{ReqId: op.reqID, Keys: groups[to], ReadTs: c.ts, At: op.at})
	}
	if remote {
		op.rounds++
	}
}

func (c *session) startRead(op *operation, keys []string, r *protocol.Ready) {
	op.keys = keys
	op.results = map[string]*pb.ReadResult{}
	c.sendReads(op, keys, r)
}

// Step implements protocol.Node: the servers' replies.
func (c *session) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	op := c.op
	switch b := m.Body.(type) {
	case *pb.ReadReply:
		if op == nil || b.ReqId != op.reqID || b.At != op.at || !op.expect[m.From] {
			return r // late or duplicate
		}
		if b.TooOld {
			c.fail(protocol.ErrUnavailable, &r)
			return r
		}
		delete(op.expect, m.From)
		op.waited = op.waited || b.WaitedRemote
		for _, res := range b.Results {
			op.results[res.Key] = res
		}
		if len(op.expect) == 0 {
			c.readRoundDone(op, &r)
		}
	case *pb.WriteReply:
		if op == nil || b.ReqId != op.reqID || op.results != nil {
			return r
		}
		if b.Aborted {
			c.fail(protocol.ErrUnavailable, &r)
			return r
		}
		c.ts = max(c.ts, b.Version)
		// Eiger §4.3: after a write-only transaction the session depends
		// on its coordinator key's version alone, whose commit in another
		// group implies the whole transaction's.
		c.deps = map[dep]bool{{op.keys[0], b.Version}: true}
		rep := protocol.Reply{Op: op.req.Op, Key: op.req.Key}
		rep.SetWANRounds(op.wanRounds)
		c.op = nil
		r.Reply(rep)
	case *pb.DepOK:
		c.depOK(b, &r)
	}
	return r
}

// readRoundDone ends a round: after round 1, the effective time is the
// smallest LVT at or above the largest EVT (and not below the session's
// ts); keys whose interval does not reach it are read again at it.
func (c *session) readRoundDone(op *operation, r *protocol.Ready) {
	if op.at == 0 {
		var maxEVT uint64
		for _, res := range op.results {
			maxEVT = max(maxEVT, res.Evt)
		}
		eff := uint64(0)
		for _, res := range op.results {
			if res.Lvt >= maxEVT && (eff == 0 || res.Lvt < eff) {
				eff = res.Lvt
			}
		}
		eff = max(eff, c.ts)
		var again []string
		for _, k := range op.keys {
			if op.results[k].Lvt < eff {
				again = append(again, k)
			}
		}
		if len(again) > 0 {
			op.at, op.round2 = eff, true
			c.sendReads(op, again, r)
			return
		}
		op.at = eff
	}
	c.finishRead(op, r)
}

func (c *session) finishRead(op *operation, r *protocol.Ready) {
	rep := protocol.Reply{Op: op.req.Op, Key: op.req.Key}
	if c.deps == nil {
		c.deps = map[dep]bool{}
	}
	c.ts = max(c.ts, op.at)
	for _, k := range op.keys {
		res := op.results[k]
		v := res.Value
		if res.Version > 0 {
			if v == nil {
				v = []byte{}
			}
			// Every version read is a one-hop dependency (Eiger §4.1),
			// even an older one of a key already depended on.
			c.deps[dep{k, res.Version}] = true
		}
		if op.req.Op == protocol.OpGet {
			rep.Value = v
		} else {
			rep.Reads = append(rep.Reads, protocol.KV{Key: k, Value: v})
		}
	}
	rounds := op.rounds
	if op.waited {
		rounds++
	}
	rep.SetWANRounds(rounds)
	if op.round2 {
		rep.Tags = append(rep.Tags, TagSecondRound)
	}
	c.op = nil
	r.Reply(rep)
}

// startWrite sends a write-only transaction's sub-requests to the servers
// of the session's group (Eiger §4.3): the coordinator key is one of the
// keys at random, and only its server gets the dependencies.
func (c *session) startWrite(op *operation, writes []protocol.KV, r *protocol.Ready) {
	keys := make([]string, 0, len(writes))
	for _, w := range writes {
		keys = append(keys, w.Key)
	}
	ci := c.rand(len(keys))
	keys[0], keys[ci] = keys[ci], keys[0]
	op.keys = keys // coordinator key first
	coordKey := keys[0]
	coordNode := c.owner(coordKey)
	txn := "o/" + string(c.id) + "/" + c.nonce + "/" + strconv.FormatUint(op.reqID, 10)
	subs := map[protocol.NodeID]*pb.WriteRequest{}
	for _, w := range writes {
		to := c.owner(w.Key)
		s := subs[to]
		if s == nil {
			s = &pb.WriteRequest{TxnId: txn, ReqId: op.reqID, CoordKey: coordKey, Keys: keys, MinClock: c.ts}
			subs[to] = s
		}
		s.Writes = append(s.Writes, &pb.KV{Key: w.Key, Value: w.Value})
	}
	for _, d := range c.sortedDeps() {
		subs[coordNode].Deps = append(subs[coordNode].Deps, &pb.Dep{Key: d.key, Version: d.version})
	}
	hops := 0
	for _, to := range slices.Sorted(maps.Keys(subs)) {
		r.Send(c.id, to, subs[to])
		h := 0
		if to.DC() != c.id.DC() {
			h++
		}
		if to.DC() != coordNode.DC() {
			h++
		}
		if coordNode.DC() != c.id.DC() {
			h++
		}
		hops = max(hops, h)
	}
	// The longest chain of one-way wide-area hops (client -> cohort ->
	// coordinator -> client), in round trips.
	op.wanRounds = (hops + 1) / 2
}

// fail ends the outstanding operation with err.
func (c *session) fail(err protocol.ErrCode, r *protocol.Ready) {
	r.Reply(protocol.Reply{Op: c.op.req.Op, Err: err})
	c.op = nil
}

// Tick implements protocol.Node: the operation timeout.
func (c *session) Tick(now time.Duration, token uint64) protocol.Ready {
	var r protocol.Ready
	if token == tickToken {
		c.resumeTick(now, &r)
		return r
	}
	if c.op != nil && token == c.op.reqID {
		c.fail(protocol.ErrTimeout, &r)
	}
	return r
}
