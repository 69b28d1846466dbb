package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSimFaultScheduleReplays runs with --faults random, saves the result
// JSON's fault_schedule as a file, and replays it with --faults: the same
// seed then gives the same history, byte for byte.
func TestSimFaultScheduleReplays(t *testing.T) {
	dir := t.TempDir()
	common := []string{"sim", "--protocol", "cops", "--topology", "local3", "--duration", "1s", "--clients", "6",
		"--records", "50", "--seed", "3"}
	h1, h2, res := filepath.Join(dir, "h1.jsonl"), filepath.Join(dir, "h2.jsonl"), filepath.Join(dir, "r.json")
	if code, out, errOut := causeway(t, append(common, "--faults", "random", "--history", h1, "--out", res)...); code != 0 {
		t.Fatalf("sim --faults random: exit %d\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		FaultSchedule json.RawMessage `json:"fault_schedule"`
	}
	if err := json.Unmarshal(data, &r); err != nil || len(r.FaultSchedule) < 10 {
		t.Fatalf("result JSON has no fault_schedule (%v):\n%s", err, data)
	}
	f := filepath.Join(dir, "f.json")
	if err := os.WriteFile(f, r.FaultSchedule, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := causeway(t, append(common, "--faults", f, "--history", h2)...); code != 0 {
		t.Fatalf("sim --faults f.json: exit %d\n%s\n%s", code, out, errOut)
	}
	a, _ := os.ReadFile(h1)
	b, _ := os.ReadFile(h2)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the replayed history differs (%d vs %d bytes); schedule:\n%s", len(a), len(b), r.FaultSchedule)
	}
}

// TestSimShrinkPrintsAFailingReplay shrinks a run of eventual (which the
// checker catches) with --shrink and runs the replay command it prints:
// that run fails the checker too, with the operation count shrink
// reported.
func TestSimShrinkPrintsAFailingReplay(t *testing.T) {
	dir := t.TempDir()
	shrunk := filepath.Join(dir, "shrunk.yaml")
	code, out, errOut := causeway(t, "sim", "--protocol", "eventual", "--topology", "local3", "--duration", "1s",
		"--clients", "6", "--records", "50", "--value-size", "16", "--seed", "2", "--faults", "random",
		"--jitter", "10ms", "--shrink", "--shrink-runs", "12", "--shrink-out", shrunk)
	if code != 0 {
		t.Fatalf("sim --shrink: exit %d\n%s\n%s", code, out, errOut)
	}
	var replay, summary string
	for _, line := range strings.Split(out, "\n") {
		if r, ok := strings.CutPrefix(line, "replay: "); ok {
			replay = r
		}
		if strings.HasPrefix(line, "shrunk in ") {
			summary = line
		}
	}
	if replay == "" || summary == "" {
		t.Fatalf("no replay command or summary printed:\n%s", out)
	}
	t.Logf("%s\n%s", summary, replay)
	args := strings.Fields(replay)
	if len(args) < 3 || args[0] != "causeway" || args[1] != "sim" {
		t.Fatalf("replay %q is not a causeway sim command", replay)
	}
	code, js, errOut := causeway(t, append(args[1:], "--json")...)
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, errOut)
	}
	var res struct {
		Ops   int64 `json:"ops"`
		Check struct {
			OK bool `json:"ok"`
		} `json:"check"`
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatalf("replay's JSON: %v\n%s", err, js)
	}
	if res.Check.OK {
		t.Errorf("the replay passed the checker; shrink said it fails")
	}
	m := regexp.MustCompile(`^shrunk in \d+ runs: (\d+) fault events \(from (\d+)\), .* (\d+) operations \(from (\d+)\)$`).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("summary %q does not parse", summary)
	}
	n := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	events, events0, ops, ops0 := n(m[1]), n(m[2]), n(m[3]), n(m[4])
	if events >= events0 && ops >= ops0 {
		t.Errorf("nothing shrunk: %s", summary)
	}
	if res.Ops != ops {
		t.Errorf("the replay completed %d operations; shrink reported %d", res.Ops, ops)
	}
}
