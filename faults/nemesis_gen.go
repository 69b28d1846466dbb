package faults

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// gen is the state one Nemesis.Draw shares among its generators: the
// rng, what can be faulted, the schedule so far and the clocks skewed.
type gen struct {
	rng    *rand.Rand
	t      *topology.Topology
	dcs    []string
	byRole map[string][][]protocol.NodeID
	zones  []string
	end    time.Duration
	s      Schedule
	skewed []string // clock_skew targets, reset to 0 at the end
}

func newGen(rng *rand.Rand, t *topology.Topology, nodes []protocol.NodeSpec, duration time.Duration) *gen {
	return &gen{rng: rng, t: t, dcs: t.DCNames(), byRole: nodesByDCAndRole(nodes), zones: zonesOf(nodes), end: HealedBy(duration)}
}

// finish heals everything at the end, sets skewed clocks back to 0 and
// sorts the schedule.
func (g *gen) finish() Schedule {
	g.s = append(g.s, Event{At: g.end, Heal: "all"})
	slices.Sort(g.skewed)
	for _, tg := range g.skewed {
		g.s = append(g.s, Event{At: g.end, ClockSkew: &Skew{Target: tg, Ms: 0}})
	}
	sortSchedule(g.s)
	return g.s
}

// window draws when one fault starts and stops: it starts between 5% and
// 60% of the faulty part of the run and lasts 10% to 40% of it, over by
// its end.
func (g *gen) window() (start, stop time.Duration) {
	start = time.Duration((0.05 + g.rng.Float64()*0.55) * float64(g.end))
	stop = min(g.end, start+time.Duration((0.1+g.rng.Float64()*0.3)*float64(g.end)))
	return start, stop
}

// times is how many faults of its family a generator injects: one to three.
func (g *gen) times() int { return 1 + g.rng.IntN(3) }

func (g *gen) pick() string { return g.dcs[g.rng.IntN(len(g.dcs))] }

