package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
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
