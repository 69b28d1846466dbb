package c3

import (
	"github.com/causeway/causeway/protocol"
)

// Name is the protocol's CLI name.
const Name = "c3"

// RoleLayer is the role of a DC's causality-layer node (c3.txt §3.2).
const RoleLayer protocol.Role = "causality-layer"

// layerName is the node name of every DC's causality layer.
const layerName = "layer"

// LayerOf names the causality-layer node of dc.
func LayerOf(dc string) protocol.NodeID { return protocol.MakeNodeID(dc, layerName) }

// New returns C3 (protocol.Protocol): the datastore's servers plus one
// causality layer per DC.
func New() *Layered {
	return NewLayered(LayeredSpec{
		Name:    Name,
		Summary: "C3: a causality layer per DC over a LOCAL_QUORUM Cassandra model, concurrent remote writes, client migration (c3.txt)",
		Role:    RoleLayer,
		NodeOf:  LayerOf,
		Gate:    func(cfg protocol.NodeConfig, rf int) protocol.Node { return newLayer(cfg, rf) },
	})
}

func init() { protocol.Register(New()) }
