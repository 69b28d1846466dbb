package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	fullreppb "github.com/causeway/causeway/wire/fullreppb"
)

// plantedCOPS is cops with a planted bug: its servers replicate writes
// without their dependencies, so a remote DC commits a write before what
// it depends on (COPS's dep_check, skipped). Torture must catch it.
type plantedCOPS struct{ protocol.Protocol }

func (p plantedCOPS) Name() string { return "cops-planted" }

func (p plantedCOPS) NewNode(cfg protocol.NodeConfig) protocol.Node {
	return plantedNode{p.Protocol.NewNode(cfg)}
}

// plantedNode strips the dependencies of every Replicate it sends; it
// passes the runtime's inspection and quiescence checks through.
type plantedNode struct{ protocol.Node }

func (n plantedNode) strip(r protocol.Ready) protocol.Ready {
	for i, m := range r.After.Messages {
		if rep, ok := m.Body.(*fullreppb.Replicate); ok && len(rep.PackedDeps) > 0 {
			c := proto.Clone(rep).(*fullreppb.Replicate)
			c.PackedDeps = nil
			r.After.Messages[i].Body = c
		}
	}
	return r
}

func (n plantedNode) Start(now time.Duration) protocol.Ready { return n.strip(n.Node.Start(now)) }
func (n plantedNode) Step(now time.Duration, m protocol.Message) protocol.Ready {
	return n.strip(n.Node.Step(now, m))
}
func (n plantedNode) Tick(now time.Duration, token uint64) protocol.Ready {
	return n.strip(n.Node.Tick(now, token))
}
func (n plantedNode) Replicas(fn func(key string, value []byte)) {
	n.Node.(protocol.Inspector).Replicas(fn)
}
func (n plantedNode) CheckQuiescent() error {
	if q, ok := n.Node.(protocol.Quiescer); ok {
		return q.CheckQuiescent()
	}
	return nil
}

// tortureSpec is a small campaign on local3: hot keys (50 records), two
// clients per DC, short runs.
func tortureSpec(t *testing.T, seeds int, protos ...protocol.Protocol) TortureSpec {
	base := smallSpec(t, "cops", "local3", 1, false)
	base.Duration = 2 * time.Second
	base.OpTimeout = time.Second
	return TortureSpec{Protocols: protos, Base: base, FirstSeed: 1, Seeds: seeds, ShrinkRuns: 20}
}

func lookupProto(t *testing.T, name string) protocol.Protocol {
	t.Helper()
	p, err := protocol.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTortureFindsPlantedBug: torture finds cops with its dependency
// check planted away, shrinks the failure, saves the shrunk schedule
// headed by its replay command, and that schedule, loaded back and run
// again, fails the same way.
func TestTortureFindsPlantedBug(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a dozen simulations and their shrinking; make test runs it without -race")
	}
	out := t.TempDir()
	ts := tortureSpec(t, 3, plantedCOPS{lookupProto(t, "cops")})
	ts.Out = out
	ts.Nemeses = nil // the whole catalogue
	rep, err := Torture(ts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || rep.Summary[0].Violations == 0 {
		t.Fatalf("torture did not catch the planted bug: %+v", rep.Summary)
	}
	for _, r := range rep.Runs {
		if !r.Failed {
			continue
		}
		if r.Checker != VerdictViolation || r.Replay == nil || r.Replay.File == "" {
			t.Fatalf("failed run %+v: want a violation, shrunk and saved", r)
		}
		if r.Replay.Events > r.Replay.FromEvents {
			t.Errorf("shrunk to %d events from %d", r.Replay.Events, r.Replay.FromEvents)
		}
		data, err := os.ReadFile(r.Replay.File)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "# replay: causeway sim --protocol cops-planted --topology local3") ||
			(r.Replay.Events > 0 && !strings.Contains(string(data), "--faults "+r.Replay.File)) {
			t.Errorf("saved replay %s:\n%s", r.Replay.File, data)
		}
		sched, err := faults.Load(r.Replay.File, ts.Base.Topology)
		if err != nil {
			t.Fatal(err)
		}
		spec := r.Replay.Spec
		if !reflect.DeepEqual(sched, spec.Faults) && (len(sched) != 0 || len(spec.Faults) != 0) {
			t.Fatalf("saved schedule differs from the shrunk one:\n%v\n%v", sched, spec.Faults)
		}
		spec.Faults = sched
		again, err := RunSim(spec)
		if err != nil {
			t.Fatal(err)
		}
		if v := judge(spec.Protocol, again); !v.failed() || again.Check.FirstViolation() != r.Replay.Failure {
			t.Errorf("the replay of %s seed %d: failed=%v, %q; shrink saw %q", r.Protocol, r.Seed, v.failed(), again.Check.FirstViolation(), r.Replay.Failure)
		}
		t.Logf("%s seed %d (%s) shrunk to %d events from %d: %s\n%s", r.Protocol, r.Seed, r.Nemesis, r.Replay.Events, r.Replay.FromEvents,
			oneLine(r.Replay.Failure), data)
	}
	if _, err := os.Stat(filepath.Join(out, "cops-planted-seed1.yaml")); err != nil && rep.Runs[0].Failed {
		t.Error(err)
	}
}