// shuffled returns the DCs in a random order.
func (g *gen) shuffled() []string {
	out := slices.Clone(g.dcs)
	g.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// atLeastDCs applies to topologies of at least n DCs.
func atLeastDCs(n int) func(*gen) bool {
	return func(g *gen) bool { return len(g.dcs) >= n }
}

// hasRings: two rings to cut apart, or one ring of two DCs to cut in two.
func (g *gen) hasRings() bool {
	rings := g.t.Rings()
	return len(rings) >= 2 || (len(rings) == 1 && len(rings[0]) >= 2)
}

func (g *gen) hasZones() bool { return len(g.zones) > 0 }

// partition cuts groups from each other during a window.
func (g *gen) partition(groups ...[]string) {
	start, stop := g.window()
	g.s = append(g.s, Event{At: start, Partition: groups}, Event{At: stop, Heal: "partitions"})
}

// crashRestart crashes target during a window and restarts it.
func (g *gen) crashRestart(target string) {
	start, stop := g.window()
	g.s = append(g.s, Event{At: start, Crash: target}, Event{At: stop, Restart: target})
}

func (g *gen) isolateDC() {
	for i, n := 0, g.times(); i < n; i++ {
		dc := g.pick()
		var rest []string
		for _, d := range g.dcs {
			if d != dc {
				rest = append(rest, d)
			}
		}
		if len(rest) == 0 {
			return
		}
		g.partition([]string{dc}, rest)
	}
}

// majority cuts a minority of one DC up to just under half of them.
func (g *gen) majority() {
	for i, n := 0, g.times(); i < n; i++ {
		dcs := g.shuffled()
		m := 1 + g.rng.IntN(max(1, (len(dcs)-1)/2))
		g.partition(dcs[:m], dcs[m:])
	}
}

// ringSplit cuts two rings apart (karma.txt §4.4 Claim 2, inter-ring) or
// one ring's DCs in two (intra-ring).
func (g *gen) ringSplit() {
	rings := g.t.Rings()
	var split [][]string // rings of at least two DCs
	for _, r := range rings {
		if len(r) >= 2 {
			split = append(split, r)
		}
	}
	for i, n := 0, g.times(); i < n; i++ {
		if len(rings) >= 2 && (len(split) == 0 || g.rng.IntN(2) == 0) {
			a := g.rng.IntN(len(rings))
			b := (a + 1 + g.rng.IntN(len(rings)-1)) % len(rings)
			g.partition(slices.Clone(rings[a]), slices.Clone(rings[b]))
			continue
		}
		r := slices.Clone(split[g.rng.IntN(len(split))])
		g.rng.Shuffle(len(r), func(i, j int) { r[i], r[j] = r[j], r[i] })
		m := 1 + g.rng.IntN(len(r)-1)
		g.partition(r[:m], r[m:])
	}
}

// bridge splits the DCs but one into two halves cut from each other; the
// bridge DC, in no group, still reaches both (Jepsen's bridge).
func (g *gen) bridge() {
	for i, n := 0, g.times(); i < n; i++ {
		dcs := g.shuffled()
		rest := dcs[1:]
		m := 1 + g.rng.IntN(len(rest)-1)
		g.partition(rest[:m], rest[m:])
	}
}

// oneway cuts the links from some DCs to others, not the way back.
func (g *gen) oneway() {
	for i, n := 0, g.times(); i < n; i++ {
		dcs := g.shuffled()
		m := 1 + g.rng.IntN(len(dcs)-1)
		to := dcs[m:]
		to = to[:1+g.rng.IntN(len(to))]
		start, stop := g.window()
		g.s = append(g.s, Event{At: start, PartitionOneway: &Oneway{From: dcs[:m], To: to}}, Event{At: stop, Heal: "partitions"})
	}
}

// zonePartition cuts one zone from another (of the same DC or another),
// both ways (karma.txt §4.4, Table 1's AZ partitions).
func (g *gen) zonePartition() {
	if len(g.zones) < 2 {
		return
	}
	for i, n := 0, g.times(); i < n; i++ {
		a := g.rng.IntN(len(g.zones))
		b := (a + 1 + g.rng.IntN(len(g.zones)-1)) % len(g.zones)
		g.partition([]string{g.zones[a]}, []string{g.zones[b]})
	}
}

// nodeTarget draws one node: a DC, then a role of its nodes, then a node
// of that role, so that every role is crashed as often as any other.
func (g *gen) nodeTarget() (string, bool) {
	roles := g.byRole[g.pick()]
	if len(roles) == 0 {
		return "", false
	}
	of := roles[g.rng.IntN(len(roles))]
	return "node:" + string(of[g.rng.IntN(len(of))]), true
}

func (g *gen) crashNode() {
	for i, n := 0, g.times(); i < n; i++ {
		if tg, ok := g.nodeTarget(); ok {
			g.crashRestart(tg)
		}
	}
}

func (g *gen) crashZone() {
	for i, n := 0, g.times(); i < n; i++ {
		g.crashRestart("zone:" + g.zones[g.rng.IntN(len(g.zones))])
	}
}

func (g *gen) crashDC() {
	for i, n := 0, g.times(); i < n; i++ {
		g.crashRestart("dc:" + g.pick())
	}
}

// restartLoop crashes one target (a node, a zone or a DC) three to six
// times in a window, each time down for a random part of its cycle and up
// for the rest: a node that keeps restarting before it has caught up.
func (g *gen) restartLoop() {
	var tg string
	switch c := g.rng.IntN(3); {
	case c == 1 && len(g.zones) > 0:
		tg = "zone:" + g.zones[g.rng.IntN(len(g.zones))]
	case c == 2:
		tg = "dc:" + g.pick()
	default:
		var ok bool
		if tg, ok = g.nodeTarget(); !ok {
			tg = "dc:" + g.pick()
		}
	}
	start := time.Duration((0.05 + g.rng.Float64()*0.3) * float64(g.end))
	cycles := 3 + g.rng.IntN(4)
	cycle := (g.end - start) / time.Duration(cycles)
	for i := 0; i < cycles; i++ {
		at := start + time.Duration(i)*cycle
		down := time.Duration((0.2 + g.rng.Float64()*0.6) * float64(cycle))
		g.s = append(g.s, Event{At: at, Crash: tg}, Event{At: at + down, Restart: tg})
	}
}

// clock skews the clocks of DCs or single nodes by up to ±5 s, then
// jumps them (forward or back) once or twice; the end sets them to 0.
func (g *gen) clock() {
	for i, n := 0, g.times(); i < n; i++ {
		tg := "dc:" + g.pick()
		if g.rng.IntN(2) == 0 {
			if node, ok := g.nodeTarget(); ok {
				tg = node
			}
		}
		if !slices.Contains(g.skewed, tg) {
			g.skewed = append(g.skewed, tg)
		}
		ms := func() float64 { return float64(g.rng.IntN(10001) - 5000) }
		at, _ := g.window()
		g.s = append(g.s, Event{At: at, ClockSkew: &Skew{Target: tg, Ms: ms()}})
		for j, jumps := 0, g.rng.IntN(3); j < jumps; j++ {
			at += time.Duration(g.rng.Float64() * float64(g.end-at))
			g.s = append(g.s, Event{At: at, ClockSkew: &Skew{Target: tg, Ms: ms()}})
		}
	}
}

// lossy drops (5–30%), duplicates (5–20%) and reorders (10–50%, by up to
// 50–300 ms) wide-area messages of DCs.
func (g *gen) lossy() {
	for i, n := 0, g.times(); i < n; i++ {
		start, stop := g.window()
		tg, span := "dc:"+g.pick(), stop-start
		switch g.rng.IntN(3) {
		case 0:
			g.s = append(g.s, Event{At: start, Loss: &Chance{Target: tg, Probability: 0.05 + g.rng.Float64()*0.25, For: span}})
		case 1:
			g.s = append(g.s, Event{At: start, Duplicate: &Chance{Target: tg, Probability: 0.05 + g.rng.Float64()*0.15, For: span}})
		default:
			g.s = append(g.s, Event{At: start, Reorder: &Reorder{Target: tg, Probability: 0.1 + g.rng.Float64()*0.4,
				MaxMs: float64(50 + g.rng.IntN(251)), For: span}})
		}
	}
}

// congestion delays every message to or from a DC by 50 ms to 2 s.
func (g *gen) congestion() {
	for i, n := 0, g.times(); i < n; i++ {
		start, stop := g.window()
		g.s = append(g.s, Event{At: start, Delay: &Delay{Target: "dc:" + g.pick(), AddMs: float64(50 + g.rng.IntN(1951)), For: stop - start}})
	}
}

// mix draws two to four distinct other nemeses that apply, together.
func (g *gen) mix() {
	var others []Nemesis
	for _, n := range catalogue {
		if n.Name != "mix" && (n.applies == nil || n.applies(g)) {
			others = append(others, n)
		}
	}
	g.rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	for _, n := range others[:min(len(others), 2+g.rng.IntN(3))] {
		n.draw(g)
	}
}
