package c3

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/cassandra"
	"github.com/causeway/causeway/topology"
)

// Name is the protocol's CLI name.
const Name = "c3"

// RoleLayer is the role of a DC's causality-layer node (c3.txt §3.2).
const RoleLayer protocol.Role = "causality-layer"

// layerName is the node name of every DC's causality layer.
const layerName = "layer"

// LayerOf names the causality-layer node of dc.
func LayerOf(dc string) protocol.NodeID { return protocol.MakeNodeID(dc, layerName) }

// store is C3's datastore (c3.txt §4, §5.2): the Cassandra model with
// RF 3 (placement.dc_replicas) and LOCAL_QUORUM, its replicas gated by
// the layer.
var store = cassandra.Preset{Name: Name, Multi: cassandra.Setting{Read: cassandra.LocalQuorum,
	Write: cassandra.LocalQuorum, RemoteRead: cassandra.LocalQuorum, RemoteWrite: cassandra.LocalQuorum},
	Gated: true, Layer: LayerOf}

// Protocol is C3 (protocol.Protocol): the datastore's servers plus one
// causality layer per DC.
type Protocol struct{ data *cassandra.Protocol }

// New returns C3.
func New() *Protocol { return &Protocol{data: cassandra.New(store)} }

func init() { protocol.Register(New()) }

// Name implements protocol.Protocol.
func (p *Protocol) Name() string { return Name }

// Summary implements protocol.Protocol.
func (p *Protocol) Summary() string {
	return "C3: a causality layer per DC over a LOCAL_QUORUM Cassandra model, concurrent remote writes, client migration (c3.txt)"
}

// Guarantee implements protocol.Protocol.
func (p *Protocol) Guarantee() protocol.Guarantee { return protocol.CausalPlus }

// Validate implements protocol.Protocol.
func (p *Protocol) Validate(t *topology.Topology) error {
	if len(t.Datacenters) > 1<<16 {
		return fmt.Errorf("%s: at most %d DCs", Name, 1<<16)
	}
	return p.data.Validate(t)
}

// Nodes implements protocol.Protocol: every DC's storage servers and its
// causality layer.
func (p *Protocol) Nodes(t *topology.Topology) []protocol.NodeSpec {
	out := p.data.Nodes(t)
	for _, d := range t.Datacenters {
		out = append(out, protocol.NodeSpec{ID: LayerOf(d.Name), Role: RoleLayer})
	}
	return out
}

// Replicas implements protocol.Protocol: the key's storage replicas.
func (p *Protocol) Replicas(t *topology.Topology, key string) []protocol.NodeID {
	return p.data.Replicas(t, key)
}

// NewNode implements protocol.Protocol.
func (p *Protocol) NewNode(cfg protocol.NodeConfig) protocol.Node {
	if cfg.Role == RoleLayer {
		return newLayer(cfg, store.RF(cfg.Topology))
	}
	return p.data.NewNode(cfg)
}

// NewSession implements protocol.Protocol.
func (p *Protocol) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return newSession(cfg)
}

// ReplicatedValue implements protocol.WriteCarrier: the datastore's
// Mutations carry the writes (labels carry no values).
func (p *Protocol) ReplicatedValue(body proto.Message) ([]byte, bool) {
	return p.data.ReplicatedValue(body)
}
