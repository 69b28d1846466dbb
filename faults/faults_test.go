package faults

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

func preset(t *testing.T, name string) *topology.Topology {
	t.Helper()
	tp, err := topology.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// TestParseDesignExample parses an example schedule using every action.
func TestParseDesignExample(t *testing.T) {
	src := `
- {at: 10s, partition: [[us-west1, us-east], [europe]]}
- {at: 10s, partition_oneway: {from: [brazil], to: [tokyo]}}
- {at: 40s, heal: all}
- {at: 15s, crash: "zone:europe/back"}
- {at: 25s, restart: "zone:europe/back"}
- {at: 30s, delay: {target: "dc:europe", add_ms: 1200, for: 120s}}
- {at: 0s,  loss: {target: "dc:*", probability: 0.01, for: 60s}}
- {at: 0s,  clock_skew: {target: "node:tokyo/*", ms: 250}}
`
	s, err := Parse([]byte(src), preset(t, "karma-aws8"))
	if err != nil {
		t.Fatal(err)
	}
	var ats []time.Duration
	for _, e := range s {
		ats = append(ats, e.At)
	}
	want := []time.Duration{0, 0, 10 * time.Second, 10 * time.Second, 15 * time.Second, 25 * time.Second, 30 * time.Second, 40 * time.Second}
	if !reflect.DeepEqual(ats, want) {
		t.Errorf("event times %v, want sorted %v", ats, want)
	}
	if s[0].Loss == nil || s[0].Loss.Probability != 0.01 || s[0].Loss.For != time.Minute {
		t.Errorf("first event %+v, want the loss event (stable sort keeps file order at equal times)", s[0])
	}
	if d := s[6].Delay; d == nil || d.AddMs != 1200 || d.For != 120*time.Second || d.Target != "dc:europe" {
		t.Errorf("delay event parsed as %+v", s[6])
	}
}

// TestParseErrorsSayWhatAndWhere: every error names the event and the
// problem.
func TestParseErrorsSayWhatAndWhere(t *testing.T) {
	tp := preset(t, "local3")
	for _, tc := range []struct{ src, want string }{
		{`- {at: 1s, partition: [[a], [atlantis]]}`, `event 1 (at 1s): partition: unknown datacenter "atlantis"`},
		{`- {at: 1s, partition: [[a, b]]}`, "at least two groups"},
		{`- {at: 1s, heal: everything}`, `heal: "everything" is not one of all, partitions`},
		{`- {at: 1s}`, "exactly one action"},
		{`- {at: 1s, crash: "dc:a", restart: "dc:a"}`, "found 2"},
		{`- {at: 1s, crash: "planet:a"}`, "planet"},
		{`- {at: 1s, loss: {target: "dc:a", probability: 1.5}}`, "probability"},
		{`- {at: 1s, delay: {target: "dc:a", add_ms: 0}}`, "add_ms must be positive"},
		{`- {at: 1s, explode: "dc:a"}`, "explode"},
		{`- {at: -1s, heal: all}`, "negative"},
		{"- {at: 1s, heal: all}\n- {at: 2s, crash: dc:zz}", "event 2 (at 2s)"},
		{"not: a list", "faults:"},
	} {
		_, err := Parse([]byte(tc.src), tp)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.src, err, tc.want)
		}
	}
}

func TestTargetMatches(t *testing.T) {
	for _, tc := range []struct {
		target         string
		dc, zone, name string
		want           bool
	}{
		{"dc:a", "a", "", "s0", true},
		{"dc:a", "b", "", "s0", false},
		{"dc:*", "b", "", "s0", true},
		{"zone:europe/back", "europe", "back", "s1", true},
		{"zone:europe/back", "europe", "front", "cc0", false},
		{"node:tokyo/*", "tokyo", "", "s3", true},
		{"node:tokyo/s3", "tokyo", "", "s4", false},
	} {
		tg, err := ParseTarget(tc.target)
		if err != nil {
			t.Fatal(err)
		}
		if got := tg.Matches(tc.dc, tc.zone, tc.name); got != tc.want {
			t.Errorf("%s matches (%s, %s, %s) = %v, want %v", tc.target, tc.dc, tc.zone, tc.name, got, tc.want)
		}
	}
}

// storageNodes lists one storage server per server of each DC, without
// zones, as fullrep runs them.
func storageNodes(tp *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, d := range tp.Datacenters {
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, fmt.Sprint("s", i)), Role: protocol.RoleStorage})
		}
	}
	return out
}

// karmaNodes lists nodes as Karma runs them: per DC, storage servers in the
// back zone, as many coordinators and two caches in the front zone.
func karmaNodes(tp *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, d := range tp.Datacenters {
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, fmt.Sprint("s", i)), Role: protocol.RoleStorage, Zone: "back"},
				protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, fmt.Sprint("cc", i)), Role: protocol.RoleCoordinator, Zone: "front"})
		}
		for i := 0; i < 2; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, fmt.Sprint("cache", i)), Role: protocol.RoleCache, Zone: "front"})
		}
	}
	return out
}

