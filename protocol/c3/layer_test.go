package c3

import (
	"math/rand/v2"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/c3pb"
	cpb "github.com/causeway/causeway/wire/cassandrapb"
)

// TestAheadExecutedDrains drives c's layer on local3 by hand: two
// concurrent write labels from a (ids 1 and 2, neither depending on the
// other) execute in parallel; id 2 finishing first waits in
// AheadExecutedOps without moving ExecutedClock[a], and id 1's completion
// drains both (Alg. 1 l.72-80).
func TestAheadExecutedDrains(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	y := newLayer(protocol.NodeConfig{ID: LayerOf("c"), Role: RoleLayer, Incarnation: 1, Topology: topo,
		Rand: rand.New(rand.NewPCG(1, 2))}, New().RF(topo))
	y.Start(0)
	a := y.dcIndex("a")
	from := LayerOf("a")
	executes := 0
	for i, key := range []string{"z", "w"} { // both in pc = [c, a]
		r := y.Step(0, protocol.Message{From: from, To: y.id, Body: &pb.Label{Seq: uint64(i + 1), Id: uint64(i + 1),
			Deps: []uint64{0, 0, 0}, Key: key, Version: uint64(100 + i)}})
		for _, m := range r.After.Messages {
			if _, ok := m.Body.(*cpb.ExecuteWrite); ok {
				executes++
			}
		}
	}
	if executes != 4 || len(y.currentWrites) != 2 {
		t.Fatalf("%d ExecuteWrites sent, %d writes executing; want both writes executing on their 2 replicas", executes, len(y.currentWrites))
	}
	ack := func(key string, version, id uint64) {
		for _, target := range y.currentWrites[layerID(a, id)].targets {
			y.Step(0, protocol.Message{From: target, To: y.id, Body: &cpb.WriteExecuted{Key: key, Version: version, LayerId: layerID(a, id)}})
		}
	}
	ack("w", 101, 2)
	if got := y.executedClock[a]; got != 0 || !y.aheadExecuted[a][2] {
		t.Fatalf("after id 2 finished first: ExecutedClock[a] = %d, ahead = %v; want 0 and {2}", got, y.aheadExecuted[a])
	}
	ack("z", 100, 1)
	if got := y.executedClock[a]; got != 2 || len(y.aheadExecuted[a]) != 0 {
		t.Fatalf("after id 1 finished: ExecutedClock[a] = %d, ahead = %v; want 2 and none", got, y.aheadExecuted[a])
	}
	if err := y.CheckQuiescent(); err != nil {
		t.Error(err)
	}
}
