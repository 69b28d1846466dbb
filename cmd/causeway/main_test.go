package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/topology"
)

// causeway runs the CLI in-process and returns its exit code and output.
func causeway(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runBinary runs a built causeway binary and returns its exit code and
// output.
func runBinary(ctx context.Context, t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("causeway %v: %v", args, err)
	return 0, "", ""
}

// savedLocal3Cluster plans a local3 cluster of proto in a temporary
// directory and saves its cluster file there; no node runs.
func savedLocal3Cluster(t *testing.T, proto string) (dir string) {
	t.Helper()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	cfg, err := cluster.Plan(topo, proto, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(filepath.Join(dir, cluster.FileName)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckExitCodes runs `causeway check` on histories it has never seen:
// hand-written, consistent and not, malformed, and missing.
func TestCheckExitCodes(t *testing.T) {
	consistent := `{"session":"alice","dc":"a","op":"put","key":"x","value":"x1","start_ms":0,"end_ms":1}
{"session":"alice","dc":"a","op":"put","key":"y","value":"y1","start_ms":1,"end_ms":2}
{"session":"bob","dc":"b","op":"get","key":"y","value":"y1","start_ms":3,"end_ms":4}
{"session":"bob","dc":"b","op":"get","key":"x","value":"x1","start_ms":4,"end_ms":5}
`
	// karma.txt Fig. 2: Bob sees the new Y, then the old X.
	stale := strings.Replace(consistent, `"key":"x","value":"x1","start_ms":4`, `"key":"x","value":null,"start_ms":4`, 1)
	// A value nobody wrote.
	thinAir := strings.Replace(consistent, `"value":"x1","start_ms":4`, `"value":"x9","start_ms":4`, 1)
	tests := []struct {
		name, history string
		code          int
		out, errOut   string
	}{
		{"consistent", consistent, 0, "4 operations", ""},
		{"stale read", stale, 1, "stale-read", ""},
		{"thin air", thinAir, 1, "thin-air", ""},
		{"garbage", "this is not JSON\n", 2, "", "line 1"},
		{"unknown op", `{"session":"s","dc":"a","op":"frobnicate","key":"x","start_ms":0,"end_ms":1}` + "\n", 2, "", "line 1"},
		{"truncated", consistent[:len(consistent)/2], 2, "", "line 2"},
		{"empty", "", 2, "", "no operations"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := causeway(t, "check", writeFile(t, "h.jsonl", tc.history))
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.errOut) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout containing %q, stderr containing %q",
					code, out, errOut, tc.code, tc.out, tc.errOut)
			}
		})
	}
	if code, _, errOut := causeway(t, "check", filepath.Join(t.TempDir(), "missing.jsonl")); code != 2 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := causeway(t, "check"); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
}

// TestSimWritesACheckableHistory runs a short simulation, then checks the
// history it wrote with the check command.
func TestSimWritesACheckableHistory(t *testing.T) {
	dir := t.TempDir()
	h, res := filepath.Join(dir, "h.jsonl"), filepath.Join(dir, "r.json")
	code, out, errOut := causeway(t, "sim", "--protocol", "cops", "--topology", "local3", "--duration", "200ms",
		"--clients", "3", "--history", h, "--out", res)
	if code != 0 {
		t.Fatalf("sim: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "cops") || !strings.Contains(out, "ok") {
		t.Errorf("sim table does not show a passing cops row:\n%s", out)
	}
	data, err := os.ReadFile(res)
	if err != nil || !bytes.Contains(data, []byte(`"protocol": "cops"`)) {
		t.Errorf("result JSON: %v\n%s", err, data)
	}
	if code, out, _ := causeway(t, "check", h); code != 0 || !strings.Contains(out, "operations") {
		t.Errorf("check of sim's history: exit %d: %s", code, out)
	}
}

func TestBadArgumentsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"sim", "--protocol", "nope"},
		{"sim", "--topology", "atlantis"},
		{"sim", "--workload", "ycsb-zz"},
		{"sim", "--faults", "/nonexistent/faults.yaml"},
		{"sim", "--distribution", "pareto"},
		{"sim", "--protocol", "k2", "--topology", "k2-emulab6", "--replication-factor", "7"},
		{"sim", "--protocol", "k2", "--topology", "k2-emulab6", "--cache-fraction", "1.5"},
		{"demo", "--protocols", ""},
		{"put", "k", "v"},
		{"get", "--cluster", "/nonexistent/cluster", "--dc", "a", "k"},
		{"get", "--dc", "a"},
		{"frobnicate"},
	} {
		if code, _, errOut := causeway(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and an error message", args, code, errOut)
		}
	}
}

func TestListings(t *testing.T) {
	for cmd, want := range map[string][]string{
		"protocols":  {"cops", "eventual", "causal+"},
		"topologies": {"karma-aws8", "k2-emulab6", "c3-azure9", "chainreaction-2dc", "local3"},
		"workloads":  {"ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-f", "ycsb-95-5"},
	} {
		code, out, _ := causeway(t, cmd)
		if code != 0 {
			t.Errorf("%s: exit %d", cmd, code)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s does not list %q:\n%s", cmd, w, out)
			}
		}
	}
}
