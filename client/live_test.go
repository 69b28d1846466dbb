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
	defer func() { _ = rt.Stop() }()
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
