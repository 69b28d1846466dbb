package node_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/node"
	"github.com/causeway/causeway/topology"
)

// TestUnencodableRequestIsNotSentNotLost: a request whose message cannot
// be encoded (a key that is not UTF-8, refused by protobuf) fails at once
// with ErrNotSent instead of being dropped by the transport and waiting
// out the operation timeout (longer than the hang guard here).
func TestUnencodableRequestIsNotSentNotLost(t *testing.T) {
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cluster.Plan(topo, "cops", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cc, err := node.DialWithOptions(cfg, "a", node.DialOptions{OpTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	s, err := cc.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	_, err = s.Do(ctx, protocol.Request{Op: protocol.OpGet, Key: "k\xff"})
	if !errors.Is(err, node.ErrNotSent) {
		t.Fatalf("Do with a key that is not UTF-8: %v, want ErrNotSent", err)
	}
}
