package fullrep

import (
	"sort"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/depwait"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

// session is a client session bound to its DC. In causal mode it keeps
// COPS's nearest dependencies: after a put, just that put; after a get, the
// version read is added.
type session struct {
	protocol.ReadyPool // reuses the Readies a runtime hands back (protocol.Recycler)
	mode               Mode
	id                 protocol.NodeID
	topo               *topology.Topology
	timeout            time.Duration
	local              shards // the servers of the session's DC

	nextReq uint64
	pending *protocol.Request // the outstanding operation (&req), nil if none
	req     protocol.Request  // the last operation submitted: pending without an allocation per operation
	reqID   uint64

	deps       map[dep]bool // nearest dependencies (causal mode)
	maxVersion uint64       // highest version seen (Lamport)

	// resume, while not nil, holds the dependencies of a resumed session
	// (see token.go) that its DC has not yet confirmed: until it is nil
	// again no operation is sent.
	resume *depwait.Table[*pb.Dep]
}

// Start implements protocol.Node: a resumed session starts checking its
// dependencies.
func (c *session) Start(now time.Duration) protocol.Ready {
	r := c.Take()
	if c.resume != nil {
		c.startResume(now, &r)
	}
	return r
}

// Submit implements protocol.Session.
func (c *session) Submit(_ time.Duration, req protocol.Request) protocol.Ready {
	r := c.Take()
	if req.Op != protocol.OpGet && req.Op != protocol.OpPut {
		r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
		return r
	}
	c.nextReq++
	c.reqID = c.nextReq
	c.req = req
	c.pending = &c.req
	if c.resume == nil {
		c.send(&r)
	}
	if c.timeout > 0 {
		r.SetTimer(c.timeout, c.reqID)
	}
	return r
}

// send sends the pending operation to the key's shard in the session's DC.
func (c *session) send(r *protocol.Ready) {
	req := c.pending
	to := c.local.owner(req.Key)
	if req.Op == protocol.OpGet {
		r.Send(c.id, to, &pb.GetRequest{ReqId: c.reqID, Key: req.Key})
		return
	}
	put := &pb.PutRequest{ReqId: c.reqID, Key: req.Key, Value: req.Value, MinVersion: c.maxVersion}
	if c.mode.Causal {
		for _, d := range c.sortedDeps() {
			put.Deps = append(put.Deps, &pb.Dep{Key: d.key, Version: d.version})
		}
	}
	r.Send(c.id, to, put)
}

// sortedDeps returns the nearest dependencies by key, then version.
func (c *session) sortedDeps() []dep {
	ds := make([]dep, 0, len(c.deps))
	for d := range c.deps {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].key != ds[j].key {
			return ds[i].key < ds[j].key
		}
		return ds[i].version < ds[j].version
	})
	return ds
}

// Step implements protocol.Node: replies from the local servers.
func (c *session) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	r := c.Take()
	switch b := m.Body.(type) {
	case *pb.GetReply:
		if c.pending == nil || b.ReqId != c.reqID {
			return r // late reply to an operation that timed out
		}
		req := c.pending
		c.pending = nil
		rep := protocol.Reply{Op: protocol.OpGet, Key: req.Key}
		rep.SetWANRounds(0) // answered by the session's own DC
		if b.Version > 0 {
			rep.Value = b.Value
			if rep.Value == nil {
				rep.Value = []byte{}
			}
			if b.Stable {
				// Committed in every DC: no put needs to wait for it
				// (stable.go), but later versions stay above it.
				c.maxVersion = max(c.maxVersion, b.Version)
			} else {
				c.observe(req.Key, b.Version, false)
			}
		} else if b.Value != nil {
			// A loaded value (version 0): every replica starts with it,
			// so reading it adds no dependency.
			rep.Value = b.Value
		}
		r.Reply(rep)
	case *pb.PutReply:
		if c.pending == nil || b.ReqId != c.reqID {
			return r
		}
		req := c.pending
		c.pending = nil
		c.observe(req.Key, b.Version, true)
		rep := protocol.Reply{Op: protocol.OpPut, Key: req.Key}
		rep.SetWANRounds(0) // acknowledged by the session's own DC
		r.Reply(rep)
	case *pb.DepOK:
		c.depOK(b.Deps, &r)
	}
	return r
}

// dep is one (key, version) a session depends on.
type dep struct {
	key     string
	version uint64
}

// observe records a version the session now depends on.
func (c *session) observe(key string, version uint64, put bool) {
	c.maxVersion = max(c.maxVersion, version)
	if !c.mode.Causal {
		return
	}
	if put || c.deps == nil {
		// The put depends on everything before it, so it alone is the
		// nearest dependency from now on (COPS §4.2).
		c.deps = map[dep]bool{}
	}
	// Every version read is kept, even a lower one of a key already
	// depended on: under LWW a higher version does not imply the lower
	// one's own dependencies are visible.
	c.deps[dep{key, version}] = true
}

// Tick implements protocol.Node: the operation timeout, and the resends
// of a resumed session's dependency checks.
func (c *session) Tick(now time.Duration, token uint64) protocol.Ready {
	r := c.Take()
	if token == tickToken {
		c.resumeTick(now, &r)
		return r
	}
	if c.pending != nil && token == c.reqID {
		op := c.pending.Op
		c.pending = nil
		r.Reply(protocol.Reply{Op: op, Err: protocol.ErrTimeout})
	}
	return r
}
