package nemesis

import (
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
	_ "github.com/causeway/causeway/protocol/all"
	"github.com/causeway/causeway/topology"
)

// testConfig plans a cluster of protocol on local3 (nothing is started).
func testConfig(t testing.TB, protocol string) *cluster.Config {
	t.Helper()
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cluster.Plan(topo, protocol, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestParseOrdersEventsAndResolvesTargets(t *testing.T) {
	cfg := testConfig(t, "karma")
	s, err := Parse([]byte(`
- {at: 3s, restart: "node:a/s0"}
- {at: 1s, kill: "node:a/s0"}
- {at: 2s, pause: "zone:b/front"}
- {at: 2s, partition: {dc: c, direction: out}}
- {at: 2500ms, delay: {dc: a, peers: [b], add_ms: 200}}
- {at: 4s, clock_skew: {target: "dc:c", ms: -1500}}
- {at: 5s, heal: all}
`), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for _, e := range s {
		got = append(got, e.At)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 2 * time.Second, 2500 * time.Millisecond, 3 * time.Second, 4 * time.Second, 5 * time.Second}
	if len(got) != len(want) {
		t.Fatalf("events at %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events at %v, want %v", got, want)
		}
	}
	if s[1].Pause == "" || s[2].Partition == nil {
		t.Errorf("equal times must keep file order: %v, %v", s[1], s[2])
	}
	if s.End() != 5*time.Second {
		t.Errorf("End() = %v, want 5s", s.End())
	}
	front, err := Nodes("zone:b/front", cfg)
	if err != nil || len(front) == 0 {
		t.Fatalf("zone:b/front names %v (%v), want karma's front-end nodes of b", front, err)
	}
	for _, id := range front {
		if !strings.HasPrefix(id, "b/") || strings.Contains(id, "/s") {
			t.Errorf("zone:b/front names %s, not a front-end node of b", id)
		}
	}
}

func TestParseRefusesBadSchedules(t *testing.T) {
	cfg := testConfig(t, "cops")
	for _, tc := range []struct{ yaml, want string }{
		{`- {at: 1s}`, "exactly one action"},
		{`- {at: 1s, kill: "node:a/s0", pause: "node:a/s1"}`, "found 2"},
		{`- {at: -1s, kill: "node:a/s0"}`, "negative"},
		{`- {at: 1s, kill: "node:x/s0"}`, "unknown datacenter"},
		{`- {at: 1s, kill: "node:a/cc0"}`, "names no node"},
		{`- {at: 1s, kill: "a/s0"}`, "want dc:NAME"},
		{`- {at: 1s, partition: {dc: z}}`, "unknown datacenter"},
		{`- {at: 1s, partition: {dc: a, peers: [a]}}`, "cut from itself"},
		{`- {at: 1s, partition: {dc: a, direction: sideways}}`, "direction"},
		{`- {at: 1s, delay: {dc: a, add_ms: -5}}`, "delay.add_ms"},
		{`- {at: 1s, heal: everything}`, "heal"},
		{`- {at: 1s, clock_skew: {target: "dc:a", ms: 3600001}}`, "clock_skew.ms"},
		{`- {at: 1s, crash: "node:a/s0"}`, "invalid YAML"},
		{`- {at: 1s, kill: "node:a/s0"}` + "\n---\n- {at: 2s, heal: all}", "invalid YAML"},
	} {
		_, err := Parse([]byte(tc.yaml), cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.yaml, err, tc.want)
		}
	}
	if _, err := Parse([]byte(`- {at: 1s, heal: all}`), nil); err == nil {
		t.Error("Parse without a cluster succeeded")
	}
}

func TestEveryShippedScheduleParses(t *testing.T) {
	for _, proto := range []string{"cops", "karma"} {
		cfg := testConfig(t, proto)
		if _, err := Parse([]byte(DefaultSchedule), cfg); err != nil {
			t.Errorf("DefaultSchedule on %s: %v", proto, err)
		}
	}
}

func TestEventStringIsAScheduleLine(t *testing.T) {
	cfg := testConfig(t, "cops")
	s, err := Parse([]byte(`- {at: 14s, partition: {dc: a, peers: [b], direction: out}}`), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s[0].String(), "{at: 14s, partition: {dc: a, peers: [b], direction: out}}"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	again, err := Parse([]byte("- "+s[0].String()), cfg)
	if err != nil || again[0].String() != s[0].String() {
		t.Fatalf("String() does not parse back: %v", err)
	}
}
