package bench

import (
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// Placement returns the placement oracle of a client in datacenter dc
// (workload.Client.SetPlacement): whether p stores a replica of key in dc,
// per p.Replicas.
func Placement(p protocol.Protocol, t *topology.Topology, dc string) func(key string) bool {
	return func(key string) bool {
		for _, id := range p.Replicas(t, key) {
			if id.DC() == dc {
				return true
			}
		}
		return false
	}
}
