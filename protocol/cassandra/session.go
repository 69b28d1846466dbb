package cassandra

import (
	"hash/fnv"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/cassandrapb"
)

// session is a client session: it sends every operation to one
// coordinator of its DC, at the preset's levels, and keeps no metadata.
type session struct {
	preset  Preset
	id      protocol.NodeID
	topo    *topology.Topology
	timeout time.Duration
	coord   protocol.NodeID

	reqID   uint64
	pending *protocol.Request
}

// Coordinator returns the server of id's DC that session id sends its
// requests to: a hash of the session's id over the DC's servers (a driver
// picking one node of its DC), so every run gives a session the same one.
func Coordinator(t *topology.Topology, id protocol.NodeID) protocol.NodeID {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return protocol.MakeNodeID(id.DC(), ServerName(int(h.Sum64()%uint64(t.Servers(id.DC())))))
}

// NextCoordinator returns the server after coord in its DC (wrapping): a
// session whose coordinator does not answer a read in ReadRetry asks the
// next one, as a driver fails over to another node of its DC.
func NextCoordinator(t *topology.Topology, coord protocol.NodeID) protocol.NodeID {
	n := t.Servers(coord.DC())
	for i := 0; i < n; i++ {
		if ServerName(i) == coord.Name() {
			return protocol.MakeNodeID(coord.DC(), ServerName((i+1)%n))
		}
	}
	return coord
}

// ReadRetry is how long a session waits for its coordinator's answer to a
// read before it sends the read to the next server of the DC (a read can
// be retried anywhere; a write is not, since a second coordinator would
// make it a second write).
const ReadRetry = 500 * time.Millisecond

// readToken marks a session's read-retry timer.
const readToken = 1 << 62

func newSession(preset Preset, cfg protocol.SessionConfig) *session {
	return &session{preset: preset, id: cfg.ID, topo: cfg.Topology, timeout: cfg.OpTimeout,
		coord: Coordinator(cfg.Topology, cfg.ID)}
}

// Levels returns the read and write levels a client of dc uses for key
// under preset on t: the preset's levels when dc replicates key, its
// remote levels otherwise.
func (pr Preset) Levels(t *topology.Topology, dc, key string) (read, write Level) {
	st := pr.setting(t)
	for _, d := range t.PartitionDCs(key) {
		if d == dc {
			return st.Read, st.Write
		}
	}
	return st.RemoteRead, st.RemoteWrite
}

// Start implements protocol.Node.
func (c *session) Start(time.Duration) protocol.Ready { return protocol.Ready{} }

// Submit implements protocol.Session: get and put.
func (c *session) Submit(_ time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	if req.Op != protocol.OpGet && req.Op != protocol.OpPut {
		r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
		return r
	}
	c.reqID++
	c.pending = &req
	rl, wl := c.preset.Levels(c.topo, c.id.DC(), req.Key)
	if req.Op == protocol.OpGet {
		r.Send(c.id, c.coord, &pb.ClientRead{ReqId: c.reqID, Key: req.Key, Level: uint32(rl)})
		r.SetTimer(ReadRetry, readToken|c.reqID)
	} else {
		r.Send(c.id, c.coord, &pb.ClientWrite{ReqId: c.reqID, Key: req.Key, Value: req.Value, Level: uint32(wl)})
	}
	if c.timeout > 0 {
		r.SetTimer(c.timeout, c.reqID)
	}
	return r
}

// Step implements protocol.Node: the coordinator's answer.
func (c *session) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	b, ok := m.Body.(*pb.ClientReply)
	if !ok || c.pending == nil || b.ReqId != c.reqID {
		return r // a late answer to an operation that timed out
	}
	req := c.pending
	c.pending = nil
	rep := protocol.Reply{Op: req.Op, Key: req.Key}
	if req.Op == protocol.OpGet {
		rep.Value = b.Value
		if b.Version > 0 && rep.Value == nil {
			rep.Value = []byte{}
		}
	}
	if b.Wan {
		rep.SetWANRounds(1)
	} else {
		rep.SetWANRounds(0)
	}
	r.Reply(rep)
	return r
}

// Tick implements protocol.Node: the operation timeout.
func (c *session) Tick(_ time.Duration, token uint64) protocol.Ready {
	var r protocol.Ready
	if token&readToken != 0 {
		if c.pending != nil && c.pending.Op == protocol.OpGet && token&^readToken == c.reqID {
			c.coord = NextCoordinator(c.topo, c.coord)
			rl, _ := c.preset.Levels(c.topo, c.id.DC(), c.pending.Key)
			r.Send(c.id, c.coord, &pb.ClientRead{ReqId: c.reqID, Key: c.pending.Key, Level: uint32(rl)})
			r.SetTimer(ReadRetry, token)
		}
		return r
	}
	if c.pending != nil && token == c.reqID {
		op := c.pending.Op
		c.pending = nil
		c.coord = NextCoordinator(c.topo, c.coord) // it may be down
		r.Reply(protocol.Reply{Op: op, Err: protocol.ErrTimeout})
	}
	return r
}
