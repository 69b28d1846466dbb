package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
)

// TestSessionMovesWithToken runs cops, c3, saturn, chainreaction and
// cr-cops with WAN delay: a
// session puts in DC a and moves at once, by token, to a client connection
// in DC c, where the put cannot have arrived yet (a->c is 60 ms one way).
// The resumed session's first read must still return the put: cops's
// waits until c has committed it, c3's and saturn's migrate from a
// (c3.txt §3.5) before reading, chainreaction's and cr-cops's stabilize
// the token's entries in c first.
func TestSessionMovesWithToken(t *testing.T) {
	for _, name := range []string{"cops", "c3", "saturn", "chainreaction", "cr-cops"} {
		t.Run(name, func(t *testing.T) {
			tc := newCluster(t, name)
			tc.cfg.WANDelay = true
			tc.start()
			ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
			defer cancel()

			inA, err := DialWithOptions(tc.cfg, "a", DialOptions{OpTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer inA.Close()
			s, err := inA.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			alice := newKV(s, "a")
			for i, v := range []string{"x1", "x2"} {
				if err := alice.Put(ctx, "x", []byte(v)); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					// x1 reaches c before the move; x2 will not have.
					eventually(ctx, t, tc.session("c", DialOptions{OpTimeout: 2 * time.Second}), "x", "x1")
				}
			}
			token, err := s.Token(ctx)
			if err != nil {
				t.Fatal(err)
			}

			inC, err := DialWithOptions(tc.cfg, "c", DialOptions{OpTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer inC.Close()
			moved, err := inC.ResumeSession(token)
			if err != nil {
				t.Fatal(err)
			}
			if v, found, err := newKV(moved, "c").Get(ctx, "x"); err != nil || !found || string(v) != "x2" {
				t.Fatalf("the moved session's first read in c: %q (found %v, err %v), want its own write x2", v, found, err)
			}
			// The moved session hands out a token of its own, and the old one
			// still works.
			if again, err := moved.Token(ctx); err != nil || len(again) == 0 {
				t.Errorf("token of the moved session: %q, %v", again, err)
			}
			if err := alice.Put(ctx, "y", []byte("y1")); err != nil {
				t.Errorf("the session that moved away is still usable: %v", err)
			}
		})
	}
}

// TestResumeSessionErrors: bad tokens are refused before anything is
// sent, with the protocol's explanation.
func TestResumeSessionErrors(t *testing.T) {
	tc := newCluster(t, "cops")
	conn, err := Dial(tc.cfg, "b")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, token := range [][]byte{nil, []byte("garbage"), protocol.EncodeToken("eventual", []byte{1, 0, 0})} {
		if s, err := conn.ResumeSession(token); !errors.Is(err, protocol.ErrBadToken) {
			t.Errorf("ResumeSession(%q) = %v, %v; want ErrBadToken", token, s, err)
		}
	}

	kc := newCluster(t, "karma")
	kconn, err := Dial(kc.cfg, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer kconn.Close()
	if _, err := kconn.ResumeSession(protocol.EncodeToken("karma", nil)); !errors.Is(err, protocol.ErrBadToken) {
		t.Errorf("ResumeSession on karma with no state: %v, want ErrBadToken", err)
	}
	s, err := kconn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := s.Token(context.Background()); err != nil || len(tok) == 0 {
		t.Errorf("Token on karma: %q, %v", tok, err)
	}
}
