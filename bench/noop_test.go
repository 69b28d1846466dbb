package bench

import (
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
)

// relay is the simulator's no-op reference: a protocol that does no work.
// It has the same servers as cops (s0…s<n> per DC); each starts tokens
// tokens, and a server that receives a token forwards it at once to the
// next server in a fixed cycle over every DC, so messages cross the same
// WAN with the same jitter as a real run while the protocol costs
// nothing. Messages per CPU-second of relay are what the simulator's own
// event loop (queue, copy, dispatch, network model) can do.
type relay struct{ tokens int }

func (relay) Name() string                                          { return "relay" }
func (relay) Summary() string                                       { return "no-op reference" }
func (relay) Guarantee() protocol.Guarantee                         { return protocol.Eventual }
func (relay) Validate(*topology.Topology) error                     { return nil }
func (relay) Replicas(*topology.Topology, string) []protocol.NodeID { return nil }
func (relay) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, id := range relayCycle(t) {
		out = append(out, protocol.NodeSpec{ID: id})
	}
	return out
}
func (r relay) NewNode(cfg protocol.NodeConfig) protocol.Node {
	ids := relayCycle(cfg.Topology)
	n := &relayNode{id: cfg.ID, tokens: r.tokens}
	for i, id := range ids {
		if id == cfg.ID {
			n.next = ids[(i+1)%len(ids)]
		}
	}
	return n
}
func (relay) NewSession(protocol.SessionConfig) protocol.Session { return nil }

// relayCycle lists every server, DC after DC.
func relayCycle(t *topology.Topology) []protocol.NodeID {
	var ids []protocol.NodeID
	for _, d := range t.Datacenters {
		for j := 0; j < d.Servers; j++ {
			ids = append(ids, protocol.MakeNodeID(d.Name, "s"+strconv.Itoa(j)))
		}
	}
	return ids
}

type relayNode struct {
	id, next protocol.NodeID
	tokens   int
}

func (n *relayNode) Start(time.Duration) protocol.Ready {
	var r protocol.Ready
	for range n.tokens {
		r.Send(n.id, n.next, wrapperspb.UInt64(1))
	}
	return r
}
func (n *relayNode) Tick(time.Duration, uint64) protocol.Ready { return protocol.Ready{} }
func (n *relayNode) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	r.Send(n.id, n.next, m.Body)
	return r
}

// runRelay runs the relay for d of virtual time on t and returns the
// messages it sent.
func runRelay(t *topology.Topology, tokens int, d time.Duration, jitter time.Duration) int64 {
	s, err := sim.New(sim.Config{Topology: t, Protocol: relay{tokens: tokens}, Seed: 1, Jitter: jitter})
	if err != nil {
		panic(err)
	}
	s.RunUntil(d)
	return s.Stats().Messages
}
