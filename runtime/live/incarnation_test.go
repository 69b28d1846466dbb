package live

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
)

// TestRestartedNodeGetsAHigherIncarnation starts a runtime twice on the
// same storage engines (the second time after a crash of each): every node
// is created with incarnation 1 the first time and 2 the second, and with
// its NodeSpec's role (storage when the spec leaves it empty).
func TestRestartedNodeGetsAHigherIncarnation(t *testing.T) {
	engines := map[protocol.NodeID]*storage.Mem{}
	newStorage := func(id protocol.NodeID) (storage.Engine, error) {
		if engines[id] == nil {
			engines[id] = storage.NewMem()
		}
		return engines[id], nil
	}
	run := func() map[protocol.NodeID]protocol.NodeConfig {
		var mu sync.Mutex
		out := map[protocol.NodeID]protocol.NodeConfig{}
		p := &scripted{onNew: func(_ *scriptNode, cfg protocol.NodeConfig) {
			mu.Lock()
			out[cfg.ID] = cfg
			mu.Unlock()
		}}
		rt := start(t, Config{Protocol: p, NewStorage: newStorage})
		if err := rt.Stop(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	first := run()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, e := range engines {
		e.Crash(rng) // reopens the engine, keeping what was synced
	}
	second := run()
	if len(first) != 3 || len(second) != 3 {
		t.Fatalf("%d then %d nodes created, want 3 each time", len(first), len(second))
	}
	for id, cfg := range first {
		if cfg.Incarnation != 1 || second[id].Incarnation != 2 {
			t.Errorf("%s: incarnations %d then %d, want 1 then 2", id, cfg.Incarnation, second[id].Incarnation)
		}
		if cfg.Role != protocol.RoleStorage {
			t.Errorf("%s: role %q, want %q", id, cfg.Role, protocol.RoleStorage)
		}
	}
}
