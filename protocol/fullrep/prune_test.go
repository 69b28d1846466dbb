package fullrep

import (
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

// recording is the cops protocol, keeping the servers it creates.
type recording struct {
	*Protocol
	servers []*server
}

func (p *recording) NewNode(cfg protocol.NodeConfig) protocol.Node {
	s := newServer(p.mode, cfg)
	p.servers = append(p.servers, s)
	return s
}

// TestCommittedVersionsPruned runs sessions in every DC that read and
// write a small key space, and checks that the committed-version set
// (seen) does not grow with the run: versions every DC has acknowledged
// are pruned (prune.go), so the set at the end of a run four times as
// long is about the same size, far below the versions committed.
func TestCommittedVersionsPruned(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	p := &recording{Protocol: New(Mode{Name: "cops", Causal: true})}
	s, err := sim.New(sim.Config{Topology: topo, Protocol: p, Seed: 1, OpTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	writes := 0
	for _, d := range topo.Datacenters {
		for c := 0; c < 2; c++ {
			id, err := s.AddSession(d.Name, fmt.Sprintf("c%d", c))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			var next func(time.Duration, protocol.Reply)
			next = func(time.Duration, protocol.Reply) {
				n++
				req := protocol.Request{Op: protocol.OpGet, Key: fmt.Sprintf("k%d", (n*7+c)%40)}
				if n%3 == 0 {
					writes++
					req = protocol.Request{Op: protocol.OpPut, Key: fmt.Sprintf("k%d", n%40), Value: []byte(fmt.Sprintf("%s-%d-%d", d.Name, c, n))}
				}
				if err := s.Submit(id, req, next); err != nil {
					t.Fatal(err)
				}
			}
			next(0, protocol.Reply{})
		}
	}
	held := func() int {
		total := 0
		for _, sv := range p.servers {
			total += len(sv.seen)
			q := 0
			for _, h := range sv.seenBy {
				q += len(*h)
			}
			if q != len(sv.seen) {
				t.Fatalf("%s: %d versions in seen, %d in its queues", sv.id, len(sv.seen), q)
			}
		}
		return total
	}
	s.RunUntil(1 * time.Second)
	early, writesEarly := held(), writes
	s.RunUntil(4 * time.Second)
	late := held()
	t.Logf("writes %d -> %d; committed versions held %d -> %d", writesEarly, writes, early, late)
	if writes < 4*writesEarly-100 {
		t.Fatalf("only %d writes in 4 s, %d in 1 s", writes, writesEarly)
	}
	if late > 2*early+50 {
		t.Errorf("committed versions held grew from %d at 1 s to %d at 4 s", early, late)
	}
	// Every write is committed at three servers, and all but the last of
	// each key replaced there: without pruning seen would hold about
	// 3 × writes.
	if late > writes/4 {
		t.Errorf("%d committed versions held after %d writes", late, writes)
	}
}

// TestPrunedVersionsStayCommittedAcrossRestart prunes a version once its
// origin's frontier passes it, then restarts the server from its storage,
// after crashes that lose any suffix of the unsynced writes: a DepCheck
// on the pruned version is still answered at once (from the stored
// frontier, or from the "s/" record if its delete was lost), and one on a
// version never committed still waits.
func TestPrunedVersionsStayCommittedAcrossRestart(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	const origin = 1 // a/s1
	e := uint64(1)<<serverBits | origin
	for seed := uint64(0); seed < 20; seed++ {
		mem := storage.NewMem()
		cfg := protocol.NodeConfig{ID: "c/s0", Topology: topo, Storage: mem}
		s := newServer(Mode{Name: "cops", Causal: true}, cfg)
		step := func(s *server, from protocol.NodeID, body proto.Message) protocol.Ready {
			r := s.Step(0, protocol.Message{From: from, To: s.id, Body: body})
			if err := mem.Apply(r.Persist.Writes, r.Persist.Sync); err != nil {
				t.Fatal(err)
			}
			return r
		}
		step(s, "a/s1", &pb.Replicate{Key: "E", Value: []byte("e1"), Version: e})
		step(s, "a/s1", &pb.Replicate{Key: "E", Value: []byte("e2"), Version: 2<<serverBits | origin, Stable: 1})
		if !s.seen[versionID{"E", e}] {
			t.Fatal("E@1 not in seen before its origin's frontier passed it")
		}
		step(s, "a/s1", &pb.Replicate{Key: "G", Value: []byte("g1"), Version: 3<<serverBits | origin, Stable: 2})
		// E@2 and G@3 are their keys' current versions: committed by
		// their "d/" records, not in seen.
		if s.seen[versionID{"E", e}] || len(s.seen) != 0 {
			t.Fatalf("seen after the frontier passed E@1: %v", s.seen)
		}
		if seed > 0 {
			mem.Crash(sim.NewRand(seed, "crash"))
		}
		s = newServer(Mode{Name: "cops", Causal: true}, cfg)
		r := step(s, "c/s1", &pb.DepCheck{Deps: []*pb.Dep{{Key: "E", Version: e}}})
		if len(r.After.Messages) != 1 {
			t.Fatalf("seed %d: DepCheck on the pruned E@1 after a restart answered %v, want a DepOK", seed, r.After.Messages)
		}
		r = step(s, "c/s1", &pb.DepCheck{Deps: []*pb.Dep{{Key: "E", Version: 9<<serverBits | origin}}})
		if len(r.After.Messages) != 0 {
			t.Fatalf("seed %d: DepCheck on a version never committed answered %v", seed, r.After.Messages)
		}
	}
}

// TestReplacedVersionStaysCommittedAcrossRestart: a key's current version
// is committed by its "d/" record alone; when a newer version replaces it,
// it must be remembered ("s/") unless a stored frontier covers it. Here
// E@1's origin's frontier has passed it only in memory (no version was
// pruned, so no "t/" record was written) when E@3 replaces it: after a
// restart, which forgets that frontier, a DepCheck on E@1 is still
// answered at once.
func TestReplacedVersionStaysCommittedAcrossRestart(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	const origin = 1 // a/s1
	mem := storage.NewMem()
	cfg := protocol.NodeConfig{ID: "c/s0", Topology: topo, Storage: mem}
	step := func(s *server, from protocol.NodeID, body proto.Message) protocol.Ready {
		r := s.Step(0, protocol.Message{From: from, To: s.id, Body: body})
		if err := mem.Apply(r.Persist.Writes, r.Persist.Sync); err != nil {
			t.Fatal(err)
		}
		return r
	}
	s := newServer(Mode{Name: "cops", Causal: true}, cfg)
	e1 := uint64(1)<<serverBits | origin
	step(s, "a/s1", &pb.Replicate{Key: "E", Value: []byte("e1"), Version: e1})
	step(s, "a/s1", &pb.Replicate{Key: "G", Value: []byte("g2"), Version: 2<<serverBits | origin, Stable: 2})
	step(s, "a/s1", &pb.Replicate{Key: "E", Value: []byte("e3"), Version: 3<<serverBits | origin, Stable: 2})
	s = newServer(Mode{Name: "cops", Causal: true}, cfg)
	r := step(s, "c/s1", &pb.DepCheck{Deps: []*pb.Dep{{Key: "E", Version: e1}}})
	if len(r.After.Messages) != 1 {
		t.Fatalf("DepCheck on the replaced E@1 after a restart answered %v, want a DepOK", r.After.Messages)
	}
}
