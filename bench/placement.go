package bench

import (
	"slices"
	"strings"

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

// Group returns the replica-group oracle of a client
// (workload.Client.SetGroup): the sorted DCs where p stores key, so that
// a remote excursion's keys all live where its first key does.
func Group(p protocol.Protocol, t *topology.Topology) func(key string) string {
	return func(key string) string {
		var dcs []string
		for _, id := range p.Replicas(t, key) {
			dcs = append(dcs, id.DC())
		}
		slices.Sort(dcs)
		return strings.Join(slices.Compact(dcs), ",")
	}
}
