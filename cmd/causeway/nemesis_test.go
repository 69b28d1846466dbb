package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/cluster/nemesis"
	"github.com/causeway/causeway/topology"
)

// TestNemesisRefusesBadInput: bad arguments and schedules exit 2 with a
// message naming the command and the problem, before anything is faulted
// (the cluster here was never started).
func TestNemesisRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cluster.Plan(topo, "cops", dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(filepath.Join(dir, cluster.FileName)); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("- {at: 1s, kill: \"node:a/cc0\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nemesis"}, "--cluster is required"},
		{[]string{"nemesis", "--cluster", dir, "-w", "yaml"}, "must be table or json"},
		{[]string{"nemesis", "--cluster", dir, "--schedule", bad}, "names no node"},
		{[]string{"nemesis", "--cluster", dir, "--schedule", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"nemesis", "--cluster", dir, "--writers", "0"}, "--writers"},
		{[]string{"nemesis", "--cluster", dir, "--workload", "nope"}, "nope"},
	} {
		code, _, errOut := causeway(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, "nemesis") || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming nemesis and %q", tc.args, code, errOut, tc.want)
		}
	}
	code, out, _ := causeway(t, "nemesis", "--print-schedule")
	if code != 0 || out != nemesis.DefaultSchedule {
		t.Errorf("--print-schedule: exit %d, printed %q", code, out)
	}
}
