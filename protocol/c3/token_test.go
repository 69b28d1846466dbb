package c3

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
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// TestTokenCarriesCurrentDCAndVersion: a session resumed in c from the
// token of a session whose current DC is b starts in b (so its first
// operation migrates it from there) with the same version floor.
func TestTokenCarriesCurrentDCAndVersion(t *testing.T) {
	topo := tokenTopo(t)
	c := newSession(protocol.SessionConfig{ID: "a/alice", Topology: topo})
	c.attach("b")
	c.maxVersion = 1 << 40
	s, err := New().ResumeSession(protocol.SessionConfig{ID: "c/alice", Topology: topo}, c.Token())
	if err != nil {
		t.Fatal(err)
	}
	got := s.(*session)
	if got.home != "c" || got.cur != "b" || got.maxVersion != 1<<40 || got.coord.DC() != "b" {
		t.Errorf("resumed session: home %s, current %s (coordinator %s), maxVersion %d", got.home, got.cur, got.coord, got.maxVersion)
	}
	if !bytes.Equal(got.Token(), c.Token()) {
		t.Errorf("the resumed session's token differs")
	}
}

// TestResumeRefusesBadState: every malformed state is refused with
// ErrBadToken saying why.
func TestResumeRefusesBadState(t *testing.T) {
	topo := tokenTopo(t)
	for _, tc := range []struct {
		name, want string
		state      []byte
	}{
		{"empty", "not c3's version 1", nil},
		{"other version", "not c3's version 1", []byte{2, 0, 1, 'a'}},
		{"no dc", "truncated", []byte{1, 0}},
		{"dc cut short", "truncated", []byte{1, 0, 3, 'a'}},
		{"trailing bytes", "after the session state", []byte{1, 0, 1, 'a', 0}},
		{"unknown dc", `DC "z"`, []byte{1, 0, 1, 'z'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New().ResumeSession(protocol.SessionConfig{ID: "a/u", Topology: topo}, protocol.EncodeToken(Name, tc.state))
			if !errors.Is(err, protocol.ErrBadToken) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ResumeSession: %v; want ErrBadToken saying %q", err, tc.want)
			}
		})
	}
}

// FuzzResumeSession: any token is refused or resumed, never a panic; a
// resumed session's own token resumes it again.
func FuzzResumeSession(f *testing.F) {
	topo := tokenTopo(f)
	f.Add(newSession(protocol.SessionConfig{ID: "a/u", Topology: topo}).Token())
	f.Add(protocol.EncodeToken(Name, []byte{1, 0x80, 0x80, 1, 1, 'b'}))
	f.Fuzz(func(t *testing.T, token []byte) {
		cfg := protocol.SessionConfig{ID: "b/u", Topology: topo}
		s, err := New().ResumeSession(cfg, token)
		if err != nil {
			if !errors.Is(err, protocol.ErrBadToken) {
				t.Fatalf("error not wrapping ErrBadToken: %v", err)
			}
			return
		}
		if _, err := New().ResumeSession(cfg, s.(*session).Token()); err != nil {
			t.Fatalf("a resumed session's token: %v", err)
		}
	})
}
