package chainreaction

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

func tokenTopo(t testing.TB) *topology.Topology {
	t.Helper()
	topo, err := topology.Preset("chainreaction-2dc")
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func lookup(t testing.TB, name string) protocol.Protocol {
	t.Helper()
	p, err := protocol.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTokenCarriesMetadata: a session resumed from a token has the
// token's maxSeen and, pinned and waiting for stabilization, its entries;
// its own token is the same.
func TestTokenCarriesMetadata(t *testing.T) {
	topo := tokenTopo(t)
	for _, name := range []string{Name, NameCops} {
		p := lookup(t, name)
		s := p.NewSession(protocol.SessionConfig{ID: "dc1/alice", Topology: topo}).(*session)
		s.maxSeen = 9 << 20
		s.meta["x"] = entry{version: 7 << 20, chainIndex: 1}
		s.meta["y"] = entry{version: 9 << 20, chainIndex: 3, pinned: true}
		token, err := protocol.SessionToken(p, s)
		if err != nil {
			t.Fatal(err)
		}
		m, err := protocol.ResumeSession(p, protocol.SessionConfig{ID: "dc2/alice", Topology: topo}, token)
		if err != nil {
			t.Fatal(err)
		}
		got := m.(*session)
		if got.maxSeen != s.maxSeen || len(got.resume) != 2 || got.resume["x"] != 7<<20 || got.resume["y"] != 9<<20 ||
			got.meta["x"] != (entry{version: 7 << 20, chainIndex: anyNode, pinned: true}) || got.cops != (name == NameCops) {
			t.Errorf("%s: resumed session: maxSeen %d, resume %v, meta %v", name, got.maxSeen, got.resume, got.meta)
		}
		// In dc2, away from the master: a ViewRequest to it and to a
		// server of dc2.
		if r := got.Start(0); len(r.After.Messages) != 2 {
			t.Errorf("%s: a resumed session starts with %d messages, want its two ViewRequests", name, len(r.After.Messages))
		}
		view := got.c.Layout.InitialView().ToWire()
		r := got.Step(0, protocol.Message{From: got.c.Layout.Master(), To: got.c.ID, Body: view})
		if n := len(r.After.Messages); n != 2 {
			t.Errorf("%s: with the view, a resumed session sends %d messages, want a Stabilize per entry", name, n)
		}
		if !bytes.Equal(got.Token(), token) {
			t.Errorf("%s: the resumed session's token differs", name)
		}
	}
}

// TestResumeRefusesBadState: malformed states and other protocols'
// tokens are refused with ErrBadToken saying why.
func TestResumeRefusesBadState(t *testing.T) {
	topo := tokenTopo(t)
	p := lookup(t, Name)
	cfg := protocol.SessionConfig{ID: "dc2/u", Topology: topo}
	for _, tc := range []struct {
		name, want string
		token      []byte
	}{
		{"cr-cops token", `made by protocol "cr-cops"`, protocol.EncodeToken(NameCops, protocol.EncodeDepsState(tokenState, 0, nil))},
		{"no state", "no session state", protocol.EncodeToken(Name, nil)},
		{"future state", "session state version 2", protocol.EncodeToken(Name, []byte{2, 0, 0})},
		{"version above maxSeen", "impossible version", protocol.EncodeToken(Name, protocol.EncodeDepsState(tokenState, 5, []protocol.TokenDep{{Key: "x", Version: 6}}))},
	} {
		if _, err := protocol.ResumeSession(p, cfg, tc.token); !errors.Is(err, protocol.ErrBadToken) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrBadToken saying %q", tc.name, err, tc.want)
		}
	}
}

// FuzzResumeSession: any token is refused or resumed, never a panic; a
// resumed session's own token resumes it again.
func FuzzResumeSession(f *testing.F) {
	topo := tokenTopo(f)
	p := lookup(f, Name)
	f.Add(protocol.EncodeToken(Name, protocol.EncodeDepsState(tokenState, 9, []protocol.TokenDep{{Key: "x", Version: 3}, {Key: "y", Version: 9}})))
	f.Add(protocol.EncodeToken(Name, []byte{1, 0x80, 0x80, 1, 1, 'b'}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, token []byte) {
		cfg := protocol.SessionConfig{ID: "dc2/u", Topology: topo}
		s, err := protocol.ResumeSession(p, cfg, token)
		if err != nil {
			if !errors.Is(err, protocol.ErrBadToken) {
				t.Fatalf("error not wrapping ErrBadToken: %v", err)
			}
			return
		}
		s.Start(0)
		again, err := protocol.SessionToken(p, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := protocol.ResumeSession(p, cfg, again); err != nil {
			t.Fatalf("the token of a resumed session is refused: %v", err)
		}
	})
}
