package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/causeway/causeway/client"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/topology"
)

// plannedCOPS plans a cops cluster on local3 (no node runs: taking a
// token and resuming from one are local) with cluster ID id.
func plannedCOPS(t *testing.T, id string) *cluster.Config {
	t.Helper()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cluster.Plan(topo, "cops", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ID = id
	return cfg
}

// tokenOn returns the token of a new session in DC a of cfg's cluster.
func tokenOn(t *testing.T, cfg *cluster.Config) string {
	t.Helper()
	c, err := client.DialConfig(cfg, "a", client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()
	tok, err := s.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// resumeOn resumes token in DC c of cfg's cluster.
func resumeOn(t *testing.T, cfg *cluster.Config, token string) error {
	t.Helper()
	c, err := client.DialConfig(cfg, "c", client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Resume(token)
	if err == nil {
		s.Close()
	}
	return err
}

// TestTokensCarryTheClusterID: a token is refused by another cluster,
// naming both, and accepted by its own; tokens of a cluster file without
// an ID (older files) are accepted anywhere, as before.
func TestTokensCarryTheClusterID(t *testing.T) {
	one, other, none := plannedCOPS(t, "cluster-one"), plannedCOPS(t, "cluster-two"), plannedCOPS(t, "")
	tok := tokenOn(t, one)
	err := resumeOn(t, other, tok)
	if !errors.Is(err, client.ErrBadToken) || !strings.Contains(err.Error(), "cluster-one") || !strings.Contains(err.Error(), "cluster-two") {
		t.Errorf("another cluster's token: %v, want ErrBadToken naming both clusters", err)
	}
	if err := resumeOn(t, one, tok); err != nil {
		t.Errorf("the cluster's own token: %v", err)
	}
	if err := resumeOn(t, none, tok); err != nil {
		t.Errorf("a token with an ID on a cluster without one: %v", err)
	}
	if err := resumeOn(t, one, tokenOn(t, none)); err != nil {
		t.Errorf("a token without an ID: %v", err)
	}
	damaged := client.EncodeToken([]byte("cwC\x01\x09short"))
	if err := resumeOn(t, one, damaged); !errors.Is(err, client.ErrBadToken) {
		t.Errorf("a damaged cluster envelope: %v, want ErrBadToken", err)
	}
}