// TestTortureSmallRunPasses runs cops and karma over three seeds end to
// end: every run passes the checker and converges, the nemeses drawn are
// the catalogue's, and the report is the same with one worker or two.
func TestTortureSmallRunPasses(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a dozen simulations; make test runs it without -race")
	}
	ts := tortureSpec(t, 3, lookupProto(t, "cops"), lookupProto(t, "karma"))
	ts.Workers = 1
	one, err := Torture(ts)
	if err != nil {
		t.Fatal(err)
	}
	ts.Workers = 2
	two, err := Torture(ts)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(one)
	b, _ := json.Marshal(two)
	if string(a) != string(b) {
		t.Errorf("one worker and two give different reports:\n%s\n%s", a, b)
	}
	if !one.OK() || len(one.Runs) != 6 {
		t.Fatalf("report: %+v", one.Summary)
	}
	for _, r := range one.Runs {
		if r.Checker != VerdictPass || !r.Converged || r.Availability.Eligible == 0 || r.Ops == 0 {
			t.Errorf("%s seed %d (%s): checker %s, converged %v, availability %+v, %d ops", r.Protocol, r.Seed, r.Nemesis,
				r.Checker, r.Converged, r.Availability, r.Ops)
		}
		if _, err := faults.LookupNemesis(r.Nemesis); err != nil {
			t.Error(err)
		}
	}
	for _, s := range one.Summary {
		if s.Runs != 3 || s.Pass != 3 {
			t.Errorf("summary %+v", s)
		}
		runs, unavailable := 0, 0
		for _, nc := range s.ByNemesis {
			runs += nc.Runs
			unavailable += nc.Unavailable
		}
		if runs != s.Runs || unavailable != s.Unavailable {
			t.Errorf("%s: by nemesis %d runs, %d unavailable; summary %d, %d", s.Protocol, runs, unavailable, s.Runs, s.Unavailable)
		}
	}
	// An unavailable run is shrunk (never to more events) and saved.
	for _, r := range one.Runs {
		if r.Availability.OK() != (r.Replay == nil) {
			t.Errorf("%s seed %d: availability %+v, replay %+v", r.Protocol, r.Seed, r.Availability, r.Replay)
		}
		if r.Replay != nil && (r.Replay.Events > len(r.Faults) || !strings.Contains(r.Replay.Failure, "unavailable: ")) {
			t.Errorf("%s seed %d: replay %+v", r.Protocol, r.Seed, r.Replay)
		}
	}
}

// TestJudgeVerdicts: the checker verdict tells a violation of a claimed
// guarantee (failed) from eventual being caught (not failed); divergence
// and quiescence findings are convergence, not checker, failures.
func TestJudgeVerdicts(t *testing.T) {
	cops, eventual := lookupProto(t, "cops"), lookupProto(t, "eventual")
	yes, no := true, false
	stale := check.Violation{Rule: check.RuleStaleRead, Explanation: "c1 read x=null after x=c0-1"}
	div := check.Violation{Rule: check.RuleDivergence, Explanation: "x differs"}
	for _, tc := range []struct {
		name      string
		p         protocol.Protocol
		res       CheckResult
		checker   string
		converged bool
		failed    bool
	}{
		{"cops passes", cops, CheckResult{OK: true, Converged: &yes, Quiescent: &yes}, VerdictPass, true, false},
		{"cops stale read", cops, CheckResult{Violations: []check.Violation{stale}, Converged: &yes, Quiescent: &yes}, VerdictViolation, true, true},
		{"eventual caught", eventual, CheckResult{Violations: []check.Violation{stale}, Converged: &yes, Quiescent: &yes}, VerdictCaught, true, false},
		{"cops diverges", cops, CheckResult{Violations: []check.Violation{div}, Converged: &no, Quiescent: &yes}, VerdictPass, false, true},
		{"eventual diverges", eventual, CheckResult{Violations: []check.Violation{div}, Converged: &no, Quiescent: &yes}, VerdictPass, false, true},
		{"karma not quiescent", cops, CheckResult{Violations: []check.Violation{check.Quiescence("s0: wb not empty")}, Converged: &yes, Quiescent: &no}, VerdictPass, false, true},
	} {
		v := judge(tc.p, &Result{Check: tc.res})
		if v.checker != tc.checker || v.converged != tc.converged || v.failed() != tc.failed {
			t.Errorf("%s: checker %s, converged %v, failed %v; want %s, %v, %v", tc.name, v.checker, v.converged, v.failed(), tc.checker, tc.converged, tc.failed)
		}
		if tc.failed && v.first == "" {
			t.Errorf("%s: no first violation to report", tc.name)
		}
	}
}

