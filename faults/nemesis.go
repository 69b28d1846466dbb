package faults

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// Kind names one fault action of the schedule format: the key an Event
// sets ("partition", "partition_oneway", "crash", "restart", "clock_skew",
// "loss", "duplicate", "reorder", "delay", "heal").
type Kind string

// The fault kinds, one per action of the format.
const (
	KindPartition       Kind = "partition"
	KindPartitionOneway Kind = "partition_oneway"
	KindCrash           Kind = "crash"
	KindRestart         Kind = "restart"
	KindClockSkew       Kind = "clock_skew"
	KindLoss            Kind = "loss"
	KindDuplicate       Kind = "duplicate"
	KindReorder         Kind = "reorder"
	KindDelay           Kind = "delay"
	KindHeal            Kind = "heal"
)

// KindOf returns the action an event sets.
func KindOf(e Event) Kind {
	switch {
	case e.Partition != nil:
		return KindPartition
	case e.PartitionOneway != nil:
		return KindPartitionOneway
	case e.Crash != "":
		return KindCrash
	case e.Restart != "":
		return KindRestart
	case e.ClockSkew != nil:
		return KindClockSkew
	case e.Loss != nil:
		return KindLoss
	case e.Duplicate != nil:
		return KindDuplicate
	case e.Reorder != nil:
		return KindReorder
	case e.Delay != nil:
		return KindDelay
	}
	return KindHeal
}

// HealedBy is the time by which every schedule a Nemesis draws for a run
// of the given duration is over: 70% of it, like Random's. At that time a
// nemesis schedule heals everything and sets every clock skew back to 0,
// so that the rest of the run, and the quiescence after it, judge
// convergence and availability of a healed system.
func HealedBy(duration time.Duration) time.Duration { return duration * 7 / 10 }

// Nemesis is one named generator of the nemesis catalogue (Nemeses): it
// draws a fault schedule of one family from a seeded rng, over a
// protocol's own nodes (every role, NodeSpec) and the topology's DCs,
// zones and rings. Every schedule it draws is over by HealedBy(duration):
// it ends with heal: all at that time, clock skews set back to 0.
type Nemesis struct {
	// Name is the catalogue name (causeway torture --nemesis NAME).
	Name string
	// Summary says in one line what it injects.
	Summary string
	// Kinds are the fault kinds its schedules use (heal aside).
	Kinds []Kind
	// applies says whether the nemesis has anything to fault on this
	// topology and protocol (rings, zones); nil: always.
	applies func(g *gen) bool
	// draw appends the nemesis's faults to g.s, each within g's window.
	draw func(g *gen)
}

// Applies reports whether the nemesis can fault nodes of a protocol on t:
// ring-split needs a topology with at least two rings, the zone nemeses
// a protocol whose nodes have zones.
func (n Nemesis) Applies(t *topology.Topology, nodes []protocol.NodeSpec) bool {
	if n.applies == nil {
		return true
	}
	return n.applies(newGen(nil, t, nodes, time.Second))
}

// Draw draws a schedule for a run of the given duration. The same rng
// state, topology and nodes (in the same order) draw the same schedule.
// The schedule is in time order, ends with heal: all at
// HealedBy(duration) and resets every clock it skewed to 0 then. A
// nemesis that does not apply (Applies) draws that final heal alone.
func (n Nemesis) Draw(rng *rand.Rand, t *topology.Topology, nodes []protocol.NodeSpec, duration time.Duration) Schedule {
	g := newGen(rng, t, nodes, duration)
	if n.applies == nil || n.applies(g) {
		n.draw(g)
	}
	return g.finish()
}

// Nemeses is the catalogue, in a fixed order: partitions of every shape,
// crashes of nodes, zones and DCs, restart loops, clock skew and jumps,
// lossy links and congestion, and "mix", two to four of the others
// together.
func Nemeses() []Nemesis { return slices.Clone(catalogue) }

// LookupNemesis returns the catalogue entry named name.
func LookupNemesis(name string) (Nemesis, error) {
	for _, n := range catalogue {
		if n.Name == name {
			return n, nil
		}
	}
	return Nemesis{}, fmt.Errorf("unknown nemesis %q (valid: %s)", name, strings.Join(NemesisNames(), ", "))
}

// NemesisNames lists the catalogue's names in order.
func NemesisNames() []string {
	out := make([]string, len(catalogue))
	for i, n := range catalogue {
		out[i] = n.Name
	}
	return out
}

var catalogue []Nemesis

func init() {
	catalogue = []Nemesis{
		{Name: "isolate-dc", Summary: "one DC cut off from every other, both ways, then healed",
			Kinds: []Kind{KindPartition}, draw: (*gen).isolateDC},
		{Name: "majority", Summary: "the DCs split into a majority and a minority",
			Kinds: []Kind{KindPartition}, applies: atLeastDCs(2), draw: (*gen).majority},
		{Name: "ring-split", Summary: "rings cut from each other (inter-ring), or one ring cut in two (intra-ring)",
			Kinds: []Kind{KindPartition}, applies: (*gen).hasRings, draw: (*gen).ringSplit},
		{Name: "bridge", Summary: "two halves that reach each other only through one bridge DC",
			Kinds: []Kind{KindPartition}, applies: atLeastDCs(3), draw: (*gen).bridge},
		{Name: "oneway", Summary: "links from some DCs to others cut in one direction only",
			Kinds: []Kind{KindPartitionOneway}, applies: atLeastDCs(2), draw: (*gen).oneway},
		{Name: "zone-partition", Summary: "availability zones (DC/front, DC/back) cut from each other, within or across DCs",
			Kinds: []Kind{KindPartition}, applies: (*gen).hasZones, draw: (*gen).zonePartition},
		{Name: "crash-node", Summary: "single nodes of every role crashed and restarted (unsynced writes lost)",
			Kinds: []Kind{KindCrash, KindRestart}, draw: (*gen).crashNode},
		{Name: "crash-zone", Summary: "a DC's front or back zone crashed and restarted",
			Kinds: []Kind{KindCrash, KindRestart}, applies: (*gen).hasZones, draw: (*gen).crashZone},
		{Name: "crash-dc", Summary: "every node of a DC crashed and restarted",
			Kinds: []Kind{KindCrash, KindRestart}, draw: (*gen).crashDC},
		{Name: "restart-loop", Summary: "a node, zone or DC crashed and restarted again and again, with short lives between",
			Kinds: []Kind{KindCrash, KindRestart}, draw: (*gen).restartLoop},
		{Name: "clock", Summary: "clocks skewed up to ±5 s, then jumped forward and back",
			Kinds: []Kind{KindClockSkew}, draw: (*gen).clock},
		{Name: "lossy", Summary: "message loss (up to 30%), duplication and reordering on DCs' links",
			Kinds: []Kind{KindLoss, KindDuplicate, KindReorder}, draw: (*gen).lossy},
		{Name: "congestion", Summary: "added delay of 50 ms to 2 s on DCs' links",
			Kinds: []Kind{KindDelay}, draw: (*gen).congestion},
	}
	catalogue = append(catalogue, Nemesis{Name: "mix", Summary: "two to four of the other nemeses at once",
		Kinds: allKinds(catalogue), draw: (*gen).mix})
}

func allKinds(ns []Nemesis) []Kind {
	var out []Kind
	for _, n := range ns {
		for _, k := range n.Kinds {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}
