package saturn

import (
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/c3"
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

// New returns Saturn (protocol.Protocol): the datastore's servers plus
// one serializer per DC, on C3's gated Cassandra store and C3's client
// library (home and current DC, automatic migration, the cache purged on
// write and migration), asking the serializers.
func New() *c3.Layered {
	return c3.NewLayered(c3.LayeredSpec{
		Name:    Name,
		Summary: "Saturn: labels over a tree of FIFO links, remote writes applied one at a time in label order, over a LOCAL_QUORUM Cassandra model (c3.txt §2, §5.1)",
		Role:    RoleSerializer,
		NodeOf:  SerializerOf,
		Gate:    func(cfg protocol.NodeConfig, rf int) protocol.Node { return newSerializer(cfg, rf) },
	})
}

func init() { protocol.Register(New()) }
