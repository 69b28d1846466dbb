package bench

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
)

// deafCOPS is cops with a planted availability bug: a server that has
// been restarted (incarnation 2 on) ignores every message from a client
// session, while it goes on replicating with the other servers. Its
// clients time out although the server is up and reachable: unavailable,
// yet causal+ and convergent, so only the availability verdict sees it.
type deafCOPS struct{ protocol.Protocol }

func (p deafCOPS) Name() string { return "cops-deaf" }

func (p deafCOPS) NewNode(cfg protocol.NodeConfig) protocol.Node {
	n := p.Protocol.NewNode(cfg)
	if cfg.Incarnation <= 1 {
		return n
	}
	servers := map[protocol.NodeID]bool{}
	for _, s := range p.Nodes(cfg.Topology) {
		servers[s.ID] = true
	}
	return deafNode{Node: n, servers: servers}
}

// deafNode drops client messages; it passes the runtime's inspection and
// quiescence checks through.
type deafNode struct {
	protocol.Node
	servers map[protocol.NodeID]bool
}

func (n deafNode) Step(now time.Duration, m protocol.Message) protocol.Ready {
	if !n.servers[m.From] {
		return protocol.Ready{}
	}
	return n.Node.Step(now, m)
}
func (n deafNode) Replicas(fn func(key string, value []byte)) {
	n.Node.(protocol.Inspector).Replicas(fn)
}
func (n deafNode) CheckQuiescent() error {
	if q, ok := n.Node.(protocol.Quiescer); ok {
		return q.CheckQuiescent()
	}
	return nil
}

// availabilityOf runs spec and judges its availability.
func availabilityOf(t *testing.T, spec SimSpec) (Availability, *Result) {
	t.Helper()
	var ops []DoneOp
	spec.OnDone = func(dc string, req protocol.Request, rep protocol.Reply, start, end time.Duration) {
		ops = append(ops, doneOp(dc, req, rep, start, end))
	}
	res, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	return JudgeAvailability(spec.Protocol, spec.Topology, spec.Faults, ops, availabilityGrace(spec)), res
}

// TestShrinkUnavailableKeepsTheRestart: a run of deafCOPS under a
// schedule of many faults, one of them a crash and restart of a storage
// server, is unavailable (and passes the checker and converges); shrunk
// with the availability verdict as its predicate, only the crash and its
// restart remain, the shrunk run is still unavailable when run again, and
// cops itself is available under it.
func TestShrinkUnavailableKeepsTheRestart(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a few dozen simulations; make test runs it without -race")
	}
	spec := smallSpec(t, "cops", "local3", 1, false)
	spec.Protocol = deafCOPS{spec.Protocol}
	spec.Duration, spec.OpTimeout = 4*time.Second, time.Second
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	restart := []faults.Event{{At: ms(400), Crash: "node:a/s0"}, {At: ms(700), Restart: "node:a/s0"}}
	spec.Faults = faults.Schedule{
		{At: ms(100), ClockSkew: &faults.Skew{Target: "dc:b", Ms: 300}},
		{At: ms(200), Partition: [][]string{{"c"}, {"a", "b"}}},
		restart[0],
		{At: ms(500), Heal: "partitions"},
		restart[1],
		{At: ms(900), Partition: [][]string{{"b"}, {"a", "c"}}},
		{At: ms(1000), Heal: "partitions"},
		{At: ms(1100), ClockSkew: &faults.Skew{Target: "node:c/*", Ms: -200}},
		{At: ms(1200), Heal: "all"},
	}
	before, res := availabilityOf(t, spec)
	if before.OK() || !res.Check.OK || judge(spec.Protocol, res).failed() {
		t.Fatalf("the planted run: availability %+v, checker %v; want unavailable, causal+ and converged", before, res.Check.OK)
	}
	got, a, err := ShrinkUnavailable(spec, availabilityGrace(spec), 40)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Spec
	t.Logf("shrunk in %d runs to %d events (from %d), %v, %d clients: %s\n%v", got.Runs, len(s.Faults), len(spec.Faults),
		s.Duration, s.Clients, unavailable(a), s.Faults)
	if !reflect.DeepEqual([]faults.Event(s.Faults), restart) {
		t.Errorf("shrunk schedule %v, want only the crash and restart %v", s.Faults, restart)
	}
	if a.OK() || !strings.Contains(a.Examples[0], "client in a") {
		t.Errorf("the shrunk run's availability %+v: want operations in a failed", a)
	}
	again, _ := availabilityOf(t, s)
	if !reflect.DeepEqual(again, a) {
		t.Errorf("the shrunk run again: %+v; shrink saw %+v", again, a)
	}
	s.Protocol = lookupProto(t, "cops")
	if ok, _ := availabilityOf(t, s); !ok.OK() {
		t.Errorf("cops under the shrunk schedule: %+v; want available", ok)
	}
	spec.Protocol = lookupProto(t, "cops")
	if _, _, err := ShrinkUnavailable(spec, availabilityGrace(spec), 5); err == nil || !strings.Contains(err.Error(), "does not fail") {
		t.Errorf("shrinking an available run: %v, want an error", err)
	}
}

