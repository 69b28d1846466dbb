package c3

import (
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/c3pb"
	cpb "github.com/causeway/causeway/wire/cassandrapb"
)

// TestSessionMigratesAndReportsItsDC drives a session by hand on local3:
// a get of x (pb: b and c) from home a asks a's layer to migrate, runs at
// the DC the MigrateResponse names, reports that DC (Reply.DC) and the
// migration's time (migrate_ms); the next operation on a key a replicates
// (y, pa: a and b) migrates back home first. The cache answers a read
// whose quorum is older than what the session read before, and a
// migration purges it.
func TestSessionMigratesAndReportsItsDC(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	c := newSession(protocol.SessionConfig{ID: "a/alice", Topology: topo, OpTimeout: time.Minute})
	only := func(r protocol.Ready) protocol.Message {
		t.Helper()
		if len(r.After.Messages) != 1 {
			t.Fatalf("want one message, got %v", r.After.Messages)
		}
		return r.After.Messages[0]
	}
	// A migration: ClientMigrate to the current layer, MigrateWatch to
	// the target it will pick (the nearest possible DC), so that the
	// target can answer on the live runtime.
	migrate := func(r protocol.Ready, target string) protocol.Message {
		t.Helper()
		if len(r.After.Messages) != 2 {
			t.Fatalf("want ClientMigrate and MigrateWatch, got %v", r.After.Messages)
		}
		if w, ok := r.After.Messages[1].Body.(*pb.MigrateWatch); !ok || r.After.Messages[1].To != LayerOf(target) || w.MigId == 0 {
			t.Fatalf("second message %v, want a MigrateWatch to %s's layer", r.After.Messages[1], target)
		}
		return r.After.Messages[0]
	}
	m := migrate(c.Submit(0, protocol.Request{Op: protocol.OpGet, Key: "x"}), "b")
	if mig, ok := m.Body.(*pb.ClientMigrate); !ok || m.To != LayerOf("a") {
		t.Fatalf("first message %v to %s, want a ClientMigrate to a's layer", m.Body, m.To)
	} else if len(mig.PossibleDcs) != 2 {
		t.Fatalf("possible DCs %v, want b and c", mig.PossibleDcs)
	}
	m = only(c.Step(30*time.Millisecond, protocol.Message{From: LayerOf("b"), Body: &pb.MigrateResponse{MigId: 1, Dc: "b"}}))
	read, ok := m.Body.(*cpb.ClientRead)
	if !ok || m.To.DC() != "b" {
		t.Fatalf("after migrating: %v to %s, want a ClientRead in b", m.Body, m.To)
	}
	r := c.Step(40*time.Millisecond, protocol.Message{From: m.To, Body: &cpb.ClientReply{ReqId: read.ReqId, Value: []byte("x2"), Version: 20}})
	rep := r.After.Replies[0]
	if rep.DC != "b" || rep.Metrics.Value(MetricMigrate) != 30 || string(rep.Value) != "x2" {
		t.Fatalf("reply %+v, want DC b, migrate_ms 30, x2", rep)
	}
	// A read of x answered by an older quorum: the cache answers.
	m = only(c.Submit(50*time.Millisecond, protocol.Request{Op: protocol.OpGet, Key: "x"}))
	read = m.Body.(*cpb.ClientRead)
	r = c.Step(60*time.Millisecond, protocol.Message{From: m.To, Body: &cpb.ClientReply{ReqId: read.ReqId, Value: []byte("x1"), Version: 10}})
	if rep := r.After.Replies[0]; string(rep.Value) != "x2" || rep.Metrics.Value(MetricMigrate) != 0 {
		t.Fatalf("reply %+v, want the cached x2 and no migration", rep)
	}
	// y is replicated at home: the session migrates back, purging its cache.
	m = migrate(c.Submit(70*time.Millisecond, protocol.Request{Op: protocol.OpGet, Key: "y"}), "a")
	if mig, ok := m.Body.(*pb.ClientMigrate); !ok || m.To != LayerOf("b") || len(mig.PossibleDcs) != 1 || mig.PossibleDcs[0] != "a" {
		t.Fatalf("%v to %s, want a ClientMigrate home to a, via b's layer", m.Body, m.To)
	}
	c.Step(90*time.Millisecond, protocol.Message{From: LayerOf("a"), Body: &pb.MigrateResponse{MigId: 2, Dc: "a"}})
	if c.cur != "a" || len(c.cache) != 0 {
		t.Fatalf("after migrating home: current DC %s, cache %v; want a and empty", c.cur, c.cache)
	}
}
