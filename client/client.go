// Package client is Causeway's public Go API: a causal+ session with Get,
// Put, Delete, ReadTxn and WriteTxn over a connection to one datacenter
// (DC). A Delete writes a tombstone that reads return as "not found"
// (protocol.Tombstone); values starting with protocol.TombstonePrefix are
// reserved for it.
//
// A Session is one client thread of the papers: its operations happen one
// after another, and everything it reads or writes is in the causal past of
// what it does next, whichever protocol the store runs.
//
// # A live cluster
//
// Dial connects to one datacenter of a cluster started with `causeway
// cluster up` (its directory or cluster.yaml); the sessions run in this
// process and talk to the cluster's nodes over gRPC (runtime/node):
//
//	c, err := client.Dial("./mycluster", "a")
//	if err != nil { … }
//	defer c.Close()
//	s, _ := c.NewSession()
//	if err := s.Put(ctx, "user42", []byte("hello")); err != nil { … }
//	v, found, err := s.Get(ctx, "user42")
//
// # Moving a session between datacenters
//
// A user whose requests move to another datacenter (k2.txt §VI-B) keeps
// its causal past with a session token: Session.Token returns an opaque,
// URL-safe base64 string (a cookie, say) encoding the session's causal
// context, and Cluster.Resume — or the one-shot Resume(clusterFile, dc,
// token) — continues the session in another datacenter. The resumed
// session answers no operation until that datacenter holds everything the
// token names (the user's own writes, and what they read): operations
// wait, and time out if it does not catch up in time (a partition). A
// token is valid for any datacenter of the same cluster, any number of
// times (another cluster refuses it with ErrBadToken); the old session may go on being used, but operations made on it
// after the token was taken are not part of the token. Protocols that
// cannot move sessions answer ErrUnsupported; a damaged token, or one made
// by a store running another protocol, ErrBadToken.
//
//	token, err := s.Token(ctx)      // in DC a
//	…
//	s2, err := client.Resume("./mycluster", "c", token)
//	defer s2.Close()
//	v, found, err := s2.Get(ctx, "user42") // sees the put made in a
//
// # Other runtimes
//
// New wraps any Conn, such as a *live.Session of the in-process live
// runtime (runtime/live):
//
//	rt, _ := live.Start(live.Config{Topology: topo, Protocol: p})
//	defer rt.Stop()
//	conn, _ := rt.NewSession("a", "alice")
//	s := client.New(conn, p.Name(), "a")
//	defer s.Close()
//
// # Errors
//
// Errors a program can act on are ErrTimeout (no answer in time,
// including ctx ending first; for a write the outcome is unknown: it may
// or may not have taken effect, and the message says so), ErrUnavailable
// (no replica could be reached; a write did not take effect), ErrInvalidKey
// (a key that is not valid UTF-8, refused before anything is sent),
// ErrUnsupported (the protocol does not implement the operation, e.g.
// transactions or moving sessions) and ErrBadToken. Test for them with
// errors.Is; the message says which operation failed and why.
//
// A session of a live cluster (Dial) answers ErrUnavailable at once, not
// after its timeout, when the node it talks to cannot be reached (nothing
// listens at its address): a read at once, a write when none of its
// messages left the process. Such a session has ended (the protocol still
// held the operation): start a new one, or resume one from a token taken
// earlier.
package client

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/node"
)

// Conn carries a session's operations to the store. Do runs one operation
// and waits for its reply; it returns an error (wrapping ctx.Err() when ctx
// ended first, in which case the outcome is unknown) only when it got no
// reply. *live.Session implements Conn.
type Conn interface {
	Do(ctx context.Context, req protocol.Request) (protocol.Reply, error)
	Close() error
}

// TokenConn is a Conn whose session can hand out its token (see
// Session.Token); *node.Session and *live.Session implement it. Token
// waits for any operation still outstanding and returns the protocol's
// token bytes, or an error wrapping protocol.ErrMoveUnsupported.
type TokenConn interface {
	Conn
	Token(ctx context.Context) ([]byte, error)
}

