package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDemoJSON runs a short demo on local3 with -w json and checks the
// rows against what the protocols' placements say: full replication keeps
// a copy in every DC, Karma's family one per ring.
func TestDemoJSON(t *testing.T) {
	code, out, errOut := causeway(t, "demo", "--topology", "local3", "--duration", "300ms", "--clients-per-dc", "2", "-w", "json")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep demoReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if len(rep.Rows) != 4 || len(rep.Results) != 4 || len(rep.Summary) == 0 {
		t.Fatalf("rows %d, results %d, summary %q; want 4 rows and results of the default protocols and a summary", len(rep.Rows), len(rep.Results), rep.Summary)
	}
	want := map[string]string{"eventual": "full", "cops": "full", "cops-pr": "partial", "karma": "partial"}
	for _, r := range rep.Rows {
		if want[r.Protocol] != r.Replication {
			t.Errorf("%s: replication %q, want %q", r.Protocol, r.Replication, want[r.Protocol])
		}
		if r.Replication == "full" && r.ReplicasPerKey != 3 {
			t.Errorf("%s: %v replicas per key on local3, want 3", r.Protocol, r.ReplicasPerKey)
		}
		if r.Replication == "partial" && !(r.ReplicasPerKey >= 1 && r.ReplicasPerKey < 3) {
			t.Errorf("%s: %v replicas per key on local3, want fewer than 3", r.Protocol, r.ReplicasPerKey)
		}
		if r.WANBytesPerOp == nil || *r.WANBytesPerOp <= 0 || r.LocalFraction == nil || r.GetP99Ms == nil {
			t.Errorf("%s: missing figures: %+v", r.Protocol, r)
		}
	}
	if !strings.Contains(strings.Join(rep.Summary, "\n"), "cops-pr (partial: a key in 2 of 3 DCs) against cops (full): saves storage (2 copies of each key instead of 3: 33% less)") {
		t.Errorf("summary does not compare cops-pr's storage with cops':\n%s", strings.Join(rep.Summary, "\n"))
	}
}

// TestDemoTable: the table has the demo's columns, a row per protocol,
// the summary lines and the command that reproduces a row.
func TestDemoTable(t *testing.T) {
	code, out, errOut := causeway(t, "demo", "--topology", "local3", "--duration", "200ms", "--clients-per-dc", "2", "--protocols", "cops,karma")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"copies/key", "WAN/op", "local", "get p99", "put p99", "vis p50", "checker",
		"\n* karma (partial: a key in 2 of 3 DCs) against cops (full): saves storage", "\n* Checker: ", "Reproduce any row with: causeway sim --protocol P --topology local3"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "karma      simulated in") {
		t.Errorf("demo's progress on stderr lacks karma's run: %q", errOut)
	}
}

// TestDemoRejectsBeforeRunning: a bad name anywhere in --protocols, or a
// bad -w, fails with exit 2 before any protocol runs.
func TestDemoRejectsBeforeRunning(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "--topology", "local3", "--protocols", "cops,bar"},
		{"demo", "--topology", "local3", "-w", "yaml"},
	} {
		code, out, errOut := causeway(t, args...)
		if code != 2 || !strings.Contains(errOut, "demo:") || strings.Contains(errOut, "simulated in") || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, an error naming demo, no run", args, code, out, errOut)
		}
	}
}

// demoRows are a full-replication baseline and two partial designs, with
// numbers a test changes to see the summary follow.
func demoRows() []demoRow {
	return []demoRow{
		{Protocol: "eventual", Claims: "eventual", Replication: "full", ReplicasPerKey: 8, DCsPerKey: 8, DCs: 8,
			WANBytesPerOp: ptr(90), LocalFraction: ptr(1), GetP99Ms: ptr(0.7), PutP99Ms: ptr(0.7), VisibilityP50Ms: ptr(120), Violations: 3, Operations: 1000},
		{Protocol: "cops", Claims: "causal+", Replication: "full", ReplicasPerKey: 8, DCsPerKey: 8, DCs: 8,
			WANBytesPerOp: ptr(140), LocalFraction: ptr(1), GetP99Ms: ptr(2.4), PutP99Ms: ptr(2.6), VisibilityP50Ms: ptr(130), CheckerOK: true},
		{Protocol: "cops-pr", Claims: "causal+", Replication: "partial", ReplicasPerKey: 3, DCsPerKey: 3, DCs: 8,
			WANBytesPerOp: ptr(200), LocalFraction: ptr(0.9), GetP99Ms: ptr(134), PutP99Ms: ptr(2.6), VisibilityP50Ms: ptr(1700), CheckerOK: true},
		{Protocol: "karma", Claims: "causal+", Replication: "partial", ReplicasPerKey: 3, DCsPerKey: 3, DCs: 8,
			WANBytesPerOp: ptr(230), LocalFraction: ptr(0.9), GetP99Ms: ptr(137), PutP99Ms: ptr(2.6), VisibilityP50Ms: ptr(2000), CheckerOK: true},
	}
}

