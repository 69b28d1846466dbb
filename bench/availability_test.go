package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

func TestClassifyAvailability(t *testing.T) {
	for _, tc := range []struct {
		failed, eligible int
		want             AvailabilityClass
	}{
		{0, 0, ClassNoData},
		{0, 500, ClassAvailable},
		{1, 100, ClassDegraded},
		{2, 100, ClassUnavailable},
		{5, 1000, ClassDegraded},
		{500, 500, ClassUnavailable},
	} {
		if got := ClassifyAvailability(tc.failed, tc.eligible); got != tc.want {
			t.Errorf("ClassifyAvailability(%d, %d) = %s, want %s", tc.failed, tc.eligible, got, tc.want)
		}
	}
}

func local3(t *testing.T) *topology.Topology {
	t.Helper()
	tp, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// healed ends a schedule as every nemesis does.
func healed(es ...faults.Event) faults.Schedule {
	return append(faults.Schedule(es), faults.Event{At: 3 * time.Second, Heal: "all"})
}

// TestClaimCoverage checks which schedules fall in Karma's claims on
// local3 (rings [a b] and [c]).
func TestClaimCoverage(t *testing.T) {
	tp := local3(t)
	crash := func(tg string) faults.Event { return faults.Event{At: time.Second, Crash: tg} }
	part := func(g ...[]string) faults.Event { return faults.Event{At: time.Second, Partition: g} }
	for _, tc := range []struct {
		name                 string
		s                    faults.Schedule
		claim1, intra, inter bool
	}{
		{"back zones of one ring", healed(crash("zone:a/back"), crash("zone:b/back")), true, false, false},
		{"front and back", healed(crash("zone:a/back"), crash("zone:a/front")), false, false, false},
		{"back zones of two rings", healed(crash("zone:a/back"), crash("zone:c/back")), false, false, false},
		{"a DC", healed(crash("dc:a")), false, false, false},
		{"a node", healed(crash("node:a/s0")), false, false, false},
		{"ring from ring", healed(part([]string{"a", "b"}, []string{"c"})), false, false, true},
		{"zone across rings", healed(part([]string{"a/front"}, []string{"c/back"})), false, false, true},
		{"inside a ring", healed(part([]string{"a"}, []string{"b"})), false, true, false},
		{"zones of one DC", healed(part([]string{"a/front"}, []string{"a/back"})), false, true, false},
		{"isolate a", healed(part([]string{"a"}, []string{"b", "c"})), false, false, false},
		{"both kinds", healed(part([]string{"a"}, []string{"b"}), part([]string{"a", "b"}, []string{"c"})), false, false, false},
		{"partition and crash", healed(part([]string{"a"}, []string{"b"}), crash("zone:a/back")), false, false, false},
		{"nothing", healed(), false, false, false},
	} {
		r := TortureRun{Faults: tc.s}
		if got := zoneCrashesOneTypeOneRing(r, tp); got != tc.claim1 {
			t.Errorf("%s: Claim 1 covers = %v, want %v", tc.name, got, tc.claim1)
		}
		if got := intraRingPartition(r, tp); got != tc.intra {
			t.Errorf("%s: Claim 2 (1) covers = %v, want %v", tc.name, got, tc.intra)
		}
		if got := interRingPartition(r, tp); got != tc.inter {
			t.Errorf("%s: Claim 2 (2) covers = %v, want %v", tc.name, got, tc.inter)
		}
	}
}

// claimReport is a report of hand-made runs, one summary per protocol.
func claimReport(runs ...TortureRun) *TortureReport {
	rep := &TortureReport{Runs: runs}
	var seen []string
	for _, r := range runs {
		if !slices.Contains(seen, r.Protocol) {
			seen = append(seen, r.Protocol)
			rep.Summary = append(rep.Summary, TortureSummary{Protocol: r.Protocol})
		}
	}
	return rep
}

func findCheck(t *testing.T, cs []ClaimCheck, proto, source string) ClaimCheck {
	t.Helper()
	for _, c := range cs {
		if c.Protocol == proto && strings.Contains(c.Claim.Source, source) {
			return c
		}
	}
	t.Fatalf("no check of %s for %s", source, proto)
	return ClaimCheck{}
}

// TestCheckAvailabilityClaims: a Karma run unavailable under a back zone's
// crash contradicts Claim 1, COPS-PR available under a DC's crash
// contradicts its static binding, and runs a claim does not cover do not
// count.
func TestCheckAvailabilityClaims(t *testing.T) {
	tp := local3(t)
	back := healed(faults.Event{At: time.Second, Crash: "zone:b/back"})
	dc := healed(faults.Event{At: time.Second, Crash: "dc:b"})
	run := func(p, nemesis string, s faults.Schedule, failed, eligible int) TortureRun {
		return TortureRun{Protocol: p, Nemesis: nemesis, Faults: s, Availability: Availability{Failed: failed, Eligible: eligible}}
	}
	bad := CheckAvailabilityClaims(claimReport(
		run("karma", "crash-zone", back, 40, 400),
		run("karma", "crash-dc", dc, 300, 400), // not claimed
		run("cops-pr", "crash-dc", dc, 0, 400),
		run("cops", "isolate-dc", dc, 0, 400),
	), tp, AvailabilityClaims())
	if c := findCheck(t, bad, "karma", "Claim 1"); c.Holds || c.Runs != 1 || c.FailedOps != 40 || c.Class != ClassUnavailable {
		t.Errorf("karma, Claim 1: %+v, want contradicted by its one run", c)
	}
	if c := findCheck(t, bad, "karma", "Claim 2 (1)"); !c.Holds || c.Runs != 0 {
		t.Errorf("karma, Claim 2 (1): %+v, want no run covered", c)
	}
	if c := findCheck(t, bad, "cops-pr", "COPS-PR"); c.Holds {
		t.Errorf("cops-pr available under a DC's crash: %+v, want contradicted", c)
	}
	if c := findCheck(t, bad, "cops", "full replication"); !c.Holds {
		t.Errorf("cops: %+v, want holds", c)
	}
	good := CheckAvailabilityClaims(claimReport(
		run("karma", "crash-zone", back, 0, 400),
		run("cops-pr", "crash-dc", dc, 30, 400),
	), tp, AvailabilityClaims())
	for _, c := range good {
		if !c.Holds {
			t.Errorf("%s under %s: %+v, want holds", c.Protocol, c.Claim.Fault, c)
		}
	}
}

// TestAvailabilityPageAgreesWithClaims reads the committed
// docs/availability.md: every claim of every protocol it covers has a row,
// no row is contradicted, and each row's measured class is one its claim
// allows (so a hand edit or a stale page with a contradiction fails).
func TestAvailabilityPageAgreesWithClaims(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "availability.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	_, claims, ok := strings.Cut(page, "## The papers' claims")
	if !ok {
		t.Fatal("docs/availability.md has no claims section")
	}
	rows := 0
	for _, line := range strings.Split(claims, "\n") {
		cols := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cols) != 6 || cols[0] == "protocol" || strings.HasPrefix(cols[0], "---") {
			continue
		}
		rows++
		proto, fault, claimed, measured, verdict := cols[0], cols[1], cols[3], cols[4], cols[5]
		var claim *AvailabilityClaim
		for _, c := range AvailabilityClaims() {
			if c.Fault == fault && slices.Contains(c.Protocols, proto) {
				claim = &c
			}
		}
		if claim == nil {
			t.Errorf("row %q: no such claim (regenerate the page: see its head)", line)
			continue
		}
		class, _, _ := strings.Cut(measured, ":")
		if verdict == claimContradicted || (verdict == claimHolds && !slices.Contains(claim.Allows, AvailabilityClass(class))) {
			t.Errorf("%s under %q: measured %s, claimed %s (%s)", proto, fault, measured, claimed, claim.Source)
		}
	}
	want := 0
	for _, c := range AvailabilityClaims() {
		want += len(c.Protocols)
	}
	if rows != want {
		t.Errorf("docs/availability.md judges %d claims, want %d (one per claim and protocol): regenerate it", rows, want)
	}
}

