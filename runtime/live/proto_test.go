package live

import (
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// scripted is a test protocol whose servers ("DC/s0", one per DC) do what
// the test's hooks say. Hooks run on the nodes' goroutines, concurrently:
// they must only touch synchronized test state.
//
// Its sessions implement a tiny register: a put is sent to the session's
// DC server, which stores it (in memory), sends the session "ok" and
// forwards "fwd|key|value" to every other DC server; a get reads the local
// server. Servers implement protocol.Inspector over what they stored.
type scripted struct {
	onNew   func(n *scriptNode, cfg protocol.NodeConfig)
	onStart func(n *scriptNode, now time.Duration) protocol.Ready
	onStep  func(n *scriptNode, now time.Duration, m protocol.Message) protocol.Ready
	onTick  func(n *scriptNode, now time.Duration, token uint64) protocol.Ready
	// roleOf, when set, gives the role of each DC's node in Nodes.
	roleOf func(dc string) protocol.Role
}

func (p *scripted) Name() string                                          { return "scripted" }
func (p *scripted) Summary() string                                       { return "test protocol" }
func (p *scripted) Guarantee() protocol.Guarantee                         { return protocol.Eventual }
func (p *scripted) Validate(*topology.Topology) error                     { return nil }
func (p *scripted) Replicas(*topology.Topology, string) []protocol.NodeID { return nil }
func (p *scripted) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, dc := range t.DCNames() {
		spec := protocol.NodeSpec{ID: protocol.MakeNodeID(dc, "s0")}
		if p.roleOf != nil {
			spec.Role = p.roleOf(dc)
		}
		out = append(out, spec)
	}
	return out
}

func (p *scripted) NewNode(cfg protocol.NodeConfig) protocol.Node {
	n := &scriptNode{p: p, id: cfg.ID, topo: cfg.Topology, kv: map[string][]byte{}}
	if p.onNew != nil {
		p.onNew(n, cfg)
	}
	return n
}

func (p *scripted) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return &registerSession{id: cfg.ID}
}

type scriptNode struct {
	p    *scripted
	id   protocol.NodeID
	topo *topology.Topology
	kv   map[string][]byte
	// state is free for hooks to use (only on this node's goroutine).
	state int
}

func (n *scriptNode) Start(now time.Duration) protocol.Ready {
	if n.p.onStart != nil {
		return n.p.onStart(n, now)
	}
	return protocol.Ready{}
}

func (n *scriptNode) Tick(now time.Duration, token uint64) protocol.Ready {
	if n.p.onTick != nil {
		return n.p.onTick(n, now, token)
	}
	return protocol.Ready{}
}

func (n *scriptNode) Step(now time.Duration, m protocol.Message) protocol.Ready {
	if n.p.onStep != nil {
		return n.p.onStep(n, now, m)
	}
	return n.register(m)
}

// register is the servers' default behaviour: the register of
// registerSession.
func (n *scriptNode) register(m protocol.Message) protocol.Ready {
	var r protocol.Ready
	op, key, value := splitBody(m.Body)
	switch op {
	case "put":
		n.kv[key] = []byte(value)
		r.Send(n.id, m.From, wrapperspb.String("ok"))
		for _, dc := range n.topo.DCNames() {
			if dc != n.id.DC() {
				r.Send(n.id, protocol.MakeNodeID(dc, "s0"), wrapperspb.String("fwd|"+key+"|"+value))
			}
		}
	case "fwd":
		n.kv[key] = []byte(value)
		r.Visible(key, []byte(value))
	case "get":
		r.Send(n.id, m.From, wrapperspb.String("val|"+key+"|"+string(n.kv[key])))
	}
	return r
}

func (n *scriptNode) Replicas(fn func(key string, value []byte)) {
	for k, v := range n.kv {
		fn(k, v)
	}
}

// registerSession is the client side of the register.
type registerSession struct {
	id protocol.NodeID
	op protocol.Op
}

func (s *registerSession) Start(time.Duration) protocol.Ready        { return protocol.Ready{} }
func (s *registerSession) Tick(time.Duration, uint64) protocol.Ready { return protocol.Ready{} }

func (s *registerSession) Submit(_ time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	s.op = req.Op
	server := protocol.MakeNodeID(s.id.DC(), "s0")
	switch req.Op {
	case protocol.OpPut:
		r.Send(s.id, server, wrapperspb.String("put|"+req.Key+"|"+string(req.Value)))
	case protocol.OpGet:
		if req.Key == "black-hole" { // never answered: the op stays outstanding
			return r
		}
		r.Send(s.id, server, wrapperspb.String("get|"+req.Key+"|"))
	default:
		r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
	}
	return r
}

func (s *registerSession) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	op, key, value := splitBody(m.Body)
	switch op {
	case "ok":
		r.Reply(protocol.Reply{Op: s.op})
	case "val":
		rep := protocol.Reply{Op: s.op, Key: key}
		if value != "" {
			rep.Value = []byte(value)
		}
		r.Reply(rep)
	}
	return r
}

// splitBody splits "op|key|value" (value may contain '|').
func splitBody(b any) (op, key, value string) {
	parts := strings.SplitN(b.(*wrapperspb.StringValue).Value, "|", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return parts[0], parts[1], parts[2]
}