var (
	// ErrTimeout means the operation did not complete in time; a write may
	// or may not have taken effect (its error says "outcome unknown").
	ErrTimeout = errors.New("timed out")
	// ErrUnavailable means no replica could be reached; a write did not
	// take effect. It is node.ErrUnavailable, the live runtime's answer
	// for a node that cannot be reached.
	ErrUnavailable = node.ErrUnavailable
	// ErrInvalidKey means a key is not valid UTF-8 (keys travel as
	// protobuf strings); nothing was sent.
	ErrInvalidKey = errors.New("key is not valid UTF-8")
	// ErrUnsupported means the protocol does not implement the operation.
	ErrUnsupported = errors.New("operation not supported")
	// ErrClosed is returned by operations on a closed Session.
	ErrClosed = errors.New("session closed")
	// ErrEmptyValue is returned when writing an empty value: a read could
	// not tell it from a key that was never written.
	ErrEmptyValue = errors.New("empty value (reads cannot tell it from a missing key)")
	// ErrKeyTooLarge means a key is over node.MaxKeyBytes (4 KiB); the
	// error names the limit and nothing was sent.
	ErrKeyTooLarge = node.ErrKeyTooLarge
	// ErrValueTooLarge means a value is over node.MaxValueBytes (1 MiB);
	// the error names the limit and nothing was sent.
	ErrValueTooLarge = node.ErrValueTooLarge
	// ErrTooManyKeys means a transaction is over node.MaxTxnKeys keys or
	// node.MaxTxnBytes bytes; nothing was sent.
	ErrTooManyKeys = node.ErrTooManyKeys
	// ErrRefused means a node refused the operation because one of its
	// limits was hit (too many sessions on the node, too many requests
	// of the session queued there, a key or value over its limit); the
	// error names the limit. The session has ended: start a new one.
	ErrRefused = node.ErrRefused
	// ErrBadToken means a session token could not be used: it is damaged,
	// was taken on another cluster, or was made by a store running
	// another protocol. It is
	// protocol.ErrBadToken.
	ErrBadToken = protocol.ErrBadToken
)

// Session is a client session in one datacenter. Its methods may be called
// from several goroutines, but the operations run one at a time, in the
// order the Conn takes them.
type Session struct {
	conn     Conn
	protocol string
	dc       string
	// cluster is the cluster's ID, carried in the session's tokens
	// (clustertoken.go); empty for none.
	cluster string
	closed  atomic.Bool
	// dels names this session's deletes (Delete).
	dels deleteIDs
	// release, if set, is called by Close after conn.Close (the Cluster
	// of a session made by Resume).
	release func() error
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

// Get reads key. found is false when key has never been written or its
// latest write is a Delete.
func (s *Session) Get(ctx context.Context, key string) (value []byte, found bool, err error) {
	rep, err := s.do(ctx, protocol.Request{Op: protocol.OpGet, Key: key}, fmt.Sprintf("get %q", key))
	if err != nil {
		return nil, false, err
	}
	if rep.Value == nil || protocol.IsTombstone(rep.Value) {
		return nil, false, nil
	}
	return rep.Value, true, nil
}

// Put writes value to key. value must not be empty, nor start with
// protocol.TombstonePrefix (ErrReservedValue).
func (s *Session) Put(ctx context.Context, key string, value []byte) error {
	what := fmt.Sprintf("put %q", key)
	if err := checkValue(value); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	_, err := s.do(ctx, protocol.Request{Op: protocol.OpPut, Key: key, Value: value}, what)
	return err
}

// ReadTxn reads keys from one causal snapshot. Keys that have never been
// written, or whose latest write is a Delete, are absent from the result.
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
		if kv.Value != nil && !protocol.IsTombstone(kv.Value) {
			out[kv.Key] = kv.Value
		}
	}
	return out, nil
}

// WriteTxn writes every key of writes atomically: a ReadTxn sees all of
// them or none. No value may be empty or start with
// protocol.TombstonePrefix.
func (s *Session) WriteTxn(ctx context.Context, writes map[string][]byte) error {
	const what = "write_txn"
	if len(writes) == 0 {
		return nil
	}
	kvs := make([]protocol.KV, 0, len(writes))
	for k, v := range writes {
		if err := checkValue(v); err != nil {
			return fmt.Errorf("%s: key %q: %w", what, k, err)
		}
		kvs = append(kvs, protocol.KV{Key: k, Value: v})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].Key < kvs[j].Key })
	_, err := s.do(ctx, protocol.Request{Op: protocol.OpWriteTxn, Writes: kvs}, what)
	return err
}

// Close closes the session and its Conn (and, for a session made by the
// package-level Resume, its connection to the cluster).
func (s *Session) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	err := s.conn.Close()
	if s.release != nil {
		err = errors.Join(err, s.release())
	}
	return err
}

