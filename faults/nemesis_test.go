package faults

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"gopkg.in/yaml.v3"
)

// nemesisSeeds is how many seeds the nemesis property tests draw: no
// simulation, so a few hundred cost milliseconds.
const nemesisSeeds = 300

// TestNemesesAreDeterministicValidAndHeal: for every nemesis, topology
// and node set, over a few hundred seeds: the same seed draws the same
// schedule; the schedule (of the first 50 seeds) survives a YAML round
// trip through Parse (so a saved schedule replays it); it is in time
// order, inside the faulty part of the run, and ends healed at HealedBy
// (heal: all, which restarts every crashed node, and every skewed clock
// set back to 0) so that convergence and availability after it can be
// judged.
func TestNemesesAreDeterministicValidAndHeal(t *testing.T) {
	const d = 10 * time.Second
	end := HealedBy(d)
	for _, topo := range []string{"local3", "karma-aws8"} {
		tp := preset(t, topo)
		for nodesName, nodes := range map[string][]protocol.NodeSpec{"storage": storageNodes(tp), "karma": karmaNodes(tp)} {
			for _, n := range Nemeses() {
				for seed := uint64(1); seed <= nemesisSeeds; seed++ {
					where := func() string { return fmt.Sprintf("%s/%s/%s seed %d", topo, nodesName, n.Name, seed) }
					a := n.Draw(rand.New(rand.NewPCG(seed, 7)), tp, nodes, d)
					b := n.Draw(rand.New(rand.NewPCG(seed, 7)), tp, nodes, d)
					if !reflect.DeepEqual(a, b) {
						t.Fatalf("%s: two draws differ", where())
					}
					checkHealed(t, where(), a, end)
					if seed > nemesisSeeds/6 {
						continue // the YAML round trip is most of the cost
					}
					data, err := yaml.Marshal(a)
					if err != nil {
						t.Fatal(err)
					}
					back, err := Parse(data, tp)
					if err != nil {
						t.Fatalf("%s: the schedule does not parse back: %v\n%s", where(), err, data)
					}
					if !reflect.DeepEqual(back, a) {
						t.Fatalf("%s: parsed back differently:\n%v\n%v", where(), back, a)
					}
				}
			}
		}
	}
}

// checkHealed checks that s is in order, over by end and healed then.
func checkHealed(t *testing.T, where string, s Schedule, end time.Duration) {
	t.Helper()
	healAll := -1
	for i, e := range s {
		if e.At < 0 || e.At > end || (i > 0 && e.At < s[i-1].At) {
			t.Fatalf("%s: event %d (%v) out of order or after %v", where, i, e, end)
		}
		if e.Heal == "all" {
			healAll = i
		}
		if e.Loss != nil && e.At+e.Loss.For > end || e.Delay != nil && e.At+e.Delay.For > end ||
			e.Duplicate != nil && e.At+e.Duplicate.For > end || e.Reorder != nil && e.At+e.Reorder.For > end {
			t.Errorf("%s: %v lasts past %v", where, e, end)
		}
	}
	if healAll < 0 || s[healAll].At != end {
		t.Fatalf("%s: no heal: all at %v: %v", where, end, s)
	}
	skew := map[string]float64{}
	for _, e := range s {
		if e.ClockSkew != nil {
			skew[e.ClockSkew.Target] = e.ClockSkew.Ms
		}
	}
	for tg, ms := range skew {
		if ms != 0 {
			t.Errorf("%s: %s's clock ends skewed by %gms", where, tg, ms)
		}
	}
	for _, e := range s[healAll+1:] {
		if KindOf(e) != KindClockSkew || e.ClockSkew.Ms != 0 {
			t.Errorf("%s: %v after the final heal", where, e)
		}
	}
}

