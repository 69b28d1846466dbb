// Package client is Causeway's public Go API: a causal+ session with Get,
// Put, ReadTxn and WriteTxn over a connection to one datacenter (DC).
//
// A Session is one client thread of the papers: its operations happen one
// after another, and everything it reads or writes is in the causal past of
// what it does next, whichever protocol the store runs. A Session talks to
// the store through a Conn — today a *live.Session of the in-process live
// runtime (runtime/live), later a gRPC connection to a live cluster.
//
//	rt, _ := live.Start(live.Config{Topology: topo, Protocol: p})
//	defer rt.Stop()
//	conn, _ := rt.NewSession("a", "alice")
//	s := client.New(conn, p.Name(), "a")
//	defer s.Close()
//	if err := s.Put(ctx, "user42", []byte("hello")); err != nil { … }
//	v, found, err := s.Get(ctx, "user42")
//
// Errors a program can act on are ErrTimeout (the outcome is unknown: a
// write may or may not have taken effect; this includes ctx ending before
// the reply), ErrUnavailable (no replica could be reached; a write did not
// take effect) and ErrUnsupported (the protocol does not implement the
// operation, e.g. transactions). Test for them with errors.Is; the message
// says which operation failed and why.
package client

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/causeway/causeway/protocol"
)

// Conn carries a session's operations to the store. Do runs one operation
// and waits for its reply; it returns an error (wrapping ctx.Err() when ctx
// ended first, in which case the outcome is unknown) only when it got no
// reply. *live.Session implements Conn.
type Conn interface {
	Do(ctx context.Context, req protocol.Request) (protocol.Reply, error)
	Close() error
}

var (
	// ErrTimeout means the operation did not complete in time; a write may
	// or may not have taken effect.
	ErrTimeout = errors.New("timed out, outcome unknown")
	// ErrUnavailable means no replica could be reached; a write did not
	// take effect.
	ErrUnavailable = errors.New("unavailable")
	// ErrUnsupported means the protocol does not implement the operation.
	ErrUnsupported = errors.New("operation not supported")
	// ErrClosed is returned by operations on a closed Session.
	ErrClosed = errors.New("session closed")
	// ErrEmptyValue is returned when writing an empty value: a read could
	// not tell it from a key that was never written.
	ErrEmptyValue = errors.New("empty value (reads cannot tell it from a missing key)")
)

// Session is a client session in one datacenter. Its methods may be called
// from several goroutines, but the operations run one at a time, in the
// order the Conn takes them.
type Session struct {
	conn     Conn
	protocol string
	dc       string
	closed   atomic.Bool
}

// New wraps conn, a connection to datacenter dc of a store running the
// protocol called protocolName (used in error messages).
func New(conn Conn, protocolName, dc string) *Session {
	return &Session{conn: conn, protocol: protocolName, dc: dc}
}

// DC returns the session's datacenter.
func (s *Session) DC() string { return s.dc }

// Protocol returns the name of the protocol the store runs.
func (s *Session) Protocol() string { return s.protocol }

// Get reads key. found is false when key has never been written.
func (s *Session) Get(ctx context.Context, key string) (value []byte, found bool, err error) {
	rep, err := s.do(ctx, protocol.Request{Op: protocol.OpGet, Key: key}, fmt.Sprintf("get %q", key))
	if err != nil {
		return nil, false, err
	}
	return rep.Value, rep.Value != nil, nil
}

// Put writes value to key. value must not be empty.
func (s *Session) Put(ctx context.Context, key string, value []byte) error {
	what := fmt.Sprintf("put %q", key)
	if len(value) == 0 {
		return fmt.Errorf("%s: %w", what, ErrEmptyValue)
	}
	_, err := s.do(ctx, protocol.Request{Op: protocol.OpPut, Key: key, Value: value}, what)
	return err
}

// ReadTxn reads keys from one causal snapshot. Keys that have never been
// written are absent from the result.
func (s *Session) ReadTxn(ctx context.Context, keys ...string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	const what = "read_txn"
	rep, err := s.do(ctx, protocol.Request{Op: protocol.OpReadTxn, Keys: keys}, what)
	if err != nil {
		return nil, err
	}
	if len(rep.Reads) != len(keys) {
		return nil, fmt.Errorf("%s: protocol %s answered %d reads for %d keys", what, s.protocol, len(rep.Reads), len(keys))
	}
	for _, kv := range rep.Reads {
		if kv.Value != nil {
			out[kv.Key] = kv.Value
		}
	}
	return out, nil
}

// WriteTxn writes every key of writes atomically: a ReadTxn sees all of
// them or none. No value may be empty.
func (s *Session) WriteTxn(ctx context.Context, writes map[string][]byte) error {
	const what = "write_txn"
	if len(writes) == 0 {
		return nil
	}
	kvs := make([]protocol.KV, 0, len(writes))
	for k, v := range writes {
		if len(v) == 0 {
			return fmt.Errorf("%s: key %q: %w", what, k, ErrEmptyValue)
		}
		kvs = append(kvs, protocol.KV{Key: k, Value: v})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].Key < kvs[j].Key })
	_, err := s.do(ctx, protocol.Request{Op: protocol.OpWriteTxn, Writes: kvs}, what)
	return err
}

// Close closes the session and its Conn.
func (s *Session) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.conn.Close()
}

// do runs req and turns a failed reply into an error that says what
// failed (what) and wraps one of the package's sentinel errors.
func (s *Session) do(ctx context.Context, req protocol.Request, what string) (protocol.Reply, error) {
	if s.closed.Load() {
		return protocol.Reply{}, fmt.Errorf("%s: %w", what, ErrClosed)
	}
	rep, err := s.conn.Do(ctx, req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return protocol.Reply{}, fmt.Errorf("%s: %w: %w", what, ErrTimeout, err)
		}
		return protocol.Reply{}, fmt.Errorf("%s: %w", what, err)
	}
	switch rep.Err {
	case protocol.OK:
		if rep.Op != 0 && rep.Op != req.Op {
			return protocol.Reply{}, fmt.Errorf("%s: protocol %s answered a %v", what, s.protocol, rep.Op)
		}
		return rep, nil
	case protocol.ErrTimeout:
		return protocol.Reply{}, fmt.Errorf("%s: %w (protocol %s)", what, ErrTimeout, s.protocol)
	case protocol.ErrUnavailable:
		return protocol.Reply{}, fmt.Errorf("%s: %w (protocol %s): no replica reachable, not applied", what, ErrUnavailable, s.protocol)
	case protocol.ErrUnsupported:
		return protocol.Reply{}, fmt.Errorf("%s: %w by protocol %s", what, ErrUnsupported, s.protocol)
	default:
		return protocol.Reply{}, fmt.Errorf("%s: protocol %s failed: %v", what, s.protocol, rep.Err)
	}
}
