package client_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/client"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/node/nodetest"
	"github.com/causeway/causeway/topology"
)

// patience bounds every wait of these tests: it turns a hang into a
// failure and is never part of an assertion.
const patience = 30 * time.Second

// TestDialAndMoveAcrossDCs runs a cops cluster with WAN delay (a->c is 60
// ms one way) and uses it only through the public API: a session in a
// writes x twice, the first write is seen in c, then the session moves
// to c by token right after the second write, and its first read there
// returns that write, not the first.
func TestDialAndMoveAcrossDCs(t *testing.T) {
	dir := nodetest.StartLocal(t, "local3", "cops")
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()

	a, err := client.Dial(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.DC() != "a" || a.Protocol() != "cops" {
		t.Errorf("DC %q protocol %q", a.DC(), a.Protocol())
	}
	alice, err := a.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(filepath.Join(dir, cluster.FileName), "c")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bob, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for {
		v, _, err := bob.Get(ctx, "x")
		if err == nil && string(v) == "x1" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("x1 never reached c: %q %v", v, err)
		}
	}
	if err := alice.Put(ctx, "x", []byte("x2")); err != nil {
		t.Fatal(err)
	}
	token, err := alice.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	moved, err := client.Resume(dir, "c", token)
	if err != nil {
		t.Fatal(err)
	}
	if v, found, err := moved.Get(ctx, "x"); err != nil || !found || string(v) != "x2" {
		t.Fatalf("the moved session's first read in c: %q (found %v, err %v), want its own write x2", v, found, err)
	}
	if err := moved.Close(); err != nil {
		t.Errorf("close: %v", err)
	}

	// Transactions are not implemented by cops.
	if _, err := bob.ReadTxn(ctx, "x", "y"); !errors.Is(err, client.ErrUnsupported) || !strings.Contains(err.Error(), "not supported by protocol cops") {
		t.Errorf("ReadTxn: %v", err)
	}
	if err := bob.WriteTxn(ctx, map[string][]byte{"x": []byte("x3")}); !errors.Is(err, client.ErrUnsupported) {
		t.Errorf("WriteTxn: %v", err)
	}

	// Bad tokens are refused before anything is sent.
	for _, bad := range []string{"", "%%%", client.EncodeToken([]byte("garbage")), client.EncodeToken(protocol.EncodeToken("eventual", []byte{1, 0, 0}))} {
		if s, err := c.Resume(bad); !errors.Is(err, client.ErrBadToken) {
			t.Errorf("Resume(%q) = %v, %v; want ErrBadToken", bad, s, err)
		}
	}
}

// TestDialErrors: a missing cluster file or datacenter is named.
func TestDialErrors(t *testing.T) {
	if _, err := client.Dial(filepath.Join(t.TempDir(), "nothing"), "a"); err == nil || !strings.Contains(err.Error(), "nothing") {
		t.Errorf("Dial of a missing file: %v", err)
	}
	topo, _ := topology.Preset("local3")
	dir := t.TempDir()
	cfg, err := cluster.Plan(topo, "karma", dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(filepath.Join(dir, cluster.FileName)); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Dial(dir, "mars"); err == nil || !strings.Contains(err.Error(), `"mars"`) {
		t.Errorf("Dial of an unknown DC: %v", err)
	}
	// Karma moves sessions too; a token without its state is refused.
	k, err := client.Dial(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if _, err := k.Resume(client.EncodeToken(protocol.EncodeToken("karma", nil))); !errors.Is(err, client.ErrBadToken) {
		t.Errorf("Resume on karma with no state: %v, want ErrBadToken", err)
	}
}
