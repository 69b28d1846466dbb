package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLateFaultEventsAreWarned: a fault event at or after the end of the
// run never happens, and sim says so on stderr, naming the event; events
// within the run draw no warning.
func TestLateFaultEventsAreWarned(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "faults.yaml")
	schedule := "- {at: 100ms, crash: \"node:a/s0\"}\n- {at: 150ms, restart: \"node:a/s0\"}\n- {at: 10s, crash: \"dc:c\"}\n"
	if err := os.WriteFile(file, []byte(schedule), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := causeway(t, "sim", "--protocol", "cops", "--topology", "local3", "--duration", "300ms", "--clients", "3", "--faults", file)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var warnings []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "warning") {
			warnings = append(warnings, l)
		}
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "causeway: sim: warning: the fault event at 10s ") || !strings.Contains(warnings[0], "dc:c") {
		t.Errorf("warnings %q, want one naming the event at 10s (crash dc:c)", warnings)
	}
}

// TestDemoRefusesAProtocolItCannotRunBeforeRunning: a ring protocol on a
// topology with a DC in no ring is refused before the first protocol
// runs (nothing on stdout), naming the DC.
func TestDemoRefusesAProtocolItCannotRunBeforeRunning(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ringless.yaml")
	topo := `name: ringless-c
datacenters:
  - {name: a, servers: 1}
  - {name: b, servers: 1}
  - {name: c, servers: 1}
rtt_ms: {a-b: 40, a-c: 120, b-c: 90}
placement:
  rings: [[a], [b]]
`
	if err := os.WriteFile(file, []byte(topo), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := causeway(t, "demo", "--protocols", "cops,karma", "--topology", file)
	if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "causeway: demo: protocol karma cannot run on topology ringless-c") || !strings.Contains(stderr, "datacenter c ") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 before any run, naming karma and DC c", code, stdout, stderr)
	}
}
