package karma

import (
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// TestWANRoundsCountSequentialRemoteRounds drives one client coordinator
// of DC a on local3 (rings [a b] and [c]) and answers its ring reads by
// hand: a get answered from b takes one wide-area round, one answered in a
// none; a get-transaction counts each of its rounds that waited for a
// replica outside a — none for keys stored in a, one when the first round
// suffices, two when the second round re-reads a key stored in b, and one
// when it re-reads only a key stored in a.
func TestWANRoundsCountSequentialRemoteRounds(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	local, remote := ringKeys(t, topo, "a", "b")
	c := newCoordinator(New(Mode{Name: "karma-nc"}, Options{}), protocol.NodeConfig{ID: "a/cc0", Topology: topo})
	const session = "a/alice"
	var reqID uint64
	step := func(body proto.Message) []protocol.Message {
		t.Helper()
		return c.Step(time.Second, protocol.Message{From: session, To: c.id, Body: body}).After.Messages
	}
	// answer replies to every RingGet in out with the key's clock
	// interval [evt, lvt] (offsets from the CC's clock at the start) and
	// returns what the CC sends next.
	type interval struct{ evt, lvt uint64 }
	answer := func(base uint64, out []protocol.Message, iv map[string]interval) []protocol.Message {
		t.Helper()
		var next []protocol.Message
		for _, m := range out {
			g, ok := m.Body.(*pb.RingGet)
			if !ok {
				continue
			}
			i := iv[g.Key]
			next = append(next, c.Step(time.Second, protocol.Message{From: m.To, To: c.id, Body: &pb.RingGetReply{
				ReqId: g.ReqId, Key: g.Key, Ring: 0, Evt: base + i.evt, Clock: base + i.lvt}}).After.Messages...)
		}
		return next
	}
	// run submits body and answers rounds until the CC replies to the
	// session.
	run := func(body proto.Message, iv map[string]interval) *pb.ClientReply {
		t.Helper()
		base := c.lc.now
		out := step(body)
		for range 3 {
			for _, m := range out {
				if rep, ok := m.Body.(*pb.ClientReply); ok {
					return rep
				}
			}
			out = answer(base, out, iv)
		}
		t.Fatalf("%v: no reply after three rounds", body)
		return nil
	}
	get := func(key string) *pb.ClientReply {
		reqID++
		return run(&pb.ClientGet{ReqId: reqID, Session: session, Key: key}, map[string]interval{key: {10, 20}})
	}
	txn := func(iv map[string]interval, keys ...string) *pb.ClientReply {
		reqID++
		return run(&pb.ClientTxn{ReqId: reqID, Session: session, Keys: keys}, iv)
	}
	for _, tc := range []struct {
		name   string
		rep    func() *pb.ClientReply
		rounds uint32
	}{
		{"get answered in a", func() *pb.ClientReply { return get(local) }, 0},
		{"get answered in b", func() *pb.ClientReply { return get(remote) }, 1},
		{"txn of a key in a", func() *pb.ClientReply {
			return txn(map[string]interval{local: {10, 20}}, local)
		}, 0},
		{"txn in one round", func() *pb.ClientReply {
			return txn(map[string]interval{local: {10, 20}, remote: {10, 20}}, local, remote)
		}, 1},
		{"txn re-reading the key in b", func() *pb.ClientReply {
			return txn(map[string]interval{local: {30, 40}, remote: {10, 20}}, local, remote)
		}, 2},
		{"txn re-reading the key in a", func() *pb.ClientReply {
			return txn(map[string]interval{local: {10, 20}, remote: {30, 40}}, local, remote)
		}, 1},
	} {
		rep := tc.rep()
		if rep.WanRounds != tc.rounds || rep.WideArea != (tc.rounds > 0) {
			t.Errorf("%s: wan_rounds %d, wide_area %v; want %d, %v", tc.name, rep.WanRounds, rep.WideArea, tc.rounds, tc.rounds > 0)
		}
	}
}

// ringKeys returns a key whose ring-0 replica is in DC local and one whose
// ring-0 replica is in DC remote.
func ringKeys(t *testing.T, topo *topology.Topology, local, remote string) (string, string) {
	t.Helper()
	found := map[string]string{}
	for i := 0; i < 1000 && len(found) < 2; i++ {
		k := fmt.Sprintf("k%d", i)
		if dc, _ := topo.RingReplica(0, k); found[dc] == "" {
			found[dc] = k
		}
	}
	if found[local] == "" || found[remote] == "" {
		t.Fatalf("no keys stored in ring 0 at %s and %s: %v", local, remote, found)
	}
	return found[local], found[remote]
}

// TestSessionDerivesWideAreaFromWANRounds checks that a session's reply
// carries the CC's wan_rounds as the metric and WideArea as wan_rounds > 0,
// whatever the CC's wide_area says.
func TestSessionDerivesWideAreaFromWANRounds(t *testing.T) {
	for _, n := range []uint32{0, 1, 2} {
		s := &session{id: "a/alice", cc: "a/cc0"}
		s.Submit(0, protocol.Request{Op: protocol.OpReadTxn, Keys: []string{"x"}})
		r := s.Step(0, protocol.Message{From: s.cc, To: s.id, Body: &pb.ClientReply{ReqId: s.reqID, WanRounds: n,
			WideArea: n == 0, Reads: []*pb.TxnRead{{}}}})
		if len(r.After.Replies) != 1 {
			t.Fatalf("wan_rounds %d: %d replies", n, len(r.After.Replies))
		}
		rep := r.After.Replies[0]
		if got, ok := rep.Metrics.Get(protocol.MetricWANRounds); !ok || got != float64(n) || rep.WideArea != (n > 0) {
			t.Errorf("wan_rounds %d: metric %v (present %v), WideArea %v", n, got, ok, rep.WideArea)
		}
	}
}
