package topology

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPresetsLoad(t *testing.T) {
	want := map[string]int{"karma-aws8": 8, "k2-emulab6": 6, "c3-azure9": 9, "chainreaction-2dc": 2, "chainreaction-1dc": 1, "local3": 3}
	names := Presets()
	if len(names) != len(want) {
		t.Fatalf("presets %v, want %d of them", names, len(want))
	}
	for _, n := range names {
		topo, err := Preset(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if got := len(topo.Datacenters); got != want[n] {
			t.Errorf("%s: %d DCs, want %d", n, got, want[n])
		}
		if topo.Source == "" {
			t.Errorf("%s: no source cited", n)
		}
	}
}

func TestKarmaAWS8MatchesPaper(t *testing.T) {
	topo, err := Preset("karma-aws8")
	if err != nil {
		t.Fatal(err)
	}
	// karma.txt §5: US-West1's RTTs.
	paper := map[string]time.Duration{"us-east": 86, "us-west2": 23, "europe": 175, "singapore": 221, "tokyo": 143, "sydney": 198, "brazil": 205}
	for dc, ms := range paper {
		if got := topo.RTT("us-west1", dc); got != ms*time.Millisecond {
			t.Errorf("RTT us-west1-%s = %v, want %v", dc, got, ms*time.Millisecond)
		}
		if topo.RTT(dc, "us-west1") != topo.RTT("us-west1", dc) {
			t.Errorf("RTT not symmetric for %s", dc)
		}
	}
	if got := fmt.Sprint(topo.Rings()); got != "[[us-west1 us-west2 us-east europe] [singapore tokyo sydney] [brazil]]" {
		t.Errorf("rings %s", got)
	}
	for _, dc := range topo.DCNames() {
		if topo.Servers(dc) != 8 {
			t.Errorf("%s has %d servers, want 8", dc, topo.Servers(dc))
		}
	}
	if topo.RingOf("tokyo") != 1 || topo.RingOf("brazil") != 2 {
		t.Errorf("RingOf wrong")
	}
	if topo.OneWay("us-west1", "us-east") != 43*time.Millisecond {
		t.Errorf("one-way should be RTT/2")
	}
	if topo.RTT("tokyo", "tokyo") != 500*time.Microsecond {
		t.Errorf("intra-DC RTT default should be 0.5 ms, got %v", topo.RTT("tokyo", "tokyo"))
	}
}

func TestC3Azure9Tables(t *testing.T) {
	topo, err := Preset("c3-azure9")
	if err != nil {
		t.Fatal(err)
	}
	if got := topo.RTT("eastus", "canada"); got != 27*time.Millisecond {
		t.Errorf("eastus-canada %v", got)
	}
	if got := topo.RTT("japan", "eastus"); got != 154500*time.Microsecond {
		t.Errorf("japan-eastus %v, want the mean of 154 and 155", got)
	}
	if got := fmt.Sprint(topo.Placement.Partitions["japan"]); got != "[japan asia australia india europe]" {
		t.Errorf("partition japan = %s", got)
	}
	if got := fmt.Sprint(topo.PartitionsOf("india")); got != "[asia india japan westus]" {
		t.Errorf("PartitionsOf(india) = %s", got)
	}
}

func TestValidationErrors(t *testing.T) {
	base := `name: t
datacenters:
  - {name: a, servers: 1}
  - {name: b, servers: 1}
`
	cases := []struct{ name, yaml, want string }{
		{"missing pair", base + "rtt_ms: {}\n", "missing the pair a-b"},
		{"unknown dc in rtt", base + "rtt_ms: {a-b: 10, a-z: 3}\n", `"a-z" does not name two declared datacenters`},
		{"unknown dc in ring", base + "rtt_ms: {a-b: 10}\nplacement: {rings: [[a, x]]}\n", `rings[0]: unknown datacenter "x"`},
		{"dc in two rings", base + "rtt_ms: {a-b: 10}\nplacement: {rings: [[a], [a, b]]}\n", `"a" is already in ring 0`},
		{"duplicate dc", "name: t\ndatacenters: [{name: a, servers: 1}, {name: a, servers: 1}]\n", `"a" is declared twice`},
		{"no servers", "name: t\ndatacenters: [{name: a}]\n", "servers must be at least 1"},
		{"negative rtt", base + "rtt_ms: {a-b: -1}\n", "must be positive"},
		{"pair twice", base + "rtt_ms: {a-b: 1, b-a: 2}\n", "give the same pair twice"},
		{"rf too big", base + "rtt_ms: {a-b: 1}\nplacement: {replication_factor: 3}\n", "replication_factor: 3"},
		{"partition unknown dc", base + "rtt_ms: {a-b: 1}\nplacement: {partitions: {p: [a, q]}}\n", `partitions.p: unknown datacenter "q"`},
		{"unknown field", base + "rtt_ms: {a-b: 1}\nrtts: {}\n", "field rtts not found"},
		{"not yaml", "{{{", "invalid YAML"},
		{"no name", "datacenters: [{name: a, servers: 1}]\n", "name: missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	for _, n := range Presets() {
		a, _ := Preset(n)
		data, err := a.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: re-parse: %v\n%s", n, err, data)
		}
		if a.Describe() != b.Describe() || fmt.Sprint(a.RTTms) != fmt.Sprint(b.RTTms) {
			t.Errorf("%s: round trip changed the topology", n)
		}
	}
}

func TestPlacementDeterministicAndBalanced(t *testing.T) {
	topo, _ := Preset("karma-aws8")
	again, _ := Preset("karma-aws8")
	perServer := map[string]int{}
	perDC := map[string]int{}
	const keys = 20000
	for i := 0; i < keys; i++ {
		k := fmt.Sprintf("user%06d", i)
		dc, s := topo.RingReplica(0, k)
		dc2, s2 := again.RingReplica(0, k)
		if dc != dc2 || s != s2 {
			t.Fatalf("placement of %s not deterministic", k)
		}
		if topo.RingOf(dc) != 0 {
			t.Fatalf("ring 0 placed %s in %s", k, dc)
		}
		perServer[fmt.Sprint(dc, s)]++
		perDC[dc]++
		if idx := topo.ServerIndex("tokyo", k); idx < 0 || idx >= 8 {
			t.Fatalf("ServerIndex %d", idx)
		}
	}
	if len(perServer) != 32 {
		t.Fatalf("ring 0 uses %d servers, want 32", len(perServer))
	}
	for srv, n := range perServer {
		// 64 virtual points per server keep each within ±50% of the mean.
		if mean := keys / 32; n < mean/2 || n > mean*3/2 {
			t.Errorf("server %s holds %d keys, mean %d", srv, n, mean)
		}
	}
}

func TestReplicaDCs(t *testing.T) {
	topo, _ := Preset("k2-emulab6")
	counts := map[string]int{}
	for i := 0; i < 6000; i++ {
		dcs := topo.ReplicaDCs(fmt.Sprint("k", i), 2)
		if len(dcs) != 2 || dcs[0] == dcs[1] {
			t.Fatalf("ReplicaDCs = %v", dcs)
		}
		counts[dcs[0]]++
	}
	if len(counts) != 6 {
		t.Errorf("primaries spread over %d DCs, want 6", len(counts))
	}
	if got := topo.ReplicaDCs("x", 0); len(got) != 6 {
		t.Errorf("f=0 should mean every DC, got %v", got)
	}
}

func TestNearest(t *testing.T) {
	topo, _ := Preset("local3")
	cases := []struct {
		from  string
		among []string
		want  string
	}{
		{"a", []string{"b", "c"}, "b"},
		{"c", []string{"a", "b"}, "b"},
		{"c", []string{"a", "b", "c"}, "c"},
		{"a", nil, ""},
	}
	for _, c := range cases {
		if got := topo.Nearest(c.from, c.among); got != c.want {
			t.Errorf("Nearest(%s, %v) = %q, want %q", c.from, c.among, got, c.want)
		}
	}
}
