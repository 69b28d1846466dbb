package main

import (
	"strings"
	"testing"
)

// TestDownClusterIsUnavailable: get and put against a cluster none of
// whose nodes runs fail at once as unavailable (exit 1), not after
// --timeout (10m here: only the fast path passes), and only the write's
// error speaks of its outcome: not applied. A key that is not UTF-8 is
// bad input (exit 2).
func TestDownClusterIsUnavailable(t *testing.T) {
	dir := savedLocal3Cluster(t, "cops")
	code, stdout, stderr := causeway(t, "get", "--cluster", dir, "--dc", "a", "--timeout", "10m", "k")
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, `causeway: get "k": unavailable`) || strings.Contains(stderr, "outcome unknown") {
		t.Errorf("get: exit %d, stdout %q, stderr %q; want exit 1 and unavailable", code, stdout, stderr)
	}
	code, _, stderr = causeway(t, "put", "--cluster", dir, "--dc", "a", "--timeout", "10m", "k", "v")
	if code != 1 || !strings.HasPrefix(stderr, `causeway: put "k": unavailable, not applied`) {
		t.Errorf("put: exit %d, stderr %q; want exit 1 and unavailable, not applied", code, stderr)
	}
	code, _, stderr = causeway(t, "get", "--cluster", dir, "--dc", "a", "k\xff")
	if code != 2 || !strings.Contains(stderr, "not valid UTF-8") {
		t.Errorf("get of a key that is not UTF-8: exit %d, stderr %q; want exit 2", code, stderr)
	}
}