// Token returns the session's token: an opaque, URL-safe base64 string
// encoding the session's causal context, to continue it in another
// datacenter (or the same one) with Cluster.Resume or Resume. It waits for
// any operation still outstanding. The session may go on being used; its
// later operations are not part of this token. A protocol that cannot move
// sessions answers an error wrapping ErrUnsupported ("protocol P does not
// support moving sessions").
func (s *Session) Token(ctx context.Context) (string, error) {
	const what = "session token"
	if s.closed.Load() {
		return "", fmt.Errorf("%s: %w", what, ErrClosed)
	}
	tc, ok := s.conn.(TokenConn)
	if !ok {
		return "", fmt.Errorf("%s: %w: the connection of this session cannot move it", what, ErrUnsupported)
	}
	b, err := tc.Token(ctx)
	switch {
	case errors.Is(err, protocol.ErrMoveUnsupported):
		return "", &unsupportedError{what: what, err: err}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return "", fmt.Errorf("%s: %w: %w", what, ErrTimeout, err)
	case err != nil:
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return EncodeToken(wrapClusterToken(s.cluster, b)), nil
}

// EncodeToken turns a protocol's token bytes (protocol.Mover) into the
// string Session.Token returns.
func EncodeToken(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// DecodeToken turns a string made by Session.Token back into the
// protocol's token bytes; it ignores surrounding white space and checks
// only the base64 (the protocol checks the rest when a session is
// resumed).
func DecodeToken(token string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimSpace(token))
	if err != nil {
		return nil, fmt.Errorf("%w: not URL-safe base64 without padding (%v)", ErrBadToken, err)
	}
	return b, nil
}

// unsupportedError is a protocol's refusal to move a session: its message
// is the protocol's ("protocol P does not support moving sessions"), and it
// wraps both ErrUnsupported and the protocol's error.
type unsupportedError struct {
	what string
	err  error
}

func (e *unsupportedError) Error() string   { return e.what + ": " + e.err.Error() }
func (e *unsupportedError) Unwrap() []error { return []error{ErrUnsupported, e.err} }

// do runs req and turns a failed reply into an error that says what
// failed (what) and wraps one of the package's sentinel errors.
func (s *Session) do(ctx context.Context, req protocol.Request, what string) (protocol.Reply, error) {
	if s.closed.Load() {
		return protocol.Reply{}, fmt.Errorf("%s: %w", what, ErrClosed)
	}
	if err := CheckKeys(req); err != nil {
		return protocol.Reply{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := node.CheckLimits(req); err != nil {
		return protocol.Reply{}, fmt.Errorf("%s: %w", what, err)
	}
	rep, err := s.conn.Do(ctx, req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return protocol.Reply{}, fmt.Errorf("%s: %w%s: %w", what, ErrTimeout, unknownOutcome(req.Op), err)
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
		return protocol.Reply{}, fmt.Errorf("%s: %w%s (protocol %s)", what, ErrTimeout, unknownOutcome(req.Op), s.protocol)
	case protocol.ErrUnavailable:
		return protocol.Reply{}, fmt.Errorf("%s: %w (protocol %s): no replica reachable, not applied", what, ErrUnavailable, s.protocol)
	case protocol.ErrUnsupported:
		return protocol.Reply{}, fmt.Errorf("%s: %w by protocol %s", what, ErrUnsupported, s.protocol)
	default:
		return protocol.Reply{}, fmt.Errorf("%s: protocol %s failed: %v", what, s.protocol, rep.Err)
	}
}

// unknownOutcome is what a timeout adds to its message: for a write, that
// it may or may not have taken effect; nothing for a read.
func unknownOutcome(op protocol.Op) string {
	if op == protocol.OpPut || op == protocol.OpWriteTxn {
		return ", outcome unknown"
	}
	return ""
}

// CheckKeys returns an error wrapping ErrInvalidKey, naming the key, if a
// key of req is not valid UTF-8: keys travel as protobuf strings, which
// cannot carry it. Sessions check every request before sending it.
func CheckKeys(req protocol.Request) error {
	check := func(k string) error {
		if !utf8.ValidString(k) {
			return fmt.Errorf("%w: %q", ErrInvalidKey, k)
		}
		return nil
	}
	if err := check(req.Key); err != nil {
		return err
	}
	for _, k := range req.Keys {
		if err := check(k); err != nil {
			return err
		}
	}
	for _, kv := range req.Writes {
		if err := check(kv.Key); err != nil {
			return err
		}
	}
	return nil
}
