package client

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
)

// fakeConn answers every request with reply (or err) and records requests.
type fakeConn struct {
	reply  func(protocol.Request) protocol.Reply
	err    error
	got    []protocol.Request
	closed int
}

func (c *fakeConn) Do(ctx context.Context, req protocol.Request) (protocol.Reply, error) {
	c.got = append(c.got, req)
	if c.err != nil {
		return protocol.Reply{}, c.err
	}
	return c.reply(req), nil
}

func (c *fakeConn) Close() error { c.closed++; return nil }

func failWith(code protocol.ErrCode) *fakeConn {
	return &fakeConn{reply: func(r protocol.Request) protocol.Reply { return protocol.Reply{Op: r.Op, Err: code} }}
}

func TestGetMapsInitialStateToNotFound(t *testing.T) {
	c := &fakeConn{reply: func(r protocol.Request) protocol.Reply {
		if r.Key == "x" {
			return protocol.Reply{Op: protocol.OpGet, Key: "x", Value: []byte("1")}
		}
		return protocol.Reply{Op: protocol.OpGet, Key: r.Key}
	}}
	s := New(c, "fake", "a")
	v, found, err := s.Get(context.Background(), "x")
	if err != nil || !found || string(v) != "1" {
		t.Fatalf("Get(x) = %q, %v, %v; want 1, true, nil", v, found, err)
	}
	v, found, err = s.Get(context.Background(), "y")
	if err != nil || found || v != nil {
		t.Fatalf("Get(y) = %q, %v, %v; want nil, false, nil", v, found, err)
	}
	want := []protocol.Request{{Op: protocol.OpGet, Key: "x"}, {Op: protocol.OpGet, Key: "y"}}
	if !reflect.DeepEqual(c.got, want) {
		t.Fatalf("requests = %+v, want %+v", c.got, want)
	}
}

func TestTransactionsBuildRequestsAndResults(t *testing.T) {
	c := &fakeConn{reply: func(r protocol.Request) protocol.Reply {
		if r.Op == protocol.OpReadTxn {
			return protocol.Reply{Op: r.Op, Reads: []protocol.KV{{Key: "a", Value: []byte("1")}, {Key: "b"}}}
		}
		return protocol.Reply{Op: r.Op}
	}}
	s := New(c, "fake", "a")
	got, err := s.ReadTxn(context.Background(), "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]byte{"a": []byte("1")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadTxn = %q, want %q (unwritten keys absent)", got, want)
	}
	if err := s.WriteTxn(context.Background(), map[string][]byte{"z": []byte("2"), "a": []byte("1"), "m": []byte("3")}); err != nil {
		t.Fatal(err)
	}
	wantW := []protocol.KV{{Key: "a", Value: []byte("1")}, {Key: "m", Value: []byte("3")}, {Key: "z", Value: []byte("2")}}
	if last := c.got[len(c.got)-1]; last.Op != protocol.OpWriteTxn || !reflect.DeepEqual(last.Writes, wantW) {
		t.Fatalf("write_txn request = %+v, want writes sorted by key %+v", last, wantW)
	}
}

func TestReplyErrorsMapToSentinels(t *testing.T) {
	cases := []struct {
		code protocol.ErrCode
		want error
		text string
	}{
		{protocol.ErrTimeout, ErrTimeout, "read_txn: timed out (protocol cops)"},
		{protocol.ErrUnavailable, ErrUnavailable, "read_txn: unavailable"},
		{protocol.ErrUnsupported, ErrUnsupported, "read_txn: operation not supported by protocol cops"},
	}
	for _, c := range cases {
		t.Run(c.code.String(), func(t *testing.T) {
			s := New(failWith(c.code), "cops", "a")
			_, err := s.ReadTxn(context.Background(), "k")
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want errors.Is %v", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), c.text) {
				t.Fatalf("err = %q, want it to start with %q", err, c.text)
			}
			for _, other := range []error{ErrTimeout, ErrUnavailable, ErrUnsupported} {
				if other != c.want && errors.Is(err, other) {
					t.Fatalf("err = %v also matches %v", err, other)
				}
			}
		})
	}
	err := New(failWith(protocol.ErrUnsupported), "cops", "a").WriteTxn(context.Background(), map[string][]byte{"k": []byte("v")})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "not supported by protocol cops") {
		t.Fatalf("write_txn err = %v", err)
	}
}

func TestContextEndIsTimeout(t *testing.T) {
	c := &fakeConn{err: context.DeadlineExceeded}
	err := New(c, "fake", "a").Put(context.Background(), "k", []byte("v"))
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want both ErrTimeout and context.DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "outcome unknown") {
		t.Errorf("a write's timeout %q does not say its outcome is unknown", err)
	}
	_, _, err = New(c, "fake", "a").Get(context.Background(), "k")
	if !errors.Is(err, ErrTimeout) || strings.Contains(err.Error(), "outcome unknown") {
		t.Errorf("a read's timeout %q: want ErrTimeout, and no unknown outcome", err)
	}
	err = New(failWith(protocol.ErrTimeout), "fake", "a").WriteTxn(context.Background(), map[string][]byte{"k": []byte("v")})
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "outcome unknown") {
		t.Errorf("a write transaction's timeout %q: want ErrTimeout with an unknown outcome", err)
	}
	other := errors.New("link down")
	err = New(&fakeConn{err: other}, "fake", "a").Put(context.Background(), "k", []byte("v"))
	if !errors.Is(err, other) || errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want the transport error and not ErrTimeout", err)
	}
}

func TestEmptyValuesAreRefusedWithoutARoundTrip(t *testing.T) {
	c := failWith(protocol.OK)
	s := New(c, "fake", "a")
	if err := s.Put(context.Background(), "k", nil); !errors.Is(err, ErrEmptyValue) {
		t.Fatalf("Put(nil) err = %v", err)
	}
	if err := s.WriteTxn(context.Background(), map[string][]byte{"k": {}}); !errors.Is(err, ErrEmptyValue) {
		t.Fatalf("WriteTxn(empty) err = %v", err)
	}
	if len(c.got) != 0 {
		t.Fatalf("sent %d requests, want none", len(c.got))
	}
}

func TestMismatchedReplyIsAnError(t *testing.T) {
	c := &fakeConn{reply: func(protocol.Request) protocol.Reply { return protocol.Reply{Op: protocol.OpPut} }}
	if _, _, err := New(c, "fake", "a").Get(context.Background(), "k"); err == nil {
		t.Fatal("a put reply to a get was accepted")
	}
	c = &fakeConn{reply: func(r protocol.Request) protocol.Reply { return protocol.Reply{Op: r.Op} }}
	if _, err := New(c, "fake", "a").ReadTxn(context.Background(), "a", "b"); err == nil {
		t.Fatal("a read_txn reply with no reads was accepted")
	}
}

func TestCloseClosesConnOnceAndRefusesOperations(t *testing.T) {
	c := failWith(protocol.OK)
	s := New(c, "fake", "b")
	if s.DC() != "b" {
		t.Fatalf("DC = %q", s.DC())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if c.closed != 1 {
		t.Fatalf("Conn closed %d times, want 1", c.closed)
	}
	if _, _, err := s.Get(context.Background(), "k"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after Close err = %v", err)
	}
	if len(c.got) != 0 {
		t.Fatalf("sent %d requests after Close", len(c.got))
	}
}