// TestRandomIsDeterministicValidAndHeals: the same seed draws the same
// schedule; every schedule validates, stays inside the run and ends with
// everything healed (so the convergence check after a run is meaningful).
func TestRandomIsDeterministicValidAndHeals(t *testing.T) {
	for _, draw := range []func(*rand.Rand, *topology.Topology, []protocol.NodeSpec, time.Duration) Schedule{Random, RandomZones} {
		for _, nodes := range []func(*topology.Topology) []protocol.NodeSpec{storageNodes, karmaNodes} {
			testRandom(t, draw, nodes)
		}
	}
	// RandomZones adds zone faults to what Random draws.
	zoneFaults := 0
	for seed := uint64(1); seed <= 30; seed++ {
		tp := preset(t, "karma-aws8")
		for _, e := range RandomZones(rand.New(rand.NewPCG(seed, 1)), tp, karmaNodes(tp), 10*time.Second) {
			if strings.HasPrefix(e.Crash, "zone:") || len(e.Partition) == 2 && strings.Contains(e.Partition[0][0], "/") {
				zoneFaults++
			}
		}
	}
	if zoneFaults < 30 {
		t.Errorf("RandomZones drew %d zone faults over 30 seeds, want at least one per seed", zoneFaults)
	}
}

// TestRandomCrashesEveryRole: single-node crashes hit nodes of every role
// (not only storage servers), about evenly across roles although a DC has
// four times as many servers as caches, and only nodes that exist.
func TestRandomCrashesEveryRole(t *testing.T) {
	tp := preset(t, "karma-aws8")
	nodes := karmaNodes(tp)
	role := map[string]protocol.Role{}
	for _, n := range nodes {
		role["node:"+string(n.ID)] = n.Role
	}
	crashes := map[protocol.Role]int{}
	for seed := uint64(1); seed <= 300; seed++ {
		for _, e := range Random(rand.New(rand.NewPCG(seed, 1)), tp, nodes, 10*time.Second) {
			if !strings.HasPrefix(e.Crash, "node:") {
				continue
			}
			r, ok := role[e.Crash]
			if !ok {
				t.Fatalf("seed %d crashes %s, which is not a node", seed, e.Crash)
			}
			crashes[r]++
		}
	}
	total := crashes[protocol.RoleStorage] + crashes[protocol.RoleCoordinator] + crashes[protocol.RoleCache]
	for _, r := range []protocol.Role{protocol.RoleStorage, protocol.RoleCoordinator, protocol.RoleCache} {
		if crashes[r] < total/5 {
			t.Errorf("%d of %d node crashes hit a %s node, want about a third", crashes[r], total, r)
		}
	}
}

// TestRandomZonesOnlyNodesZones: zone faults name only zones some node is
// in, and a protocol without zones gets none.
func TestRandomZonesOnlyNodesZones(t *testing.T) {
	tp := preset(t, "local3")
	nodes := karmaNodes(tp)
	for i := range nodes {
		if nodes[i].ID.DC() != "a" {
			nodes[i].Zone = ""
		}
	}
	for seed := uint64(1); seed <= 50; seed++ {
		for _, e := range RandomZones(rand.New(rand.NewPCG(seed, 1)), tp, nodes, 10*time.Second) {
			if z, ok := strings.CutPrefix(e.Crash, "zone:"); ok && !strings.HasPrefix(z, "a/") {
				t.Errorf("seed %d crashes zone %s, which holds no node", seed, z)
			}
			if len(e.Partition) == 2 && strings.Contains(e.Partition[0][0], "/") && (!strings.HasPrefix(e.Partition[0][0], "a/") || !strings.HasPrefix(e.Partition[1][0], "a/")) {
				t.Errorf("seed %d partitions %v, zones that hold no node", seed, e.Partition)
			}
		}
		flat := storageNodes(tp)
		a := RandomZones(rand.New(rand.NewPCG(seed, 1)), tp, flat, 10*time.Second)
		b := Random(rand.New(rand.NewPCG(seed, 1)), tp, flat, 10*time.Second)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("seed %d: RandomZones without zones drew more than Random:\n%v\n%v", seed, a, b)
		}
	}
}

func testRandom(t *testing.T, draw func(*rand.Rand, *topology.Topology, []protocol.NodeSpec, time.Duration) Schedule, nodes func(*topology.Topology) []protocol.NodeSpec) {
	t.Helper()
	for _, name := range []string{"local3", "karma-aws8"} {
		tp := preset(t, name)
		for seed := uint64(1); seed <= 30; seed++ {
			a := draw(rand.New(rand.NewPCG(seed, 1)), tp, nodes(tp), 10*time.Second)
			b := draw(rand.New(rand.NewPCG(seed, 1)), tp, nodes(tp), 10*time.Second)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s seed %d: two draws differ", name, seed)
			}
			if len(a) == 0 || a[len(a)-1].Heal != "all" {
				t.Fatalf("%s seed %d: schedule does not end with heal: all: %v", name, seed, a)
			}
			for i, e := range a {
				if err := e.validate(tp); err != nil {
					t.Errorf("%s seed %d event %d (%v): %v", name, seed, i, e, err)
				}
				if e.At < 0 || e.At > 10*time.Second || (i > 0 && e.At < a[i-1].At) {
					t.Errorf("%s seed %d: event %d at %v out of order or outside the run", name, seed, i, e.At)
				}
			}
		}
	}
}