// TestJudgeAvailability judges hand-made operations against hand-made
// schedules on local3 (DCs a, b, c): an operation counts when its
// client's DC and a replica of each key were reachable for its whole life
// and the grace after a fault; only then does its failure count.
func TestJudgeAvailability(t *testing.T) {
	tp := smallSpec(t, "cops", "local3", 1, false).Topology
	cops, karma := lookupProto(t, "cops"), lookupProto(t, "karma")
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	const grace = 100 * time.Millisecond
	get := func(dc string, from, to int, err protocol.ErrCode) DoneOp {
		return DoneOp{DC: dc, Op: protocol.OpGet, Keys: []string{"k"}, Err: err, Start: ms(from), End: ms(to)}
	}
	// A key whose karma replicas are all outside DC a (ring {a,b}'s in b).
	remoteKey := ""
	for _, k := range []string{"k", "k1", "k2", "k3", "k4", "k5", "k6", "k7"} {
		rs := karma.Replicas(tp, k)
		inA := false
		for _, r := range rs {
			inA = inA || r.DC() == "a"
		}
		if !inA {
			remoteKey = k
			break
		}
	}
	if remoteKey == "" {
		t.Fatal("no key with every karma replica outside a")
	}
	for _, tc := range []struct {
		name             string
		p                protocol.Protocol
		sched            string
		ops              []DoneOp
		eligible, failed int
	}{
		{"no faults: every failure counts", cops, `[]`,
			[]DoneOp{get("a", 0, 10, protocol.OK), get("a", 20, 1020, protocol.ErrTimeout), get("b", 0, 5, protocol.ErrUnavailable)}, 3, 2},
		{"unsupported is not a failure", cops, `[]`,
			[]DoneOp{{DC: "a", Op: protocol.OpReadTxn, Keys: []string{"k", "j"}, Err: protocol.ErrUnsupported, End: ms(1)}}, 1, 0},
		{"a crash in the client's DC excuses, until the grace is over", cops,
			`[{at: 100ms, crash: "node:a/s0"}, {at: 300ms, restart: "node:a/s0"}]`,
			[]DoneOp{get("a", 0, 99, protocol.ErrTimeout), get("a", 50, 150, protocol.ErrTimeout), get("a", 350, 360, protocol.ErrTimeout),
				get("a", 400, 410, protocol.ErrTimeout), get("b", 150, 160, protocol.ErrTimeout)}, 3, 3},
		{"cops: a partition leaves the local replica reachable", cops,
			`[{at: 0s, partition: [[a], [b, c]]}, {at: 1s, heal: partitions}]`,
			[]DoneOp{get("a", 10, 20, protocol.ErrTimeout), get("b", 10, 20, protocol.OK)}, 2, 1},
		{"karma: a cut from every replica excuses", karma,
			`[{at: 0s, partition: [[a], [b, c]]}, {at: 1s, heal: all}]`,
			[]DoneOp{{DC: "a", Op: protocol.OpGet, Keys: []string{remoteKey}, Err: protocol.ErrTimeout, Start: ms(10), End: ms(20)}}, 0, 0},
		{"karma: a zone cut inside the client's DC leaves another ring's replica", karma,
			`[{at: 0s, partition: [[b/front], [b/back]]}, {at: 1s, heal: all}]`,
			[]DoneOp{{DC: "b", Op: protocol.OpGet, Keys: []string{remoteKey}, Err: protocol.ErrTimeout, Start: ms(10), End: ms(20)}}, 1, 1},
		{"loss on the client's DC excuses; a clock skew does not", cops,
			`[{at: 0s, loss: {target: "dc:a", probability: 0.5, for: 1s}}, {at: 0s, clock_skew: {target: "dc:b", ms: 3000}}]`,
			[]DoneOp{get("a", 500, 600, protocol.ErrTimeout), get("a", 1200, 1300, protocol.ErrTimeout), get("b", 500, 600, protocol.ErrTimeout)}, 2, 2},
		{"a DC crash healed by heal: all", cops,
			`[{at: 0s, crash: "dc:c"}, {at: 2s, heal: all}]`,
			[]DoneOp{get("c", 1000, 1100, protocol.ErrTimeout), get("c", 2050, 2060, protocol.ErrTimeout), get("c", 2200, 2300, protocol.ErrTimeout)}, 1, 1},
	} {
		sched, err := faults.Parse([]byte(tc.sched), tp)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a := JudgeAvailability(tc.p, tp, sched, tc.ops, grace)
		if a.Eligible != tc.eligible || a.Failed != tc.failed || len(a.Examples) != min(tc.failed, maxAvailabilityExamples) {
			t.Errorf("%s: %+v, want %d eligible, %d failed", tc.name, a, tc.eligible, tc.failed)
		}
	}
}

// TestTortureStopsWhenInterrupted: a campaign whose context is done
// starts no run and says so; its report is empty, not made up.
func TestTortureStopsWhenInterrupted(t *testing.T) {
	ts := tortureSpec(t, 3, lookupProto(t, "cops"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ts.Context = ctx
	ts.Workers = 1
	rep, err := Torture(ts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || len(rep.Runs) != 0 || rep.Summary[0].Runs != 0 {
		t.Fatalf("interrupted report: %+v", rep)
	}
}
