package saturn

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/c3"
	"github.com/causeway/causeway/protocol/cassandra"
	"github.com/causeway/causeway/topology"
)

// Name is the protocol's CLI name.
const Name = "saturn"

// RoleSerializer is the role of a DC's Saturn serializer: its label sink,
// remote proxy and tree node (c3.txt §2, §5.1).
const RoleSerializer protocol.Role = "serializer"

// serializerName is the node name of every DC's serializer.
const serializerName = "serializer"

// SerializerOf names the serializer node of dc.
func SerializerOf(dc string) protocol.NodeID { return protocol.MakeNodeID(dc, serializerName) }

// store is Saturn's datastore (c3.txt §5.1, §5.2): the Cassandra model
// with RF 3 (placement.dc_replicas) and LOCAL_QUORUM, its replicas gated
// by the serializer, as C3's.
var store = cassandra.Preset{Name: Name, Multi: cassandra.Setting{Read: cassandra.LocalQuorum,
	Write: cassandra.LocalQuorum, RemoteRead: cassandra.LocalQuorum, RemoteWrite: cassandra.LocalQuorum},
	Gated: true, Layer: SerializerOf}

// Protocol is Saturn (protocol.Protocol): the datastore's servers plus one
// serializer per DC.
type Protocol struct{ data *cassandra.Protocol }

// New returns Saturn.
func New() *Protocol { return &Protocol{data: cassandra.New(store)} }

func init() { protocol.Register(New()) }

// Name implements protocol.Protocol.
func (p *Protocol) Name() string { return Name }

// Summary implements protocol.Protocol.
func (p *Protocol) Summary() string {
	return "Saturn: labels over a tree of FIFO links, remote writes applied one at a time in label order, over a LOCAL_QUORUM Cassandra model (c3.txt §2, §5.1)"
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
// serializer.
func (p *Protocol) Nodes(t *topology.Topology) []protocol.NodeSpec {
	out := p.data.Nodes(t)
	for _, d := range t.Datacenters {
		out = append(out, protocol.NodeSpec{ID: SerializerOf(d.Name), Role: RoleSerializer})
	}
	return out
}

// Replicas implements protocol.Protocol: the key's storage replicas.
func (p *Protocol) Replicas(t *topology.Topology, key string) []protocol.NodeID {
	return p.data.Replicas(t, key)
}

// NewNode implements protocol.Protocol.
func (p *Protocol) NewNode(cfg protocol.NodeConfig) protocol.Node {
	if cfg.Role == RoleSerializer {
		return newSerializer(cfg, store.RF(cfg.Topology))
	}
	return p.data.NewNode(cfg)
}

// NewSession implements protocol.Protocol: C3's client library (home and
// current DC, automatic migration, the cache purged on write and
// migration), asking the serializers.
func (p *Protocol) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return c3.NewClient(cfg, SerializerOf)
}

// ReplicatedValue implements protocol.WriteCarrier: the datastore's
// Mutations carry the writes (labels carry no values).
func (p *Protocol) ReplicatedValue(body proto.Message) ([]byte, bool) {
	return p.data.ReplicatedValue(body)
}
