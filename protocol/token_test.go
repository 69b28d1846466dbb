package protocol_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
	_ "github.com/causeway/causeway/protocol/all"
	"github.com/causeway/causeway/topology"
)

func TestTokenEnvelope(t *testing.T) {
	token := protocol.EncodeToken("cops", []byte("state"))
	if got, err := protocol.DecodeToken("cops", token); err != nil || string(got) != "state" {
		t.Fatalf("DecodeToken = %q, %v; want state", got, err)
	}
	for _, tc := range []struct {
		name, protocol, want string
		token                []byte
	}{
		{"other protocol", "eventual", `made by protocol "cops", this store runs "eventual"`, token},
		{"empty", "cops", "empty", nil},
		{"garbage", "cops", "not a Causeway session token", []byte{0, 1, 2, 3}},
		{"magic only", "cops", "not a Causeway session token", []byte("cw")},
		{"newer format", "cops", "format version 2", []byte("cw\x02\x04cops")},
		{"name cut short", "cops", "truncated or damaged header", []byte("cw\x01\x04co")},
		{"no name length", "cops", "truncated or damaged header", []byte("cw\x01")},
		{"absurd name length", "cops", "truncated or damaged header", append([]byte("cw\x01\x7f"), make([]byte, 200)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := protocol.DecodeToken(tc.protocol, tc.token)
			if !errors.Is(err, protocol.ErrBadToken) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DecodeToken: %v; want ErrBadToken saying %q", err, tc.want)
			}
		})
	}
}

// cannotMove lists the registered protocols that do not move sessions by
// token (none, since chainreaction and cr-cops do).
var cannotMove = map[string]bool{}

// stubProtocol is a protocol that cannot move sessions: it wraps another
// one but hides its Resumer.
type stubProtocol struct{ protocol.Protocol }

func (stubProtocol) Name() string { return "stub" }

// TestMoveUnsupported: a protocol without Resumer says so by name, for
// both halves of a move; every registered protocol but those listed in
// cannotMove moves sessions.
func TestMoveUnsupported(t *testing.T) {
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	cops, err := protocol.Lookup("cops")
	if err != nil {
		t.Fatal(err)
	}
	p := stubProtocol{cops}
	cfg := protocol.SessionConfig{ID: "a/u1", Topology: topo}
	const want = "protocol stub does not support moving sessions"
	if _, err := protocol.SessionToken(p, p.NewSession(cfg)); !errors.Is(err, protocol.ErrMoveUnsupported) || err.Error() != want {
		t.Errorf("SessionToken: %v, want %q", err, want)
	}
	if _, err := protocol.ResumeSession(p, cfg, protocol.EncodeToken("stub", nil)); !errors.Is(err, protocol.ErrMoveUnsupported) || err.Error() != want {
		t.Errorf("ResumeSession: %v, want %q", err, want)
	}
	for _, name := range protocol.Names() {
		p, _ := protocol.Lookup(name)
		cfg := protocol.SessionConfig{ID: "a/u1", Topology: topo}
		token, err := protocol.SessionToken(p, p.NewSession(cfg))
		if cannotMove[name] {
			if !errors.Is(err, protocol.ErrMoveUnsupported) {
				t.Errorf("%s: SessionToken = %v, want ErrMoveUnsupported (or take it off cannotMove)", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, err := protocol.ResumeSession(p, protocol.SessionConfig{ID: "b/u1", Topology: topo}, token); err != nil {
			t.Errorf("%s: resume a fresh session's token: %v", name, err)
		}
	}
}
