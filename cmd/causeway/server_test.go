package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/causeway/causeway/cluster"
)

// TestServerArguments checks that `causeway server` refuses bad arguments
// with exit status 2 and a message saying what is wrong.
func TestServerArguments(t *testing.T) {
	dir := savedLocal3Cluster(t, "cops")
	path := filepath.Join(dir, cluster.FileName)
	bad := writeFile(t, "bad.yaml", "protocol: cops\ncolour: blue\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no config", []string{"server", "--node", "a/s0"}, "--config is required"},
		{"missing config", []string{"server", "--config", filepath.Join(dir, "nope.yaml"), "--node", "a/s0"}, "no such file"},
		{"bad config", []string{"server", "--config", bad, "--node", "a/s0"}, "colour"},
		{"no node", []string{"server", "--config", path}, "--node is required (nodes: a/s0, a/s1"},
		{"unknown node", []string{"server", "--config", path, "--node", "z/s0"}, `"z/s0" is not a node`},
		{"extra argument", []string{"server", "--config", path, "--node", "a/s0", "extra"}, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := causeway(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tc.want)
			}
		})
	}
}
