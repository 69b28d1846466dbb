package fullrep

import (
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// shards are the storage servers of one DC, their IDs built once and the
// DC's ring found once, so that finding a key's owner (owner) builds no
// string and looks nothing up by name on the hot path.
type shards struct {
	ring topology.DCRing
	ids  []protocol.NodeID // by server index
}

// newShards returns the servers of dc.
func newShards(t *topology.Topology, dc string) shards {
	s := shards{ring: t.DCRing(dc), ids: make([]protocol.NodeID, t.Servers(dc))}
	for i := range s.ids {
		s.ids[i] = protocol.MakeNodeID(dc, serverName(i))
	}
	return s
}

// owner returns the server that stores key: owner(topo, dc, key).
func (s shards) owner(key string) protocol.NodeID { return s.ids[s.ring.Server(key)] }

// ownerAt returns the server that stores a key whose topology.KeyHash is
// h: a key placed in every DC is hashed once.
func (s shards) ownerAt(h uint64) protocol.NodeID { return s.ids[s.ring.ServerAt(h)] }

// allShards returns the servers of every DC, in topology order.
func allShards(t *topology.Topology) []shards {
	out := make([]shards, len(t.Datacenters))
	for i, d := range t.Datacenters {
		out[i] = newShards(t, d.Name)
	}
	return out
}
