package chain

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// Mode is what a protocol built on the core chooses.
type Mode struct {
	// Name and Summary are what `causeway protocols` shows.
	Name, Summary string
	// K returns the chain index+1 of the node that answers a put, given
	// the topology (0: the tail, as in classic chain replication).
	K func(t *topology.Topology) int
	// Geo says whether, on topology t, each DC runs its own chains joined
	// by remote-proxies (chainreaction.txt §4) rather than one chain
	// spanning the DCs (nil: never).
	Geo func(t *topology.Topology) bool
	// LoggedTail sets Layout.LoggedTail.
	LoggedTail bool
	// NewSession creates the protocol's client session.
	NewSession func(cfg protocol.SessionConfig, l *Layout) protocol.Session
	// Sequencer adds the sequencer node (RoleSequencer, sequencer.go) that
	// numbers puts and snapshots get-transactions (chainreaction.txt §5);
	// the sessions send it their puts. Single-site domains only: under
	// Geo the sessions send puts to the heads and read_txn is unsupported.
	Sequencer bool
	// Resume creates a session from the state of a session token (see
	// protocol.Resumer; nil: the mode's sessions cannot move).
	Resume func(cfg protocol.SessionConfig, l *Layout, state []byte) (protocol.Session, error)
}

// Protocol is a protocol.Protocol whose servers run the chain core.
type Protocol struct{ mode Mode }

// New returns the protocol of mode.
func New(mode Mode) *Protocol { return &Protocol{mode: mode} }

var (
	_ protocol.Prioritizer  = (*Protocol)(nil)
	_ protocol.WriteCarrier = (*Protocol)(nil)
)

// Name implements protocol.Protocol.
func (p *Protocol) Name() string { return p.mode.Name }

// Summary implements protocol.Protocol.
func (p *Protocol) Summary() string { return p.mode.Summary }

// Guarantee implements protocol.Protocol: both FAWN-KV (linearizable) and
// ChainReaction claim causal+.
func (p *Protocol) Guarantee() protocol.Guarantee { return protocol.CausalPlus }

// Layout returns the layout of t for this protocol.
func (p *Protocol) Layout(t *topology.Topology) *Layout {
	k := 0
	if p.mode.K != nil {
		k = p.mode.K(t)
	}
	l := NewLayout(t, k)
	l.Geo = p.mode.Geo != nil && p.mode.Geo(t)
	l.LoggedTail = l.Geo && p.mode.LoggedTail
	l.Sequenced = p.mode.Sequencer
	return l
}

// Validate implements protocol.Protocol.
func (p *Protocol) Validate(t *topology.Topology) error {
	if len(t.Datacenters) == 0 {
		return fmt.Errorf("%s: no datacenters", p.mode.Name)
	}
	return nil
}

// Nodes implements protocol.Protocol: every DC's servers (RoleStorage),
// one master (RoleMaster) in the first DC, under Geo a remote-proxy
// (RoleProxy) per DC and, with Mode.Sequencer, a sequencer
// (RoleSequencer) per DC under Geo (chainreaction.txt §5: "local to each
// datacenter"), else one beside the master.
func (p *Protocol) Nodes(t *topology.Topology) []protocol.NodeSpec {
	l := p.Layout(t)
	var out []protocol.NodeSpec
	for _, n := range l.Servers() {
		out = append(out, protocol.NodeSpec{ID: n, Role: protocol.RoleStorage})
	}
	if l.Geo {
		for _, d := range l.DCs() {
			out = append(out, protocol.NodeSpec{ID: l.Proxy(d), Role: RoleProxy})
		}
	}
	out = append(out, protocol.NodeSpec{ID: l.Master(), Role: RoleMaster})
	if l.Sequenced {
		for _, d := range l.SequencedDCs() {
			out = append(out, protocol.NodeSpec{ID: l.Sequencer(d), Role: RoleSequencer})
		}
	}
	return out
}

// Replicas implements protocol.Protocol: key's chain when every server is
// up (after a repair a node appended as tail may hold the key too; it
// drops out of the chain once the failed server rejoins).
func (p *Protocol) Replicas(t *topology.Topology, key string) []protocol.NodeID {
	l := p.Layout(t)
	c, _ := l.Chain(l.InitialView(), key)
	return c
}

// NewNode implements protocol.Protocol.
func (p *Protocol) NewNode(cfg protocol.NodeConfig) protocol.Node {
	l := p.Layout(cfg.Topology)
	switch cfg.Role {
	case RoleMaster:
		return newMaster(l, cfg)
	case RoleSequencer:
		return newSequencer(l, cfg)
	case RoleProxy:
		return newProxy(l, cfg)
	}
	return newServer(l, cfg)
}

// NewSession implements protocol.Protocol.
func (p *Protocol) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return p.mode.NewSession(cfg, p.Layout(cfg.Topology))
}

// Priority implements protocol.Prioritizer: lazy propagation past node k
// yields to everything else (chainreaction.txt §3.5).
func (p *Protocol) Priority(body proto.Message) protocol.Priority {
	if u, ok := body.(*pb.Update); ok && u.Lazy {
		return protocol.PriorityLow
	}
	return protocol.PriorityHigh
}

// ReplicatedValue implements protocol.WriteCarrier: an Update carries a
// client's write to another replica of its key.
func (p *Protocol) ReplicatedValue(body proto.Message) ([]byte, bool) {
	switch b := body.(type) {
	case *pb.Update:
		return b.Value, true
	case *pb.RemoteUpdate:
		// A remote-update carries a batch of writes: its metadata is
		// everything but their values.
		n := 0
		for _, x := range b.Puts {
			n += len(x.Value)
		}
		return make([]byte, n), true
	}
	return nil, false
}
