package bench

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/faults"
)

// TestFaultUnitsPairsFaultsWithTheirEnds checks the units Shrink keeps or
// drops together: a crash with the next restart of its target, a
// partition with the next heal of partitions, everything else (and the
// final heal: all) alone.
func TestFaultUnitsPairsFaultsWithTheirEnds(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	s := faults.Schedule{
		{At: 0, ClockSkew: &faults.Skew{Target: "dc:a", Ms: 5}},
		{At: ms(10), Crash: "dc:b"},
		{At: ms(20), Partition: [][]string{{"a"}, {"c"}}},
		{At: ms(30), Crash: "node:c/s0"},
		{At: ms(40), Restart: "dc:b"},
		{At: ms(50), Heal: "partitions"},
		{At: ms(60), Loss: &faults.Chance{Target: "dc:c", Probability: 0.1}},
		{At: ms(70), Heal: "all"},
	}
	got := FaultUnits(s)
	want := [][]faults.Event{{s[0]}, {s[1], s[4]}, {s[2], s[5]}, {s[3]}, {s[6]}, {s[7]}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("units:\n%v\nwant\n%v", got, want)
	}
	if back := joinUnits(got); !reflect.DeepEqual(back, s) {
		t.Errorf("joined back:\n%v\nwant\n%v", back, s)
	}
}

// TestShrinkKeepsWhatTheFailureNeeds plants a failure that needs one
// fault: eventual (which the checker catches) failing while a given
// fault (a partition, or a crash) is in its schedule. Shrink must reduce a
// random schedule of many events to that fault and its end alone, shorten the run and
// leave a spec that still fails when run again (the shrunk run is
// deterministic, so its replay reproduces it).
func TestShrinkKeepsWhatTheFailureNeeds(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a few dozen simulations; make test runs it without -race")
	}
	spec := smallSpec(t, "eventual", "local3", 2, true)
	var unit []faults.Event // the first fault with an end (crash or partition)
	for _, u := range FaultUnits(spec.Faults) {
		if len(u) == 2 {
			unit = u
			break
		}
	}
	if unit == nil || len(spec.Faults) < 6 {
		t.Fatalf("seed 2's schedule has no paired fault or few events: %v", spec.Faults)
	}
	crash := unit[0]
	fails := func(r *Result) bool {
		if r.Check.OK {
			return false
		}
		for _, e := range r.FaultSchedule {
			if reflect.DeepEqual(e, crash) {
				return true
			}
		}
		return false
	}
	orig, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Shrink(spec, fails, 40)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Spec
	t.Logf("shrunk in %d runs: %d events (from %d), %v (from %v), %d clients, %d ops (from %d)\nreplay: %s\n%v",
		got.Runs, len(s.Faults), len(spec.Faults), s.Duration, spec.Duration, s.Clients, got.Result.Ops, orig.Ops,
		ReplayCommand(s, "shrunk.yaml"), s.Faults)
	// The end of the fault may be dropped with the run's second half:
	// the run heals everything after its end anyway.
	if len(s.Faults) == 0 || !reflect.DeepEqual([]faults.Event(s.Faults), unit[:len(s.Faults)]) {
		t.Errorf("shrunk schedule %v, want only %v (the fault and its end, if the run lasts until then)", s.Faults, unit)
	}
	if got.Result.Ops >= orig.Ops || s.Duration > spec.Duration {
		t.Errorf("shrunk run: %d ops in %v, want fewer than the original's %d in %v", got.Result.Ops, s.Duration, orig.Ops, spec.Duration)
	}
	again, err := RunSim(s)
	if err != nil {
		t.Fatal(err)
	}
	if !fails(again) || again.Ops != got.Result.Ops || again.Check.Total != got.Result.Check.Total {
		t.Errorf("the shrunk spec run again: fails=%v, %d ops, %d violations; shrink saw %d ops, %d violations",
			fails(again), again.Ops, again.Check.Total, got.Result.Ops, got.Result.Check.Total)
	}
	if _, err := Shrink(smallSpec(t, "cops", "local3", 1, false), fails, 5); err == nil || !strings.Contains(err.Error(), "does not fail") {
		t.Errorf("shrinking a passing run: %v, want an error", err)
	}
}

// TestRandomizedFailureReplay checks what a randomized test prints when a
// seed fails (here eventual's, which the checker catches): a shrunk run
// and the command replaying it.
func TestRandomizedFailureReplay(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("shrinking runs a dozen simulations")
	}
	spec := smallSpec(t, "eventual", "local3", 2, true)
	spec.Duration = time.Second
	res, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Check.OK {
		t.Fatal("eventual passed: pick another seed")
	}
	got := replay(t, spec, res)
	if !strings.HasPrefix(got, "shrunk in ") || !strings.Contains(got, "replay: ") || !strings.Contains(got, "causeway sim --protocol eventual --topology local3") {
		t.Errorf("replay text:\n%s", got)
	}
	t.Log(got)
}
