package node

import (
	"strings"
	"testing"
)

// TestRestartedNodeGetsAHigherIncarnation stops a node host and runs it
// again on the same data directory: its boot counter, shown by the
// causeway_node_incarnation gauge, goes from 1 to 2.
func TestRestartedNodeGetsAHigherIncarnation(t *testing.T) {
	tc := newCluster(t, "cops")
	const id = "a/s0"
	incarnation := func() string {
		t.Helper()
		code, body, err := tc.httpGet(id, "/metrics")
		if err != nil || code != 200 {
			t.Fatalf("/metrics: %d %v", code, err)
		}
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(line, "causeway_node_incarnation{") {
				return line[strings.LastIndexByte(line, ' ')+1:]
			}
		}
		t.Fatalf("no causeway_node_incarnation in /metrics:\n%s", body)
		return ""
	}
	tc.start(id)
	if got := incarnation(); got != "1" {
		t.Fatalf("first start: incarnation %s, want 1", got)
	}
	tc.stop(id)
	tc.start(id)
	if got := incarnation(); got != "2" {
		t.Errorf("after a restart: incarnation %s, want 2", got)
	}
}
