package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
)

// TestTortureCommand runs a tiny campaign (eventual and cops, two seeds)
// as JSON and as a table: it exits 0, the JSON holds a summary per
// protocol and every run with a catalogue nemesis and its three verdicts,
// cops passes, and progress goes to stderr only.
func TestTortureCommand(t *testing.T) {
	args := []string{"torture", "--protocol", "eventual,cops", "--seeds", "2", "--duration", "1s", "--records", "50", "--workers", "2"}
	code, out, errOut := causeway(t, append(args, "-w", "json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var rep bench.TortureReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not the report: %v\n%s", err, out)
	}
	if len(rep.Summary) != 2 || rep.Summary[0].Protocol != "eventual" || rep.Summary[1].Protocol != "cops" || len(rep.Runs) != 4 {
		t.Fatalf("report: %+v", rep)
	}
	if s := rep.Summary[1]; s.Pass != 2 || s.Failed != 0 || s.NotConverged != 0 {
		t.Errorf("cops: %+v", s)
	}
	if s := rep.Summary[0]; s.Violations != 0 || s.Pass+s.Caught != 2 {
		t.Errorf("eventual: %+v (being caught is not a violation)", s)
	}
	for _, r := range rep.Runs {
		if _, err := faults.LookupNemesis(r.Nemesis); err != nil || len(r.Faults) == 0 || r.Availability.Eligible == 0 {
			t.Errorf("run %+v", r)
		}
	}
	if !strings.Contains(errOut, "torture: 2 protocols × 2 seeds on local3") || !strings.Contains(errOut, "[4/4]") {
		t.Errorf("stderr:\n%s", errOut)
	}
	code, out, _ = causeway(t, args...)
	if code != 0 || !strings.Contains(out, "protocol  claims") || !strings.Contains(out, "cops      causal+   2     2") {
		t.Errorf("table (exit %d):\n%s", code, out)
	}
}

// TestTortureBadInput: bad flags exit 2 with a message naming the
// command and the flag.
func TestTortureBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--seeds", "0"}, "torture: --seeds 0: must be positive"},
		{[]string{"--nemesis", "nope"}, `torture: --nemesis: unknown nemesis "nope"`},
		{[]string{"--protocol", "nope"}, `torture: --protocol "nope": unknown protocol`},
		{[]string{"--faults", "random"}, "torture: --faults: the nemesis draws"},
		{[]string{"-w", "xml"}, `torture: --write-out "xml"`},
		{[]string{"--protocol", "karma", "--topology", "k2-emulab6"}, "torture: protocol karma cannot run on topology k2-emulab6"},
		{[]string{"--protocol", "cops,"}, `torture: --protocol "cops,": an empty protocol name`},
		{[]string{"--protocol", "cops,cops"}, "cops is listed twice"},
		{[]string{"--workload", "ycsb-95-5,nope"}, "torture: "},
		{[]string{"--workers", "-1"}, "torture: --workers -1"},
	} {
		code, _, errOut := causeway(t, append([]string{"torture"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("torture %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestTortureAvailability: --availability writes the page and exits 0
// when the claims hold (cops under DC crashes), and exits 1 naming the
// claim, after writing the page, when one is contradicted: COPS-PR
// answering every reachable operation under DC crashes shorter than the
// operation timeout contradicts the unavailability its static binding
// is claimed to cause.
func TestTortureAvailability(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "availability.md")
	args := []string{"torture", "--seeds", "1", "--duration", "1s", "--records", "50", "--nemesis", "crash-dc", "--availability=" + page}
	code, _, errOut := causeway(t, append(args, "--protocol", "cops")...)
	data, err := os.ReadFile(page)
	if code != 0 || err != nil {
		t.Fatalf("cops: exit %d, page: %v\n%s", code, err, errOut)
	}
	for _, want := range []string{"causeway torture --availability=" + page + " --duration 1s --nemesis crash-dc --protocol cops --records 50 --seeds 1",
		"| crash-dc | available: 0 / ", "| cops | any fault that leaves the client's DC up |", "| holds |"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("page lacks %q:\n%s", want, data)
		}
	}
	code, _, errOut = causeway(t, append(args, "--protocol", "cops-pr")...)
	data, _ = os.ReadFile(page)
	if code != 1 || !strings.Contains(errOut, "availability claims contradicted") || !strings.Contains(errOut, "cops-pr under a DC or node crashed") ||
		!strings.Contains(string(data), "| CONTRADICTED |") {
		t.Errorf("cops-pr: exit %d, want 1 and the page\n%s\n%s", code, errOut, data)
	}
}

// TestRequireCaught: a campaign in which eventual ran but was never
// caught fails; one in which it was caught, or did not run, does not.
func TestRequireCaught(t *testing.T) {
	lookup := func(name string) protocol.Protocol {
		p, err := protocol.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ts := bench.TortureSpec{Protocols: []protocol.Protocol{lookup("cops"), lookup("eventual")}}
	rep := &bench.TortureReport{Summary: []bench.TortureSummary{{Protocol: "cops", Runs: 5, Pass: 5}, {Protocol: "eventual", Runs: 5, Pass: 5}}}
	if err := requireCaught(ts, rep); err == nil || !strings.Contains(err.Error(), "eventual was never caught in 5 runs") {
		t.Errorf("eventual never caught: %v", err)
	}
	rep.Summary[1].Caught, rep.Summary[1].Pass = 1, 4
	if err := requireCaught(ts, rep); err != nil {
		t.Errorf("eventual caught once: %v", err)
	}
	ts.Protocols, rep.Summary = ts.Protocols[:1], rep.Summary[:1]
	if err := requireCaught(ts, rep); err != nil {
		t.Errorf("cops alone: %v", err)
	}
	// A preset that claims only eventual but may keep causality in
	// practice (QUORUM over every replica) is not the checker's canary.
	ts.Protocols = []protocol.Protocol{lookup("cassandra-q")}
	rep.Summary = []bench.TortureSummary{{Protocol: "cassandra-q", Runs: 5, Pass: 5}}
	if err := requireCaught(ts, rep); err != nil {
		t.Errorf("cassandra-q never caught: %v", err)
	}
}
