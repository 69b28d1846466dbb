package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/runtime/node/nodetest"
)

// simArgs is a short simulated run on local3.
var simArgs = []string{"sim", "--protocol", "karma", "--topology", "local3", "--duration", "1s", "--clients-per-dc", "2", "--seed", "5"}

// TestSimProgressChangesNothing runs the same simulation without progress
// and with a status line at every step: the result JSON and history files
// must be byte-identical, the status lines must be on stderr, and stdout
// of --json must be one JSON document.
func TestSimProgressChangesNothing(t *testing.T) {
	dir := t.TempDir()
	files := func(name string) (string, string) {
		return filepath.Join(dir, name+".json"), filepath.Join(dir, name+".jsonl")
	}
	r1, h1 := files("plain")
	if code, out, errOut := causeway(t, append(simArgs, "--out", r1, "--history", h1)...); code != 0 {
		t.Fatalf("sim: exit %d\n%s%s", code, out, errOut)
	}
	r2, h2 := files("watched")
	code, out, errOut := causeway(t, append(simArgs, "--out", r2, "--history", h2, "--json", "--status-interval", "1ns")...)
	if code != 0 {
		t.Fatalf("sim with progress: exit %d\n%s", code, errOut)
	}
	for _, pair := range [][2]string{{r1, r2}, {h1, h2}} {
		a, errA := os.ReadFile(pair[0])
		b, errB := os.ReadFile(pair[1])
		if errA != nil || errB != nil || len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s and %s differ (or are missing: %v, %v)", pair[0], pair[1], errA, errB)
		}
	}
	var res bench.Result
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&res); err != nil || res.Protocol != "karma" || dec.More() {
		t.Errorf("stdout of --json with progress is not one result JSON (%v):\n%s", err, out)
	}
	lines := strings.Count(errOut, "\n")
	if lines < 40 || !strings.Contains(errOut, "ops/s") || !strings.Contains(errOut, "ETA") || !strings.Contains(errOut, "get min/p50/p99/p999") {
		t.Errorf("stderr has %d lines, want a status line per step with rate, ETA and latencies:\n%s", lines, errOut)
	}
	if strings.Contains(out, "ETA") {
		t.Error("progress leaked onto stdout")
	}
	// Without a terminal and without --progress, nothing on stderr.
	if _, _, errOut := causeway(t, simArgs...); errOut != "" {
		t.Errorf("progress shown without a terminal or --progress:\n%s", errOut)
	}
}

// TestReporterEstimatesTheTimeLeft drives a reporter with a made-up wall
// clock: a quarter of the run after 10 s leaves 30 s, and a status line
// comes once per interval and at the end.
func TestReporterEstimatesTheTimeLeft(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	var b strings.Builder
	r := newReporter(&b, "cops", false, 10*time.Second, func() time.Time { return now })
	now = t0.Add(5 * time.Second)
	r.report(bench.Progress{Done: 500 * time.Millisecond, Total: 4 * time.Second, Ops: 50})
	if b.Len() != 0 {
		t.Errorf("status line before the interval passed: %q", b.String())
	}
	now = t0.Add(10 * time.Second)
	r.report(bench.Progress{Done: time.Second, Total: 4 * time.Second, Ops: 100})
	if got := b.String(); !strings.HasPrefix(got, "cops 1s/4s  25% ETA 30s: 100 ops") {
		t.Errorf("status line %q", got)
	}
	now = t0.Add(12 * time.Second)
	r.report(bench.Progress{Done: 4 * time.Second, Total: 4 * time.Second, Ops: 400})
	if got := strings.Count(b.String(), "\n"); got != 2 || !strings.Contains(b.String(), "100% ETA 0s: 400 ops") {
		t.Errorf("want a final status line:\n%s", b.String())
	}
}

// TestTargetCapsTheRate: --target is shared by sim and bench and caps the
// operations per second over all clients (in virtual time here).
func TestTargetCapsTheRate(t *testing.T) {
	rate := func(args ...string) float64 {
		t.Helper()
		code, out, errOut := causeway(t, append(append([]string{}, simArgs...), append(args, "--json")...)...)
		if code != 0 {
			t.Fatalf("sim %v: exit %d\n%s", args, code, errOut)
		}
		var res bench.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res.ThroughputOpsS
	}
	closed, capped := rate(), rate("--target", "60")
	if capped > 60*1.05 || capped < 60*0.8 || closed < 5*capped {
		t.Errorf("--target 60: %.1f ops/s (closed loop %.1f)", capped, closed)
	}
}

