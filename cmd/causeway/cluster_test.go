package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClusterArguments checks the cluster commands' refusals (exit 2),
// in-process.
func TestClusterArguments(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", []string{"cluster"}, "a command is needed"},
		{"unknown command", []string{"cluster", "sideways"}, `unknown command "sideways"`},
		{"up without dir", []string{"cluster", "up", "--topology", "local3", "--protocol", "cops"}, "--dir is required"},
		{"up without topology", []string{"cluster", "up", "--protocol", "cops", "--dir", empty}, "a topology and a protocol are needed"},
		{"up with an unknown protocol", []string{"cluster", "up", "--topology", "local3", "--protocol", "copz", "--dir", empty}, "valid:"},
		{"up with an unknown topology", []string{"cluster", "up", "--topology", "local9", "--protocol", "cops", "--dir", empty}, "local3"},
		{"down without cluster", []string{"cluster", "down", "--dir", empty}, "no cluster in"},
		{"status without dir", []string{"cluster", "status"}, "--dir is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := causeway(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tc.want)
			}
		})
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("refused commands left files in the directory: %v", entries)
	}
}

// TestClusterUpStatusDown builds the causeway binary and runs a real local
// cluster with it: cluster up, status, down, up again on the same
// directory, down.
func TestClusterUpStatusDown(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a multi-process cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
	// Cancelled after the cleanup below, which still needs ctx.
	t.Cleanup(cancel)
	bin := filepath.Join(t.TempDir(), "causeway")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "c1")
	cw := func(args ...string) (int, string, string) {
		t.Helper()
		return runBinary(ctx, t, bin, args...)
	}
	t.Cleanup(func() {
		// Whatever happened, leave no process behind.
		if _, err := os.Stat(filepath.Join(dir, "cluster.yaml")); err == nil {
			if code, out, errOut := cw("cluster", "down", "--dir", dir); code != 0 {
				t.Errorf("cleanup: cluster down: exit %d\n%s%s", code, out, errOut)
			}
		}
	})
	expect := func(wantCode int, wantOut string, args ...string) string {
		t.Helper()
		code, out, errOut := cw(args...)
		if code != wantCode || !strings.Contains(out+errOut, wantOut) {
			t.Fatalf("causeway %s: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s",
				strings.Join(args, " "), code, wantCode, wantOut, out, errOut)
		}
		return out
	}
	countUp := func(status string) int {
		n := 0
		for _, line := range strings.Split(status, "\n") {
			if f := strings.Fields(line); len(f) >= 4 && f[3] == "up" {
				n++
			}
		}
		return n
	}

	out := expect(0, "created cluster", "cluster", "up", "--topology", "local3", "--protocol", "cops", "--dir", dir, "--wan-delay=false")
	if n := countUp(out); n != 6 {
		t.Errorf("up printed %d nodes up, want 6:\n%s", n, out)
	}
	if n := countUp(expect(0, "a/s0", "cluster", "status", "--dir", dir)); n != 6 {
		t.Errorf("status: %d nodes up, want 6", n)
	}
	expect(2, "contradicts", "cluster", "up", "--dir", dir, "--protocol", "eventual")
	expect(2, "contradicts", "cluster", "up", "--dir", dir, "--wan-delay=true")
	if n := strings.Count(expect(0, "stopped", "cluster", "down", "--dir", dir), "stopped"); n != 6 {
		t.Errorf("down stopped %d nodes, want 6", n)
	}
	if n := countUp(expect(1, "6 of 6 nodes not up", "cluster", "status", "--dir", dir)); n != 0 {
		t.Errorf("status after down: %d nodes up", n)
	}
	out = expect(0, "restarted cluster", "cluster", "up", "--dir", dir)
	if n := countUp(out); n != 6 {
		t.Errorf("restart printed %d nodes up, want 6:\n%s", n, out)
	}
	log, err := os.ReadFile(filepath.Join(dir, "logs", "a_s0.log"))
	if err != nil || strings.Count(string(log), `"msg":"node started"`) != 2 {
		t.Errorf("a/s0's log should show two starts (err %v):\n%s", err, log)
	}

	// The live store's first steps (issue #4): a put in one DC is read in
	// another, and survives kill -9 of every server and a restart.
	expect(0, "ok", "put", "--cluster", dir, "--dc", "a", "greeting", "hello")
	deadline := time.Now().Add(20 * time.Second) // a hang guard; replication takes milliseconds
	for {
		_, out, _ := cw("get", "--cluster", dir, "--dc", "c", "greeting")
		if strings.TrimSpace(out) == "hello" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("get in c never returned the put made in a (last: %q)", out)
		}
	}
	// A short live benchmark: every operation recorded and checked.
	out = expect(0, `"runtime": "live"`, "bench", "--cluster", dir, "--duration", "1s", "--clients", "6", "--json")
	if !strings.Contains(out, `"ok": true`) || strings.Contains(out, `"ops": 0,`) {
		t.Errorf("live bench did not pass the checker or did nothing:\n%s", out)
	}
	// The ceiling was measured in the same run and bounds the throughput.
	var live struct {
		Ops             int64    `json:"ops"`
		Throughput      float64  `json:"throughput_ops_s"`
		CeilingOpsS     *float64 `json:"ceiling_ops_s"`
		CeilingFraction *float64 `json:"ceiling_fraction"`
	}
	if err := json.Unmarshal([]byte(out), &live); err != nil {
		t.Fatalf("bench JSON: %v\n%s", err, out)
	}
	if live.CeilingOpsS == nil || live.CeilingFraction == nil || *live.CeilingOpsS <= 0 ||
		*live.CeilingFraction <= 0 || *live.CeilingFraction > 1.5 {
		t.Errorf("live bench should report a positive ceiling and a fraction near or below 1: %s", out)
	}
	// A second run on the same data: it must not mistake the first run's
	// values for thin air.
	out = expect(0, `"runtime": "live"`, "bench", "--cluster", dir, "--duration", "500ms", "--clients", "6", "--json")
	if !strings.Contains(out, `"ok": true`) {
		t.Errorf("a second live bench on the same cluster failed the checker:\n%s", out)
	}
	out = expect(0, "ceiling:", "bench", "--cluster", dir, "--protocol", "noop", "--duration", "300ms", "--clients", "3")
	if !strings.Contains(out, "noop") {
		t.Errorf("bench --protocol noop should report the noop protocol:\n%s", out)
	}
	expect(2, "only it or", "bench", "--cluster", dir, "--protocol", "karma", "--duration", "300ms")
	pids, err := filepath.Glob(filepath.Join(dir, "pids", "*.pid"))
	if err != nil || len(pids) != 6 {
		t.Fatalf("pid files: %v %v", pids, err)
	}
	for _, pf := range pids {
		data, err := os.ReadFile(pf)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill -9 %d: %v", pid, err)
		}
	}
	expect(0, "cluster", "cluster", "up", "--dir", dir)
	// Each node's third start (up, up again, up after kill -9), with the
	// data it kept.
	var st []statusRecord
	if err := json.Unmarshal([]byte(expect(0, "", "cluster", "status", "--dir", dir, "-w", "json")), &st); err != nil || len(st) != 6 {
		t.Fatalf("cluster status -w json: %v, %d nodes", err, len(st))
	}
	for _, s := range st {
		if s.Health != "up" || s.PID == 0 || s.Incarnation != 3 || s.DataBytes == nil || *s.DataBytes == 0 {
			t.Errorf("%s after kill -9 and restart: %+v; want up, a pid, incarnation 3 and its data", s.Node, s)
		}
	}
	for _, dc := range []string{"a", "b", "c"} {
		if out := expect(0, "", "get", "--cluster", dir, "--dc", dc, "greeting"); strings.TrimSpace(out) != "hello" {
			t.Errorf("after kill -9 and restart, get in %s = %q, want the acknowledged hello", dc, out)
		}
	}
	expect(2, "unknown datacenter", "get", "--cluster", dir, "--dc", "zz", "greeting")

	expect(0, "stopped", "cluster", "down", "--dir", dir)
	if entries, err := os.ReadDir(filepath.Join(dir, "pids")); err != nil || len(entries) != 0 {
		t.Errorf("pid files after down: %v %v", entries, err)
	}
}
