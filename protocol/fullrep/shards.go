package fullrep

import (
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// shards are the storage servers of one DC, their IDs built once so that
// finding a key's owner (owner) builds no string on the hot path.
type shards struct {
	topo *topology.Topology
	dc   string
	ids  []protocol.NodeID // by server index
}

// newShards returns the servers of dc.
func newShards(t *topology.Topology, dc string) shards {
	s := shards{topo: t, dc: dc, ids: make([]protocol.NodeID, t.Servers(dc))}
	for i := range s.ids {
		s.ids[i] = protocol.MakeNodeID(dc, serverName(i))
	}
	return s
}

// owner returns the server that stores key: owner(topo, dc, key).
func (s shards) owner(key string) protocol.NodeID { return s.ids[s.topo.ServerIndex(s.dc, key)] }

// allShards returns the servers of every DC, in topology order.
func allShards(t *topology.Topology) []shards {
	out := make([]shards, len(t.Datacenters))
	for i, d := range t.Datacenters {
		out[i] = newShards(t, d.Name)
	}
	return out
}
