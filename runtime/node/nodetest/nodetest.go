// Package nodetest runs a whole live cluster inside a test process, as
// net/http/httptest runs a server: every node of a topology preset on
// loopback with the real transport and Pebble, stopped when the test ends.
package nodetest

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/runtime/node"
	"github.com/causeway/causeway/topology"
)

// Patience bounds every wait of StartLocal: it turns a hang into a
// failure and is never part of an assertion.
const Patience = 30 * time.Second

// StartLocal plans a cluster of protocol p on topology preset topo (WAN
// delay on), saves its cluster.yaml in a temporary directory, runs every
// node in this process until the test ends and waits until each answers
// /healthz. It returns the directory, which `causeway` commands and
// client.Dial accept.
func StartLocal(t testing.TB, topo, p string) string {
	t.Helper()
	tp, err := topology.Preset(topo)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg, err := cluster.Plan(tp, p, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(filepath.Join(dir, cluster.FileName)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, len(cfg.Nodes))
	for _, id := range cfg.NodeIDs() {
		go func() { done <- node.Run(ctx, cfg, id, slog.New(slog.DiscardHandler)) }()
	}
	t.Cleanup(func() {
		cancel()
		for range cfg.Nodes {
			if err := <-done; err != nil {
				t.Errorf("node: %v", err)
			}
		}
	})
	deadline := time.Now().Add(Patience)
	hc := &http.Client{Timeout: time.Second}
	for _, n := range cfg.Nodes {
		for {
			resp, err := hc.Get("http://" + n.HTTP + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s not healthy within %v: %v", n.ID, Patience, err)
			}
			time.Sleep(10 * time.Millisecond) // polling a live process, with a deadline
		}
	}
	return dir
}