// TestLongWorkFlagsRejectNonsense: the new numeric flags refuse bad values
// with exit status 2, naming the command, before any work.
func TestLongWorkFlagsRejectNonsense(t *testing.T) {
	dir := savedLocal3Cluster(t, "cops") // no node runs: bench must fail before dialling
	for _, args := range [][]string{
		{"bench", "--cluster", dir, "--target", "-5"},
		{"bench", "--cluster", dir, "--value-size", "-1"},
		{"bench", "--cluster", dir, "--records", "-3"},
		{"bench", "--cluster", dir, "--distribution", "pareto"},
		{"bench", "--cluster", dir, "--status-interval", "-1s"},
		{"sim", "--target", "-1"},
		{"repro", "karma", "--status-interval", "-2s"},
		{"compare"},
		{"compare", "-w", "yaml", "x.json"},
		{"compare", "/nonexistent/r.json"},
	} {
		code, _, errOut := causeway(t, args...)
		if code != 2 || !strings.Contains(errOut, "causeway: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}

// TestCompareRuns puts two runs side by side as a table, as JSON and as
// a plot.
func TestCompareRuns(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, p := range []string{"cops", "karma"} {
		f := filepath.Join(dir, p+".json")
		if code, _, errOut := causeway(t, "sim", "--protocol", p, "--topology", "local3", "--duration", "500ms", "--clients", "3", "--out", f); code != 0 {
			t.Fatalf("sim %s: exit %d\n%s", p, code, errOut)
		}
		files = append(files, f)
	}
	plot := filepath.Join(dir, "cmp.svg")
	code, out, errOut := causeway(t, append([]string{"compare", "--plot", plot}, files...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"cops", "karma", "throughput_ops_s", "latency_ms.get.p999", "latency_ms.get.min",
		"protocol_metrics.drr_fraction", "visibility_ms.p50", "checker"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare table lacks %q:\n%s", want, out)
		}
	}
	if data, err := os.ReadFile(plot); err != nil || !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("throughput")) {
		t.Errorf("plot %s: %v, %d bytes", plot, err, len(data))
	}
	code, out, _ = causeway(t, append([]string{"compare", "-w", "json"}, files...)...)
	var c comparison
	if err := json.Unmarshal([]byte(out), &c); code != 0 || err != nil || len(c.Runs) != 2 {
		t.Fatalf("compare -w json: exit %d, %v:\n%s", code, err, out)
	}
	for _, m := range c.Metrics {
		if m.Name == "protocol_metrics.drr_fraction" && (m.Values[0] != nil || m.Values[1] == nil) {
			t.Errorf("drr_fraction: cops %v, karma %v; want null and a value", m.Values[0], m.Values[1])
		}
	}
}

// TestBenchInterruptLeavesACheckableHistory sends a real SIGINT to a
// causeway bench child process once it prints its first status line:
// it must exit 130 after printing the summary so far, and leave a result
// marked interrupted and a history that the checker passes (and no
// temporary file).
func TestBenchInterruptLeavesACheckableHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := buildCauseway(t, ctx)
	cdir := nodetest.StartLocal(t, "local3", "cops")
	out := t.TempDir()
	h, r := filepath.Join(out, "h.jsonl"), filepath.Join(out, "r.json")
	cmd := exec.CommandContext(ctx, bin, "bench", "--cluster", cdir, "--duration", "10m", "--ceiling=0", "--records", "20",
		"--status-interval", "1ms", "--history", h, "--out", r)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.Contains(sc.Text(), "ops/s") {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		seen = append(seen, sc.Text())
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("bench after SIGINT: exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", code, err, exitInterrupted, stdout.String(), strings.Join(seen, "\n"))
	}
	if !strings.Contains(stdout.String(), "cops") || !strings.Contains(stdout.String(), "p999") {
		t.Errorf("no summary on stdout:\n%s", stdout.String())
	}
	res, err := readResult(r)
	if err != nil || !res.Interrupted || res.Ops == 0 || !res.Check.OK {
		t.Fatalf("result after SIGINT: %v, %+v", err, res)
	}
	code, checkOut, checkErr := causeway(t, "check", h)
	if code != 0 || !strings.Contains(checkOut, "operations") {
		t.Errorf("check of the interrupted history: exit %d\n%s%s", code, checkOut, checkErr)
	}
	if left, _ := filepath.Glob(filepath.Join(out, ".*partial*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
