package rad

import (
	"fmt"
	"strconv"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// Name is the protocol's CLI name.
const Name = "rad"

// defaultF is the replication factor when the topology names none (k2.txt
// §VII-B: f = 2 by default).
const defaultF = 2

// serverBits is how many low bits of a timestamp name the minting server.
const serverBits = 10

// Protocol is RAD's deployment factory (protocol.Protocol).
type Protocol struct{}

func init() { protocol.Register(Protocol{}) }

// Name implements protocol.Protocol.
func (Protocol) Name() string { return Name }

// Summary implements protocol.Protocol.
func (Protocol) Summary() string {
	return "RAD: Eiger over replica groups, each replica split across the DCs of a group (K2's baseline, k2.txt §VII-A)"
}

// Guarantee implements protocol.Protocol.
func (Protocol) Guarantee() protocol.Guarantee { return protocol.CausalPlus }

// Validate implements protocol.Protocol.
func (Protocol) Validate(t *topology.Topology) error {
	n := 0
	for _, d := range t.Datacenters {
		n += d.Servers
	}
	if n > 1<<serverBits {
		return fmt.Errorf("%s: at most %d servers in all, topology %s has %d", Name, 1<<serverBits, t.Name, n)
	}
	return nil
}

// serverName names the i-th storage server of a DC.
func serverName(i int) string { return "s" + strconv.Itoa(i) }

// Nodes implements protocol.Protocol: every DC's storage servers.
func (Protocol) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, d := range t.Datacenters {
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, serverName(i)), Role: protocol.RoleStorage})
		}
	}
	return out
}

// Replicas implements protocol.Protocol: key's server in each replica
// group.
func (Protocol) Replicas(t *topology.Topology, key string) []protocol.NodeID {
	pl := newPlacement(t)
	out := make([]protocol.NodeID, 0, len(pl.groups))
	for g := range pl.groups {
		out = append(out, pl.owner(key, g))
	}
	return out
}

// NewNode implements protocol.Protocol.
func (Protocol) NewNode(cfg protocol.NodeConfig) protocol.Node { return newServer(cfg) }

// NewSession implements protocol.Protocol.
func (Protocol) NewSession(cfg protocol.SessionConfig) protocol.Session { return newSession(cfg) }

// placement answers RAD's "who holds key k" (topology.ReplicaGroups and
// ReplicaDCs with f = placement.replication_factor, default 2).
type placement struct {
	topo    *topology.Topology
	f       int
	groups  [][]string
	groupOf map[string]int
}

func newPlacement(t *topology.Topology) *placement {
	f := t.Placement.ReplicationFactor
	if f == 0 {
		f = defaultF
	}
	p := &placement{topo: t, f: f, groups: t.ReplicaGroups(f), groupOf: map[string]int{}}
	p.f = len(p.groups)
	for g, dcs := range p.groups {
		for _, dc := range dcs {
			p.groupOf[dc] = g
		}
	}
	return p
}

// dcOf returns the DC of group g that holds key.
func (p *placement) dcOf(key string, g int) string {
	for _, dc := range p.topo.ReplicaDCs(key, p.f) {
		if p.groupOf[dc] == g {
			return dc
		}
	}
	panic(fmt.Sprintf("rad: key %q has no DC in group %d", key, g))
}

// owner returns the server of group g that holds key.
func (p *placement) owner(key string, g int) protocol.NodeID {
	dc := p.dcOf(key, g)
	return protocol.MakeNodeID(dc, serverName(p.topo.ServerIndex(dc, key)))
}

// serverIndex numbers every server of the topology, in declared order.
func serverIndex(t *topology.Topology, id protocol.NodeID) uint64 {
	i := 0
	for _, d := range t.Datacenters {
		for j := 0; j < d.Servers; j++ {
			if protocol.MakeNodeID(d.Name, serverName(j)) == id {
				return uint64(i)
			}
			i++
		}
	}
	panic(fmt.Sprintf("rad: unknown server %s", id))
}
