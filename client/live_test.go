package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/causeway/causeway/client"
	"github.com/causeway/causeway/protocol"
	_ "github.com/causeway/causeway/protocol/all"
	"github.com/causeway/causeway/runtime/live"
	"github.com/causeway/causeway/topology"
)

// TestCOPSOverTheLiveRuntime runs the real cops protocol in the live
// runtime through the public API: a put in DC a becomes visible in DC c once
// replication is done, and transactions answer ErrUnsupported.
func TestCOPSOverTheLiveRuntime(t *testing.T) {
	rt, p := startLiveCOPS(t)
	session := func(dc, name string) *client.Session {
		conn, err := rt.NewSession(dc, name)
		if err != nil {
			t.Fatal(err)
		}
		return client.New(conn, p.Name(), dc)
	}
	alice, bob := session("a", "alice"), session("c", "bob")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard, not an assertion
	defer cancel()

	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatal(err)
	}
	if err := alice.Put(ctx, "y", []byte("y1")); err != nil {
		t.Fatal(err)
	}
	if v, found, err := alice.Get(ctx, "y"); err != nil || !found || string(v) != "y1" {
		t.Fatalf("alice reads her own write: %q %v %v", v, found, err)
	}
	if err := rt.Quiesce(ctx, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"y", "x"} {
		if v, found, err := bob.Get(ctx, key); err != nil || !found || string(v) != key+"1" {
			t.Errorf("bob in c reads %s = %q (found %v, err %v) after replication, want %s1", key, v, found, err, key)
		}
	}
	if _, err := bob.ReadTxn(ctx, "x", "y"); !errors.Is(err, client.ErrUnsupported) {
		t.Errorf("ReadTxn on cops: %v, want ErrUnsupported", err)
	}
}

var _ client.TokenConn = (*live.Session)(nil)

// TestSessionMovesOverTheLiveRuntime: in the live runtime (which injects
// the topology's WAN delay, 60 ms one way from a to c), a cops session
// puts in a and moves at once by token to c, where its first read returns
// its own write.
func TestSessionMovesOverTheLiveRuntime(t *testing.T) {
	rt, p := startLiveCOPS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard, not an assertion
	defer cancel()
	conn, err := rt.NewSession("a", "alice")
	if err != nil {
		t.Fatal(err)
	}
	alice := client.New(conn, p.Name(), "a")
	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatal(err)
	}
	token, err := alice.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := client.DecodeToken(token)
	if err != nil {
		t.Fatal(err)
	}
	moved, err := rt.ResumeSession("c", "alice.1", raw)
	if err != nil {
		t.Fatal(err)
	}
	alice2 := client.New(moved, p.Name(), "c")
	if v, found, err := alice2.Get(ctx, "x"); err != nil || !found || string(v) != "x1" {
		t.Fatalf("the moved session's first read in c: %q (found %v, err %v), want its own write x1", v, found, err)
	}
	if _, err := rt.ResumeSession("c", "alice.2", []byte("garbage")); !errors.Is(err, client.ErrBadToken) {
		t.Errorf("resume from garbage: %v, want ErrBadToken", err)
	}
}

// startLiveCOPS starts cops on local3 in the live runtime (without
// jitter), stopped when the test ends.
func startLiveCOPS(t *testing.T) (*live.Runtime, protocol.Protocol) {
	t.Helper()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	p, err := protocol.Lookup("cops")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := live.Start(live.Config{Topology: topo, Protocol: p, Jitter: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Stop() })
	return rt, p
}
