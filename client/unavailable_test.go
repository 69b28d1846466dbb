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
	"github.com/causeway/causeway/topology"
)

// downCluster saves the cluster.yaml of a cluster of protocol p on local3
// whose nodes were never started: nothing listens at their addresses.
func downCluster(t *testing.T, p string) string {
	t.Helper()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg, err := cluster.Plan(topo, p, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(filepath.Join(dir, cluster.FileName)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDownClusterIsUnavailableNotATimeout: against a cluster whose nodes
// are down, a read and a write fail with ErrUnavailable (the write "not
// applied"), not with ErrTimeout after the operation timeout, and the
// session has ended. The operation timeout is longer than the hang guard,
// so only the fast path can pass.
func TestDownClusterIsUnavailableNotATimeout(t *testing.T) {
	for _, p := range []string{"cops", "karma"} {
		t.Run(p, func(t *testing.T) {
			c, err := client.DialWithOptions(downCluster(t, p), "a", client.DialOptions{OpTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
			defer cancel()

			s, err := c.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = s.Get(ctx, "k")
			if !errors.Is(err, client.ErrUnavailable) || errors.Is(err, client.ErrTimeout) {
				t.Fatalf("get from a down cluster: %v, want ErrUnavailable", err)
			}
			if strings.Contains(err.Error(), "outcome unknown") {
				t.Errorf("a read's error speaks of an unknown outcome: %v", err)
			}
			if err := s.Put(ctx, "k", []byte("v")); !errors.Is(err, client.ErrUnavailable) {
				t.Errorf("put on a session that ended unavailable: %v, want ErrUnavailable", err)
			}

			w, err := c.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			err = w.Put(ctx, "k", []byte("v"))
			if !errors.Is(err, client.ErrUnavailable) || !strings.Contains(err.Error(), "not applied") {
				t.Fatalf("put to a down cluster: %v, want ErrUnavailable, not applied", err)
			}
		})
	}
}

// TestInvalidKeysAreRefusedBeforeSending: a key that is not UTF-8 (which
// a protobuf string cannot carry) is refused at once with ErrInvalidKey,
// even by a session whose cluster is down.
func TestInvalidKeysAreRefusedBeforeSending(t *testing.T) {
	c, err := client.DialWithOptions(downCluster(t, "cops"), "a", client.DialOptions{OpTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()
	bad := "k\xff"
	if _, _, err := s.Get(ctx, bad); !errors.Is(err, client.ErrInvalidKey) || !strings.Contains(err.Error(), `"k\xff"`) {
		t.Errorf("Get: %v, want ErrInvalidKey naming the key", err)
	}
	if err := s.Put(ctx, bad, []byte("v")); !errors.Is(err, client.ErrInvalidKey) {
		t.Errorf("Put: %v, want ErrInvalidKey", err)
	}
	if _, err := s.ReadTxn(ctx, "ok", bad); !errors.Is(err, client.ErrInvalidKey) {
		t.Errorf("ReadTxn: %v, want ErrInvalidKey", err)
	}
	if err := s.WriteTxn(ctx, map[string][]byte{bad: []byte("v")}); !errors.Is(err, client.ErrInvalidKey) {
		t.Errorf("WriteTxn: %v, want ErrInvalidKey", err)
	}
}
