package saturn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	cpb "github.com/causeway/causeway/wire/cassandrapb"
	pb "github.com/causeway/causeway/wire/saturnpb"
)

// TestLocalWriteWaitsForWritesExecuting drives one serializer of
// c3-azure9 (RF 3, a local quorum of 2) by hand, over the orders that
// matter: a local write labelled while another write is executing here
// starts only once that one has finished at a local quorum (its client
// may have read it at one replica, doc.go Deviations); a remote label
// taken meanwhile starts only once every label before it has finished;
// a local write labelled while it executes waits for it; and a local
// write labelled while nothing executes starts at once.
func TestLocalWriteWaitsForWritesExecuting(t *testing.T) {
	topo, err := topology.Lookup("c3-azure9")
	if err != nil {
		t.Fatal(err)
	}
	dc := topo.DCNames()[0]
	var keys []string // keys replicated in dc
	for i := 0; len(keys) < 4; i++ {
		if k := fmt.Sprintf("k%d", i); slices.Contains(topo.PartitionDCs(k), dc) {
			keys = append(keys, k)
		}
	}
	s := newSerializer(protocol.NodeConfig{ID: SerializerOf(dc), Role: RoleSerializer, Incarnation: 1,
		Topology: topo, Rand: rand.New(rand.NewPCG(1, 2))}, New().RF(topo))
	s.Start(0)
	coord := protocol.MakeNodeID(dc, "s0")
	executes := func(r protocol.Ready) (key string, ids []uint64, targets []protocol.NodeID, done []uint64) {
		for _, m := range r.After.Messages {
			switch b := m.Body.(type) {
			case *cpb.ExecuteWrite:
				key, targets = b.Key, append(targets, m.To)
				if !slices.Contains(ids, b.LayerId) {
					ids = append(ids, b.LayerId)
				}
			case *cpb.LayerDone:
				done = append(done, b.Version)
			}
		}
		return key, ids, targets, done
	}
	write := func(id uint64, key string) protocol.Ready {
		return s.Step(0, protocol.Message{From: coord, To: s.id, Body: &cpb.LayerWrite{Id: id, Key: key, Version: 100 * id}})
	}
	ack := func(key string, version, lid uint64, from protocol.NodeID) protocol.Ready {
		return s.Step(0, protocol.Message{From: from, To: s.id, Body: &cpb.WriteExecuted{Key: key, Version: version, LayerId: lid}})
	}

	key, ids1, targets1, _ := executes(write(1, keys[0]))
	if key != keys[0] || len(targets1) != 3 {
		t.Fatalf("first local write: ExecuteWrite of %q to %v, want %q to its 3 replicas", key, targets1, keys[0])
	}
	if _, ids, _, _ := executes(write(2, keys[1])); len(ids) != 0 {
		t.Fatalf("a local write labelled while another executes started at once")
	}
	nb := s.tr.adj[s.self][0]
	remote := s.Step(0, protocol.Message{From: SerializerOf(s.dcs[nb]), To: s.id,
		Body: &pb.Label{Seq: 1, Origin: s.dcs[nb], Id: 1, Key: keys[2], Version: 250}})
	if _, ids, _, _ := executes(remote); len(ids) != 0 {
		t.Fatalf("a remote write started before the labels before it finished")
	}
	if _, ids, _, done := executes(ack(keys[0], 100, ids1[0], targets1[0])); len(ids) != 0 || len(done) != 0 {
		t.Fatalf("one replica of three: writes %v started, %v done; want none", ids, done)
	}
	key, ids2, targets2, done := executes(ack(keys[0], 100, ids1[0], targets1[1]))
	if key != keys[1] || len(done) != 1 || done[0] != 100 {
		t.Fatalf("at a quorum: ExecuteWrite of %q, LayerDone %v; want %q started and write 1 done", key, done, keys[1])
	}
	ack(keys[1], 200, ids2[0], targets2[0])
	key, ids3, targets3, _ := executes(ack(keys[1], 200, ids2[0], targets2[1]))
	if key != keys[2] {
		t.Fatalf("after write 2 finished: ExecuteWrite of %q, want the remote write of %q", key, keys[2])
	}
	if key, _, _, _ := executes(write(4, keys[3])); key != "" {
		t.Fatalf("a local write labelled while the remote one executes started at once")
	}
	ack(keys[2], 250, ids3[0], targets3[0])
	key, ids4, targets4, _ := executes(ack(keys[2], 250, ids3[0], targets3[1]))
	if key != keys[3] {
		t.Fatalf("after the remote write finished: ExecuteWrite of %q, want write 4's %q", key, keys[3])
	}
	for _, to := range append(targets4, targets3[2], targets2[2], targets1[2]) {
		lid := map[string]uint64{keys[3]: ids4[0], keys[2]: ids3[0], keys[1]: ids2[0], keys[0]: ids1[0]}
		for k, id := range lid {
			ack(k, map[string]uint64{keys[0]: 100, keys[1]: 200, keys[2]: 250, keys[3]: 400}[k], id, to)
		}
	}
	if len(s.executing) != 0 {
		t.Fatalf("%d writes still executing after every target executed them", len(s.executing))
	}
	if key, _, _, _ := executes(write(5, keys[0])); key != keys[0] {
		t.Fatalf("a local write labelled while nothing executes did not start at once")
	}
}