// TestTortureShrinksUnavailableRuns: torture's unavailable runs (deafCOPS
// with single nodes crashed and restarted) are saved with the run's
// unavailability and the command that replays it: as they ran by
// default, and shrunk like failed ones with ShrinkUnavailable
// (--shrink-unavailable).
func TestTortureShrinksUnavailableRuns(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a few dozen simulations; make test runs it without -race")
	}
	n, err := faults.LookupNemesis("crash-node")
	if err != nil {
		t.Fatal(err)
	}
	for _, shrink := range []bool{false, true} {
		t.Run(fmt.Sprintf("shrink=%v", shrink), func(t *testing.T) {
			ts := tortureSpec(t, 1, deafCOPS{lookupProto(t, "cops")})
			ts.Base.Duration = 8 * time.Second // the grace after a restart is 2 s
			ts.Nemeses = []faults.Nemesis{n}
			ts.Out = t.TempDir()
			ts.ShrinkUnavailable = shrink
			rep, err := Torture(ts)
			if err != nil {
				t.Fatal(err)
			}
			saved := 0
			for _, r := range rep.Runs {
				if r.Failed || r.Availability.OK() {
					t.Logf("%s seed %d: failed %v, availability %+v, %v", r.Protocol, r.Seed, r.Failed, r.Availability, r.Faults)
					continue
				}
				rp := r.Replay
				if rp == nil || rp.File == "" || !strings.HasPrefix(rp.Failure, "unavailable: ") {
					t.Fatalf("seed %d unavailable (%+v): replay %+v, want saved", r.Seed, r.Availability, rp)
				}
				data, err := os.ReadFile(rp.File)
				if err != nil {
					t.Fatal(err)
				}
				if !shrink {
					if rp.Events != rp.FromEvents || !strings.Contains(string(data), "as it ran (not shrunk)") {
						t.Errorf("seed %d saved %d events from %d without --shrink-unavailable:\n%s", r.Seed, rp.Events, rp.FromEvents, data)
					}
					if rp.Failure != unavailable(r.Availability) {
						t.Errorf("seed %d: saved %q, the run was %q", r.Seed, rp.Failure, unavailable(r.Availability))
					}
					saved++
					continue
				}
				if rp.Events >= rp.FromEvents || !strings.Contains(string(data), "shrunk in ") {
					t.Errorf("seed %d: %d events from %d:\n%s", r.Seed, rp.Events, rp.FromEvents, data)
					continue
				}
				again, _ := availabilityOf(t, rp.Spec)
				if again.OK() || unavailable(again) != rp.Failure {
					t.Errorf("seed %d: the shrunk replay's availability %+v; saved %q", r.Seed, again, rp.Failure)
				}
				saved++
				t.Logf("seed %d shrunk to %d events from %d:\n%s", r.Seed, rp.Events, rp.FromEvents, data)
			}
			if saved == 0 {
				t.Fatalf("no unavailable run saved: %+v", rep.Summary)
			}
		})
	}
}
