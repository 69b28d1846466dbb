package node

import (
	"os"
	"strings"
	"testing"
)

// TestEveryMetricIsDocumented fails when a causeway_ metric a node
// exports is not in the table of docs/formats/metrics.md, or the table
// lists one the node does not export.
func TestEveryMetricIsDocumented(t *testing.T) {
	page, err := os.ReadFile("../../docs/formats/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(string(page), "\n") {
		if name, ok := strings.CutPrefix(line, "| `causeway_"); ok {
			name, _, _ = strings.Cut(name, "`")
			documented["causeway_"+name] = true
		}
	}
	m := newMetrics("a/s0", func() float64 { return 0 }, func() float64 { return 0 })
	m.received.vec.WithLabelValues("x").Inc()
	m.sent.vec.WithLabelValues("x").Inc()
	m.batches.WithLabelValues("true").Inc()
	m.registerDisk("a/s0", func() float64 { return 0 })
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "causeway_") {
			exported[f.GetName()] = true
			if !documented[f.GetName()] {
				t.Errorf("metric %s is not documented in docs/formats/metrics.md", f.GetName())
			}
		}
	}
	if len(exported) == 0 {
		t.Fatal("no causeway_ metric gathered")
	}
	for name := range documented {
		if !exported[name] {
			t.Errorf("docs/formats/metrics.md lists %s, which a node does not export", name)
		}
	}
}
