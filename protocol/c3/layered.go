package c3

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/cassandra"
	"github.com/causeway/causeway/topology"
)

// LayeredSpec names what differs between the protocols built as a gated
// Cassandra store plus one gating node per DC: C3 (its causality layer)
// and Saturn (its serializer). Both run C3's client library (home and
// current DC, automatic migration through the gating nodes, the cache
// purged on write and migration).
type LayeredSpec struct {
	// Name is the protocol's CLI name; Summary its one-line description.
	Name, Summary string
	// Role is the role of each DC's gating node; NodeOf names dc's one.
	Role   protocol.Role
	NodeOf func(dc string) protocol.NodeID
	// Gate builds a DC's gating node; rf is the store's replication
	// factor per DC.
	Gate func(cfg protocol.NodeConfig, rf int) protocol.Node
}

// Layered is a protocol.Protocol made of the Cassandra model with RF
// placement.dc_replicas and LOCAL_QUORUM (c3.txt §4, §5.2), its replicas
// gated by one node per DC (spec.Gate): remote writes wait at a replica
// until the DC's gating node releases them.
type Layered struct {
	spec  LayeredSpec
	store cassandra.Preset
	data  *cassandra.Protocol
}

// NewLayered returns the protocol spec describes.
func NewLayered(spec LayeredSpec) *Layered {
	store := cassandra.Preset{Name: spec.Name, Multi: cassandra.Setting{Read: cassandra.LocalQuorum,
		Write: cassandra.LocalQuorum, RemoteRead: cassandra.LocalQuorum, RemoteWrite: cassandra.LocalQuorum},
		Gated: true, Layer: spec.NodeOf}
	return &Layered{spec: spec, store: store, data: cassandra.New(store)}
}

// Name implements protocol.Protocol.
func (p *Layered) Name() string { return p.spec.Name }

// Summary implements protocol.Protocol.
func (p *Layered) Summary() string { return p.spec.Summary }

// Guarantee implements protocol.Protocol.
func (p *Layered) Guarantee() protocol.Guarantee { return protocol.CausalPlus }

// Validate implements protocol.Protocol.
func (p *Layered) Validate(t *topology.Topology) error {
	if len(t.Datacenters) > 1<<16 {
		return fmt.Errorf("%s: at most %d DCs", p.spec.Name, 1<<16)
	}
	return p.data.Validate(t)
}

// Nodes implements protocol.Protocol: every DC's storage servers and its
// gating node.
func (p *Layered) Nodes(t *topology.Topology) []protocol.NodeSpec {
	out := p.data.Nodes(t)
	for _, d := range t.Datacenters {
		out = append(out, protocol.NodeSpec{ID: p.spec.NodeOf(d.Name), Role: p.spec.Role})
	}
	return out
}

// Replicas implements protocol.Protocol: the key's storage replicas.
func (p *Layered) Replicas(t *topology.Topology, key string) []protocol.NodeID {
	return p.data.Replicas(t, key)
}

// NewNode implements protocol.Protocol.
func (p *Layered) NewNode(cfg protocol.NodeConfig) protocol.Node {
	if cfg.Role == p.spec.Role {
		return p.spec.Gate(cfg, p.RF(cfg.Topology))
	}
	return p.data.NewNode(cfg)
}

// NewSession implements protocol.Protocol: C3's client library, migrating
// through spec.NodeOf's nodes.
func (p *Layered) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return newClient(p.spec.Name, cfg, p.spec.NodeOf)
}

// ReplicatedValue implements protocol.WriteCarrier: the datastore's
// Mutations carry the writes (labels carry no values).
func (p *Layered) ReplicatedValue(body proto.Message) ([]byte, bool) {
	return p.data.ReplicatedValue(body)
}

// RF is the store's number of replicas of a key in each DC of t.
func (p *Layered) RF(t *topology.Topology) int { return p.store.RF(t) }
