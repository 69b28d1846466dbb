package c3_test

import (
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/c3"
	"github.com/causeway/causeway/runtime/sim"
)

// TestDefaultCostModelPricesTheLayer checks that the default cost model
// names RoleLayer (it spells the role out rather than import this
// package) and prices it below a storage node: the layer does in-memory
// metadata work per label (c3.txt §3.2).
func TestDefaultCostModelPricesTheLayer(t *testing.T) {
	m := sim.DefaultCostModel()
	storage := m.Scale(protocol.RoleStorage, 0)
	f, ok := m.Roles[c3.RoleLayer]
	if !ok || f >= storage {
		t.Errorf("default cost of role %q: %v (listed %v), want below a storage node's %v", c3.RoleLayer, f, ok, storage)
	}
}
