package fullrep_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	_ "github.com/causeway/causeway/protocol/all"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
)

func lookup(t testing.TB, name string) protocol.Protocol {
	t.Helper()
	p, err := protocol.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func local3(t testing.TB) *topology.Topology {
	t.Helper()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// state builds the session state of a cops token by hand: maxVersion,
// then the dependencies.
func state(stateVersion byte, maxVersion uint64, deps ...any) []byte {
	b := []byte{stateVersion}
	b = binary.AppendUvarint(b, maxVersion)
	b = binary.AppendUvarint(b, uint64(len(deps)/2))
	for i := 0; i+1 < len(deps); i += 2 {
		k := deps[i].(string)
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.AppendUvarint(b, deps[i+1].(uint64))
	}
	return b
}

// tokenWithDeps runs a cops session in the simulator (a put and a get in
// DC a) and returns its token.
func tokenWithDeps(t testing.TB) []byte {
	t.Helper()
	s, err := sim.New(sim.Config{Topology: local3(t), Protocol: lookup(t, "cops"), Seed: 1, Jitter: -1})
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.AddSession("a", "alice")
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []protocol.Request{
		{Op: protocol.OpPut, Key: "x", Value: []byte("x1")},
		{Op: protocol.OpGet, Key: "y"},
		{Op: protocol.OpPut, Key: "y", Value: []byte("y1")},
		{Op: protocol.OpGet, Key: "x"},
	} {
		done := false
		if err := s.Submit(id, req, func(time.Duration, protocol.Reply) { done = true }); err != nil {
			t.Fatal(err)
		}
		// 10 ms, less than a round trip to c (120 ms): x is not yet
		// committed in every DC when it is read, so it is a dependency.
		s.RunUntil(s.Now() + 10*time.Millisecond)
		if !done {
			t.Fatalf("%v did not complete", req.Op)
		}
	}
	token, err := s.SessionToken(id)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

func resume(p protocol.Protocol, topo *topology.Topology, token []byte) (protocol.Session, error) {
	return protocol.ResumeSession(p, protocol.SessionConfig{ID: "c/moved", Topology: topo, OpTimeout: time.Second}, token)
}

// TestTokenRoundTrip: a resumed session hands out the token it was made
// from, and that token names the session's dependencies.
func TestTokenRoundTrip(t *testing.T) {
	cops := lookup(t, "cops")
	token := tokenWithDeps(t)
	s, err := resume(cops, local3(t), token)
	if err != nil {
		t.Fatal(err)
	}
	again, err := protocol.SessionToken(cops, s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, token) {
		t.Errorf("a resumed session's token differs from the one it was made from:\n%x\n%x", again, token)
	}
	// After put y and get x the nearest dependencies are y (the put) and
	// x (read since): both keys are in the token.
	if !bytes.Contains(token, []byte("x")) || !bytes.Contains(token, []byte("y")) {
		t.Errorf("token %q should name keys x and y", token)
	}
	// The resumed session starts by checking each dependency in its DC.
	r := s.Start(0)
	checks := 0
	for _, m := range r.After.Messages {
		if m.To.DC() != "c" {
			t.Errorf("a session resumed in c sent %T to %s", m.Body, m.To)
		}
		checks++
	}
	if checks != 2 || len(r.After.Timers) == 0 {
		t.Errorf("resumed session sent %d dependency checks and set %d timers; want 2 and a resend timer", checks, len(r.After.Timers))
	}
}

// TestTokenDecodeErrors feeds damaged, foreign and garbage tokens to
// ResumeSession: each is refused with an error wrapping
// protocol.ErrBadToken that says what is wrong, and nothing panics.
func TestTokenDecodeErrors(t *testing.T) {
	cops, topo := lookup(t, "cops"), local3(t)
	good := tokenWithDeps(t)
	eventualToken, err := protocol.SessionToken(lookup(t, "eventual"), lookup(t, "eventual").NewSession(
		protocol.SessionConfig{ID: "a/e", Topology: topo}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		token      []byte
	}{
		{"nil", "empty", nil},
		{"empty", "empty", []byte{}},
		{"garbage", "not a Causeway session token", []byte("hello, world")},
		{"base64 text instead of bytes", "not a Causeway session token", []byte("Y3cBBGNvcHM")},
		{"future envelope", "format version 9, this build reads version 1", []byte("cw\x09\x04cops\x01")},
		{"other protocol", `made by protocol "eventual", this store runs "cops"`, eventualToken},
		{"damaged name length", "truncated or damaged header", []byte("cw\x01\xff\xff\xff")},
		{"no state", "no session state", protocol.EncodeToken("cops", nil)},
		{"future state", "session state version 2, this build reads version 1", protocol.EncodeToken("cops", state(2, 5))},
		{"state without deps count", "truncated or damaged session state", protocol.EncodeToken("cops", []byte{1, 5})},
		{"huge deps count", "truncated or damaged session state", protocol.EncodeToken("cops", []byte{1, 5, 0xff, 0xff, 0xff, 0x0f, 1, 'x', 1})},
		{"dep version 0", `dependency 1 (key "x") has an impossible version`, protocol.EncodeToken("cops", state(1, 5, "x", uint64(0)))},
		{"dep above max version", `dependency 2 (key "y") has an impossible version`, protocol.EncodeToken("cops", state(1, 5, "x", uint64(3), "y", uint64(6)))},
		{"trailing bytes", "3 bytes of garbage after the session state", append(protocol.EncodeToken("cops", state(1, 5, "x", uint64(3))), 1, 2, 3)},
		{"truncated", "truncated or damaged", good[:len(good)-2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resume(cops, topo, tc.token)
			if !errors.Is(err, protocol.ErrBadToken) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ResumeSession: %v; want ErrBadToken saying %q", err, tc.want)
			}
		})
	}
	// Every prefix of a good token is refused (the whole token is not).
	for i := range good {
		if _, err := resume(cops, topo, good[:i]); !errors.Is(err, protocol.ErrBadToken) {
			t.Errorf("prefix of %d of %d bytes: %v, want ErrBadToken", i, len(good), err)
		}
	}
	if _, err := resume(cops, topo, good); err != nil {
		t.Errorf("the whole token: %v", err)
	}
}

// FuzzResumeSession: no input makes ResumeSession panic; whatever it
// accepts it hands back unchanged as the resumed session's token.
func FuzzResumeSession(f *testing.F) {
	f.Add(tokenWithDeps(f))
	f.Add([]byte("cw\x01\x04cops\x01\x00\x00"))
	f.Add([]byte{})
	cops, topo := lookup(f, "cops"), local3(f)
	f.Fuzz(func(t *testing.T, token []byte) {
		s, err := resume(cops, topo, token)
		if err != nil {
			if !errors.Is(err, protocol.ErrBadToken) {
				t.Fatalf("error not wrapping ErrBadToken: %v", err)
			}
			return
		}
		again, err := protocol.SessionToken(cops, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := resume(cops, topo, again); err != nil {
			t.Fatalf("the token of a resumed session is refused: %v", err)
		}
	})
}