// availabilityRun runs p on local3 under sched, as torture does, and
// returns the run with its availability verdict.
func availabilityRun(t *testing.T, p, nemesis string, seed uint64, sched faults.Schedule) TortureRun {
	t.Helper()
	spec := smallSpec(t, p, "local3", seed, false)
	spec.Faults, spec.Duration = sched, 5*time.Second
	var ops []DoneOp
	spec.OnDone = func(dc string, req protocol.Request, rep protocol.Reply, start, end time.Duration) {
		ops = append(ops, doneOp(dc, req, rep, start, end))
	}
	if _, err := RunSim(spec); err != nil {
		t.Fatal(err)
	}
	return TortureRun{Protocol: p, Seed: seed, Nemesis: nemesis, Faults: sched,
		Availability: JudgeAvailability(spec.Protocol, spec.Topology, sched, ops, availabilityGrace(spec))}
}

// TestAvailabilityClaimsLive checks the claims on fresh runs, one fault
// of each claim's class: Karma stays available when b's back zone
// crashes (Claim 1), when a is cut from b inside their ring (Claim 2 (1))
// and when ring [a b] is cut from ring [c] (Claim 2 (2)); COPS-PR fails reachable operations when b crashes (static
// binding), and COPS does not.
func TestAvailabilityClaimsLive(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("simulated runs of several seconds; make seeds runs them without -race")
	}
	tp := local3(t)
	at := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	// Each fault lasts longer than the operation timeout (2s): a client
	// waiting for a replica that is back within it is answered, and
	// unavailability shows only beyond it.
	zone := faults.Schedule{{At: at(0.5), Crash: "zone:b/back"}, {At: at(3.5), Restart: "zone:b/back"}, {At: at(3.5), Heal: "all"}}
	rings := faults.Schedule{{At: at(0.5), Partition: [][]string{{"a", "b"}, {"c"}}}, {At: at(3.5), Heal: "all"}}
	inside := faults.Schedule{{At: at(0.5), Partition: [][]string{{"a"}, {"b"}}}, {At: at(3.5), Heal: "all"}}
	dc := faults.Schedule{{At: at(0.5), Crash: "dc:b"}, {At: at(3.5), Restart: "dc:b"}, {At: at(3.5), Heal: "all"}}
	rep := claimReport(
		availabilityRun(t, "karma", "crash-zone", 1, zone),
		availabilityRun(t, "karma", "ring-split", 1, rings),
		availabilityRun(t, "karma", "ring-split", 2, inside),
		availabilityRun(t, "cops-pr", "crash-dc", 1, dc),
		availabilityRun(t, "cops", "crash-dc", 1, dc),
	)
	for _, c := range CheckAvailabilityClaims(rep, tp, AvailabilityClaims()) {
		t.Logf("%s under %s: %s, %d of %d reachable operations failed in %d runs", c.Protocol, c.Claim.Fault, c.Class, c.FailedOps, c.EligibleOps, c.Runs)
		if !c.Holds {
			t.Errorf("%s contradicts %s (%s): %s, %d of %d reachable operations failed", c.Protocol, c.Claim.Source, c.Claim.Fault,
				c.Class, c.FailedOps, c.EligibleOps)
		}
		if c.Runs == 0 {
			t.Errorf("%s: no run covered %s", c.Protocol, c.Claim.Source)
		}
	}
}
