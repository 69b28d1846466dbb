package faults

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// Random draws a schedule for a run of the given duration from rng, for a
// protocol that runs nodes (its Nodes on t). Every fault it injects is
// over (partitions healed, crashed nodes restarted, loss and delay
// expired) by 70% of the duration, so that a run can end in a healed,
// quiescent state and replicas can be compared.
//
// A crash of one node may hit any of nodes, whatever its role (storage
// servers, coordinators, caches, proxies): it draws a DC, then one of the
// roles of the DC's nodes, then a node of that role, so that a role with
// few nodes (a DC's two caches beside eight servers) is crashed as often
// as any other. With no nodes, it crashes only whole DCs. The same rng
// state, topology and nodes (in the same order) draw the same schedule.
func Random(rng *rand.Rand, t *topology.Topology, nodes []protocol.NodeSpec, duration time.Duration) Schedule {
	dcs := t.DCNames()
	byRole := nodesByDCAndRole(nodes)
	end := duration * 7 / 10
	at := func(lo, hi float64) time.Duration {
		return time.Duration((lo + rng.Float64()*(hi-lo)) * float64(end))
	}
	pick := func() string { return dcs[rng.IntN(len(dcs))] }
	var s Schedule
	n := 2 + rng.IntN(4)
	for i := 0; i < n; i++ {
		start := at(0.05, 0.6)
		stop := start + at(0.05, 0.35)
		if stop > end {
			stop = end
		}
		span := stop - start
		switch rng.IntN(7) {
		case 0: // symmetric partition of one DC from the rest
			dc := pick()
			var rest []string
			for _, d := range dcs {
				if d != dc {
					rest = append(rest, d)
				}
			}
			s = append(s, Event{At: start, Partition: [][]string{{dc}, rest}}, Event{At: stop, Heal: "partitions"})
		case 1: // one-way partition
			a, b := pick(), pick()
			if a == b {
				continue
			}
			s = append(s, Event{At: start, PartitionOneway: &Oneway{From: []string{a}, To: []string{b}}}, Event{At: stop, Heal: "partitions"})
		case 2: // crash and restart one node, of any role
			roles := byRole[pick()]
			if len(roles) == 0 {
				continue
			}
			of := roles[rng.IntN(len(roles))]
			node := "node:" + string(of[rng.IntN(len(of))])
			s = append(s, Event{At: start, Crash: node}, Event{At: stop, Restart: node})
		case 3: // crash and restart every server of a DC
			dc := "dc:" + pick()
			s = append(s, Event{At: start, Crash: dc}, Event{At: stop, Restart: dc})
		case 4:
			s = append(s, Event{At: start, Loss: &Chance{Target: "dc:" + pick(), Probability: 0.05 + rng.Float64()*0.3, For: span}})
		case 5:
			s = append(s, Event{At: start, Delay: &Delay{Target: "dc:" + pick(), AddMs: float64(50 + rng.IntN(1000)), For: span}})
		case 6:
			if rng.IntN(2) == 0 {
				s = append(s, Event{At: start, Duplicate: &Chance{Target: "dc:" + pick(), Probability: 0.1, For: span}})
			} else {
				s = append(s, Event{At: start, Reorder: &Reorder{Target: "dc:" + pick(), Probability: 0.3, MaxMs: 200, For: span}})
			}
		}
	}
	if rng.IntN(2) == 0 {
		s = append(s, Event{At: 0, ClockSkew: &Skew{Target: "dc:" + pick(), Ms: float64(rng.IntN(500) - 250)}})
	}
	s = append(s, Event{At: end, Heal: "all"})
	sortSchedule(s)
	return s
}

// nodesByDCAndRole groups the IDs of nodes by DC, then by role (roles in
// sorted order, nodes in the order of nodes).
func nodesByDCAndRole(nodes []protocol.NodeSpec) map[string][][]protocol.NodeID {
	idx := map[string]map[protocol.Role][]protocol.NodeID{}
	for _, n := range nodes {
		dc := n.ID.DC()
		if idx[dc] == nil {
			idx[dc] = map[protocol.Role][]protocol.NodeID{}
		}
		r := n.RoleOrStorage()
		idx[dc][r] = append(idx[dc][r], n.ID)
	}
	out := map[string][][]protocol.NodeID{}
	for dc, roles := range idx {
		names := make([]protocol.Role, 0, len(roles))
		for r := range roles {
			names = append(names, r)
		}
		slices.Sort(names)
		for _, r := range names {
			out[dc] = append(out[dc], roles[r])
		}
	}
	return out
}

// zonesOf lists the availability zones of nodes as "DC/zone", sorted.
func zonesOf(nodes []protocol.NodeSpec) []string {
	var out []string
	for _, n := range nodes {
		if z := n.ID.DC() + "/" + n.Zone; n.Zone != "" && !slices.Contains(out, z) {
			out = append(out, z)
		}
	}
	slices.Sort(out)
	return out
}

func sortSchedule(s Schedule) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].At < s[j-1].At; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// RandomZones draws what Random draws from rng and then adds faults of
// the availability zones of nodes (for protocols that split a DC into a
// front and a back zone, as Karma does, karma.txt §4.4): crashes and
// restarts of a zone, and partitions between two zones. The zones are the
// nodes' own (NodeSpec.Zone); with none, it adds nothing to Random's. All
// are over by 70% of the duration, like Random's.
func RandomZones(rng *rand.Rand, t *topology.Topology, nodes []protocol.NodeSpec, duration time.Duration) Schedule {
	s := Random(rng, t, nodes, duration)
	zones := zonesOf(nodes)
	if len(zones) == 0 {
		return s
	}
	s = s[:len(s)-1] // Random's final heal, added again below
	end := duration * 7 / 10
	zone := func() string { return zones[rng.IntN(len(zones))] }
	for i, n := 0, 1+rng.IntN(3); i < n; i++ {
		start := time.Duration((0.05 + rng.Float64()*0.55) * float64(end))
		stop := min(end, start+time.Duration((0.05+rng.Float64()*0.3)*float64(end)))
		if rng.IntN(2) == 0 {
			z := "zone:" + zone()
			s = append(s, Event{At: start, Crash: z}, Event{At: stop, Restart: z})
			continue
		}
		a, b := zone(), zone()
		if a == b {
			continue
		}
		s = append(s, Event{At: start, Partition: [][]string{{a}, {b}}}, Event{At: stop, Heal: "partitions"})
	}
	s = append(s, Event{At: end, Heal: "all"})
	sortSchedule(s)
	return s
}