// TestDemoSummaryFollowsTheNumbers: the summary's comparisons change
// direction when the numbers do, so they cannot go stale as protocols get
// faster.
func TestDemoSummaryFollowsTheNumbers(t *testing.T) {
	contains := func(t *testing.T, lines []string, want ...string) {
		t.Helper()
		all := strings.Join(lines, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("summary lacks %q:\n%s", w, all)
			}
		}
	}
	lacks := func(t *testing.T, lines []string, bad ...string) {
		t.Helper()
		all := strings.Join(lines, "\n")
		for _, b := range bad {
			if strings.Contains(all, b) {
				t.Errorf("summary says %q:\n%s", b, all)
			}
		}
	}

	rows := demoRows()
	s := demoSummary(rows)
	contains(t, s,
		"karma (partial: a key in 3 of 8 DCs) against cops (full): saves storage (3 copies of each key instead of 8: 62% less); costs WAN bytes per operation (230 B vs 140 B: 64% more)",
		"visibility p50 2000 ms vs 130 ms",
		"about the same put p99",
		"No partial design here recovers operations answered in the client's DC",
		"On visibility p50, cops-pr closes 16% of the gap between karma and full replication",
		"caught breaking causality: eventual (claims eventual; 3 violations in 1000 operations)",
		"causal+ in every checked history: cops, cops-pr, karma")
	lacks(t, s, "BROKEN")

	// Karma made faster: it now saves WAN bytes and visibility, and
	// recovers locality and get latency that cops-pr loses.
	rows = demoRows()
	k := &rows[3]
	k.WANBytesPerOp, k.VisibilityP50Ms, k.LocalFraction, k.GetP99Ms = ptr(70), ptr(80), ptr(0.95), ptr(68.2)
	s = demoSummary(rows)
	contains(t, s,
		"karma (partial: a key in 3 of 8 DCs) against cops (full): saves storage (3 copies of each key instead of 8: 62% less), WAN bytes per operation (70 B vs 140 B: 50% less), visibility p50 80 ms vs 130 ms; costs",
		"On operations answered in the client's DC, karma closes 50% of the gap between cops-pr and full replication: 95% against 90% (cops: 100%).",
		"On get p99, karma closes 50% of the gap between cops-pr and full replication",
		"On visibility p50, karma closes all of the gap between cops-pr and full replication")
	lacks(t, s, "karma (partial: a key in 3 of 8 DCs) against cops (full): saves storage (3 copies of each key instead of 8: 62% less); costs WAN")

	// A causal+ protocol that fails the checker is called out.
	rows = demoRows()
	rows[3].CheckerOK, rows[3].Violations = false, 2
	contains(t, demoSummary(rows), "BROKEN: karma (2 violations) claims causal+ consistency and failed the checker")

	// Without a baseline the summary says what to add instead of comparing.
	contains(t, demoSummary(demoRows()[2:]), "No full-replication protocol ran")
	contains(t, demoSummary(demoRows()[:2]), "No partial-replication protocol ran")
}

func TestDemoBrokenClaimsExitOne(t *testing.T) {
	rows := demoRows()
	if err := brokenClaims(rows); err != nil {
		t.Errorf("eventual failing the checker fails the demo: %v", err)
	}
	rows[3].CheckerOK = false
	err := brokenClaims(rows)
	if ee, ok := err.(*exitError); !ok || ee.code != 1 || !strings.Contains(err.Error(), "demo: karma claims causal+") {
		t.Errorf("karma failing the checker: %v; want exit 1 naming karma", err)
	}
}
