package all

import (
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// TestEveryNodeHasARole: every registered protocol names the role of every
// node it runs, on every preset it can run on, so that runtimes, the cost
// model and fault schedules never need to parse node names.
func TestEveryNodeHasARole(t *testing.T) {
	for _, name := range protocol.Names() {
		p, err := protocol.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		ran := 0
		for _, preset := range topology.Presets() {
			topo, err := topology.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			if p.Validate(topo) != nil {
				continue
			}
			ran++
			specs := p.Nodes(topo)
			for _, s := range specs {
				if s.Role == "" {
					t.Errorf("%s on %s: node %s has no role", name, preset, s.ID)
				}
				if got, ok := protocol.FindNode(specs, s.ID); !ok || got != s {
					t.Errorf("%s on %s: FindNode(%s) = %+v, %v", name, preset, s.ID, got, ok)
				}
			}
			if _, ok := protocol.FindNode(specs, "nowhere/x"); ok {
				t.Errorf("%s on %s: FindNode found a node it does not run", name, preset)
			}
		}
		if ran == 0 {
			t.Errorf("%s runs on no preset", name)
		}
	}
}
