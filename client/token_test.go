package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
)

// tokenConn is a fakeConn that hands out token (or fails with err).
type tokenConn struct {
	fakeConn
	token []byte
	err   error
}

func (c *tokenConn) Token(context.Context) ([]byte, error) { return c.token, c.err }

func TestTokenEncodesTheProtocolsBytes(t *testing.T) {
	raw := []byte("cw\x01\x04cops\x01\x00\x00\xff")
	s := New(&tokenConn{token: raw}, "cops", "a")
	tok, err := s.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(tok, "+/=\n ") {
		t.Errorf("token %q should be URL-safe base64 without padding", tok)
	}
	back, err := DecodeToken(tok)
	if err != nil || string(back) != string(raw) {
		t.Errorf("DecodeToken(Token) = %q, %v; want the protocol's bytes %q", back, err, raw)
	}
}

func TestTokenErrors(t *testing.T) {
	ctx := context.Background()
	unsupported := fmt.Errorf("wrapped: %w", protocol.ErrMoveUnsupported)
	for _, tc := range []struct {
		name string
		conn Conn
		is   error
		want string
	}{
		{"protocol cannot move", &tokenConn{err: unsupported}, ErrUnsupported, "session token: wrapped: moving sessions is not supported"},
		{"connection cannot move", &fakeConn{}, ErrUnsupported, "cannot move it"},
		{"ctx ended", &tokenConn{err: fmt.Errorf("node: %w", context.DeadlineExceeded)}, ErrTimeout, "session token: timed out"},
		{"session gone", &tokenConn{err: errors.New("node: session closed")}, nil, "session token: node: session closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.conn, "p", "a").Token(ctx)
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Token: %v; want an error wrapping %v saying %q", err, tc.is, tc.want)
			}
		})
	}
	if _, err := New(&tokenConn{err: unsupported}, "p", "a").Token(ctx); !errors.Is(err, protocol.ErrMoveUnsupported) {
		t.Errorf("the protocol's error should stay wrapped too: %v", err)
	}
	s := New(&tokenConn{token: []byte("x")}, "p", "a")
	_ = s.Close()
	if _, err := s.Token(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Token on a closed session: %v, want ErrClosed", err)
	}
}

func TestDecodeTokenRefusesNonBase64(t *testing.T) {
	for _, tok := range []string{"not base64!", "a+b/c", "abc=", "Y3 c"} {
		if _, err := DecodeToken(tok); !errors.Is(err, ErrBadToken) || !errors.Is(err, protocol.ErrBadToken) {
			t.Errorf("DecodeToken(%q) = %v, want ErrBadToken", tok, err)
		}
	}
}

func TestDecodeTokenToleratesSurroundingSpace(t *testing.T) {
	if b, err := DecodeToken(" Y3c\n"); err != nil || string(b) != "cw" {
		t.Errorf("DecodeToken = %q, %v; want cw", b, err)
	}
}