// TestNemesesCoverEveryKindAndRole: over a few hundred seeds each nemesis
// uses exactly the fault kinds it declares (Kinds, plus heal), together
// they use every kind of the format, and the crash nemeses crash nodes of
// every role the protocol runs — storage servers, coordinators, caches —
// and only nodes, zones and DCs that exist.
func TestNemesesCoverEveryKindAndRole(t *testing.T) {
	tp := preset(t, "karma-aws8")
	nodes := karmaNodes(tp)
	role := map[string]protocol.Role{}
	zones := map[string]bool{}
	for _, n := range nodes {
		role["node:"+string(n.ID)] = n.Role
		zones["zone:"+n.ID.DC()+"/"+n.Zone] = true
	}
	all := map[Kind]bool{}
	crashed := map[protocol.Role]int{}
	for _, n := range Nemeses() {
		kinds := map[Kind]bool{}
		for seed := uint64(1); seed <= nemesisSeeds; seed++ {
			for _, e := range n.Draw(rand.New(rand.NewPCG(seed, 7)), tp, nodes, 10*time.Second) {
				k := KindOf(e)
				kinds[k], all[k] = true, true
				for _, tg := range []string{e.Crash, e.Restart} {
					switch {
					case strings.HasPrefix(tg, "node:"):
						r, ok := role[tg]
						if !ok {
							t.Fatalf("%s seed %d faults %s, which is not a node", n.Name, seed, tg)
						}
						if tg == e.Crash {
							crashed[r]++
						}
					case strings.HasPrefix(tg, "zone:") && !zones[tg]:
						t.Fatalf("%s seed %d faults %s, which holds no node", n.Name, seed, tg)
					}
				}
			}
		}
		want := append(slices.Clone(n.Kinds), KindHeal)
		for _, k := range want {
			if !kinds[k] {
				t.Errorf("%s: never drew a %s over %d seeds", n.Name, k, nemesisSeeds)
			}
		}
		for k := range kinds {
			if !slices.Contains(want, k) {
				t.Errorf("%s: drew a %s, which it does not declare", n.Name, k)
			}
		}
	}
	for _, k := range []Kind{KindPartition, KindPartitionOneway, KindCrash, KindRestart, KindClockSkew, KindLoss, KindDuplicate, KindReorder, KindDelay, KindHeal} {
		if !all[k] {
			t.Errorf("no nemesis draws a %s", k)
		}
	}
	total := crashed[protocol.RoleStorage] + crashed[protocol.RoleCoordinator] + crashed[protocol.RoleCache]
	for _, r := range []protocol.Role{protocol.RoleStorage, protocol.RoleCoordinator, protocol.RoleCache} {
		if crashed[r] < total/5 {
			t.Errorf("%d of %d node crashes hit a %s node, want about a third", crashed[r], total, r)
		}
	}
}

// TestNemesisShapes checks what each partition shape cuts, on karma-aws8
// (three rings), local3 and k2-emulab6 (no rings): isolate-dc cuts one DC from all
// the others; majority leaves a strict majority together; bridge leaves
// exactly one DC out of both groups; ring-split cuts whole rings apart or
// one ring in two; a nemesis that does not apply draws the final heal
// alone.
func TestNemesisShapes(t *testing.T) {
	aws := preset(t, "karma-aws8")
	local := preset(t, "local3")
	k2 := preset(t, "k2-emulab6")
	ringOf := func(dc string) int { return aws.RingOf(dc) }
	for seed := uint64(1); seed <= nemesisSeeds; seed++ {
		rng := func() *rand.Rand { return rand.New(rand.NewPCG(seed, 3)) }
		for _, name := range []string{"isolate-dc", "majority", "bridge", "ring-split"} {
			n, _ := LookupNemesis(name)
			for _, e := range n.Draw(rng(), aws, karmaNodes(aws), 10*time.Second) {
				if e.Partition == nil {
					continue
				}
				if len(e.Partition) != 2 {
					t.Fatalf("%s: %d groups", name, len(e.Partition))
				}
				a, b := e.Partition[0], e.Partition[1]
				switch name {
				case "isolate-dc":
					if len(a) != 1 || len(a)+len(b) != len(aws.DCNames()) {
						t.Errorf("isolate-dc: %v", e.Partition)
					}
				case "majority":
					if len(a) >= len(b) || len(a)+len(b) != len(aws.DCNames()) {
						t.Errorf("majority: %v", e.Partition)
					}
				case "bridge":
					if len(a)+len(b) != len(aws.DCNames())-1 {
						t.Errorf("bridge: %v leaves not exactly one DC out", e.Partition)
					}
				case "ring-split":
					ra, rb := ringOf(a[0]), ringOf(b[0])
					sameRing := true
					for _, dc := range append(slices.Clone(a), b...) {
						sameRing = sameRing && ringOf(dc) == ra
					}
					inter := len(a) == len(aws.Rings()[ra]) && len(b) == len(aws.Rings()[rb]) && ra != rb
					if !sameRing && !inter {
						t.Errorf("ring-split: %v is neither two whole rings nor one ring cut", e.Partition)
					}
				}
			}
		}
		ringSplit, _ := LookupNemesis("ring-split")
		if ringSplit.Applies(k2, storageNodes(k2)) {
			t.Fatal("ring-split applies to k2-emulab6, which has no rings")
		}
		if s := ringSplit.Draw(rng(), k2, storageNodes(k2), 10*time.Second); len(s) != 1 || s[0].Heal != "all" {
			t.Fatalf("ring-split on k2-emulab6 drew %v", s)
		}
	}
	for _, name := range []string{"zone-partition", "crash-zone"} {
		n, _ := LookupNemesis(name)
		if n.Applies(local, storageNodes(local)) || !n.Applies(local, karmaNodes(local)) {
			t.Errorf("%s applies without zones, or not with them", name)
		}
	}
	if _, err := LookupNemesis("nope"); err == nil || !strings.Contains(err.Error(), "isolate-dc") {
		t.Errorf("LookupNemesis(nope) = %v, want an error listing the catalogue", err)
	}
}
