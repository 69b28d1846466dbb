package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/causeway/causeway/runtime/node/nodetest"
)

// TestClusterStatusAndLinksJSON runs local3 in this process (nodetest: no
// pid files, no link controls) and reads it with cluster status and
// cluster links, as tables and as JSON.
func TestClusterStatusAndLinksJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live cluster")
	}
	dir := nodetest.StartLocal(t, "local3", "cops")
	if code, out, errOut := causeway(t, "put", "--cluster", dir, "--dc", "a", "greeting", "hello"); code != 0 {
		t.Fatalf("put: exit %d\n%s%s", code, out, errOut)
	}

	code, out, errOut := causeway(t, "cluster", "status", "--dir", dir, "-w", "json")
	var recs []statusRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil || code != 0 || len(recs) != 6 {
		t.Fatalf("cluster status -w json: exit %d, %d records (%v)\n%s%s", code, len(recs), err, out, errOut)
	}
	for _, r := range recs {
		if r.Health != "up" || r.Incarnation != 1 || r.UptimeS == nil || *r.UptimeS <= 0 || r.Started == nil ||
			r.DataBytes == nil || *r.DataBytes == 0 || r.PID != 0 {
			t.Errorf("%s: %+v; want up, incarnation 1, an uptime, a start, its data size and no pid (in-process)", r.Node, r)
		}
	}

	code, out, errOut = causeway(t, "cluster", "status", "--dir", dir)
	if code != 0 || !strings.Contains(out, "HEALTH") || !strings.Contains(out, "DATA") || !strings.Contains(out, "iB") || strings.Count(out, " up ") != 6 {
		t.Errorf("cluster status: exit %d, want a table of 6 nodes up with their data sizes:\n%s%s", code, out, errOut)
	}

	// These nodes run without the link controls (no --admin): every one
	// fails, and the JSON says why, node by node.
	code, out, errOut = causeway(t, "cluster", "links", "--dir", dir, "-w", "json")
	var links []linksRecord
	if err := json.Unmarshal([]byte(out), &links); err != nil || code != 1 || len(links) != 6 || !strings.Contains(errOut, "cluster links: 6 of 6 nodes") {
		t.Fatalf("cluster links -w json without link controls: exit %d, %d records (%v)\n%s%s", code, len(links), err, out, errOut)
	}
	for _, l := range links {
		if l.Error == "" {
			t.Errorf("%s: no error reported: %+v", l.Node, l)
		}
	}

	if code, _, errOut := causeway(t, "cluster", "status", "--dir", dir, "-w", "wide"); code != 2 || !strings.Contains(errOut, "cluster status: --write-out") {
		t.Errorf("cluster status -w wide: exit %d, stderr %q; want 2 naming the command", code, errOut)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
