package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Moving a session between datacenters (k2.txt §VI-B "Switching
// Datacenters", c3.txt's migrate operation): a session that supports it
// hands out a token, an opaque encoding of its causal context; a session
// created from the token in another datacenter serves no operation until
// that datacenter holds everything the context names, and then carries on
// with it, so that read-your-writes, monotonic reads and the causal order
// of its writes survive the move.
//
// Both halves are optional: a Session implements Mover, its Protocol
// implements Resumer. SessionToken and ResumeSession are the entry points
// for runtimes; they answer an error wrapping ErrMoveUnsupported for a
// protocol that implements neither.

// Mover is implemented by a Session that can move to another datacenter.
type Mover interface {
	// Token returns the session's causal context as a token for
	// Resumer.ResumeSession (see EncodeToken for its envelope). Runtimes
	// call it only while the session has no operation outstanding. It
	// does not change the session, which may go on being used.
	Token() []byte
}

// Resumer is implemented by a Protocol whose sessions can move between
// datacenters.
type Resumer interface {
	// ResumeSession creates a session (cfg.ID names its datacenter, as for
	// NewSession) that continues the session token was taken from. It must
	// not answer an operation until cfg's datacenter holds every write the
	// token names; operations submitted before then wait (and time out
	// after cfg.OpTimeout). A token that cannot be decoded, or was made by
	// another protocol, is refused with an error wrapping ErrBadToken.
	ResumeSession(cfg SessionConfig, token []byte) (Session, error)
}

var (
	// ErrMoveUnsupported is wrapped by the errors of SessionToken and
	// ResumeSession for a protocol whose sessions cannot move.
	ErrMoveUnsupported = errors.New("moving sessions is not supported")
	// ErrBadToken is wrapped by the errors of DecodeToken and
	// Resumer.ResumeSession for a token they cannot use.
	ErrBadToken = errors.New("invalid session token")
)

// moveError says that protocol p does not support moving sessions.
type moveError struct{ protocol string }

func (e moveError) Error() string {
	return "protocol " + e.protocol + " does not support moving sessions"
}

func (e moveError) Is(target error) bool { return target == ErrMoveUnsupported }

// SessionToken returns the token of session s of protocol p, or an error
// wrapping ErrMoveUnsupported ("protocol P does not support moving
// sessions"); s is not looked at when p is not a Resumer. The caller must
// make sure s has no operation outstanding.
func SessionToken(p Protocol, s Session) ([]byte, error) {
	if _, ok := p.(Resumer); !ok {
		return nil, moveError{p.Name()}
	}
	m, ok := s.(Mover)
	if !ok {
		return nil, moveError{p.Name()}
	}
	return m.Token(), nil
}

// ResumeSession creates a session of protocol p from token (see Resumer),
// or returns an error wrapping ErrMoveUnsupported or ErrBadToken.
func ResumeSession(p Protocol, cfg SessionConfig, token []byte) (Session, error) {
	r, ok := p.(Resumer)
	if !ok {
		return nil, moveError{p.Name()}
	}
	return r.ResumeSession(cfg, token)
}

// Session tokens share one envelope, so that every protocol refuses a
// foreign or damaged token the same way:
//
//	"cw"                     2 bytes, the magic
//	TokenFormat              1 byte, the envelope's format version
//	len(protocol), protocol  uvarint and bytes: the protocol's name
//	state                    the rest: the protocol's own encoding, which
//	                         should start with its own version
const (
	tokenMagic = "cw"
	// TokenFormat is the envelope format version this build writes and
	// reads.
	TokenFormat = 1
	// maxTokenName bounds the protocol name in a token.
	maxTokenName = 64
)

// EncodeToken wraps the session state of protocol protocolName in the
// token envelope.
func EncodeToken(protocolName string, state []byte) []byte {
	b := make([]byte, 0, len(tokenMagic)+1+binary.MaxVarintLen64+len(protocolName)+len(state))
	b = append(b, tokenMagic...)
	b = append(b, TokenFormat)
	b = binary.AppendUvarint(b, uint64(len(protocolName)))
	b = append(b, protocolName...)
	return append(b, state...)
}

// DecodeToken checks the envelope of token and that protocol
// protocolName made it, and returns the protocol's state. Its errors wrap
// ErrBadToken and say what is wrong.
func DecodeToken(protocolName string, token []byte) ([]byte, error) {
	if len(token) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrBadToken)
	}
	if len(token) < len(tokenMagic)+1 || string(token[:len(tokenMagic)]) != tokenMagic {
		return nil, fmt.Errorf("%w: not a Causeway session token", ErrBadToken)
	}
	if v := token[len(tokenMagic)]; v != TokenFormat {
		return nil, fmt.Errorf("%w: format version %d, this build reads version %d", ErrBadToken, v, TokenFormat)
	}
	rest := token[len(tokenMagic)+1:]
	n, w := binary.Uvarint(rest)
	if w <= 0 || n > maxTokenName || n > uint64(len(rest)-w) {
		return nil, fmt.Errorf("%w: truncated or damaged header", ErrBadToken)
	}
	name := string(rest[w : w+int(n)])
	if name != protocolName {
		return nil, fmt.Errorf("%w: made by protocol %q, this store runs %q", ErrBadToken, name, protocolName)
	}
	return rest[w+int(n):], nil
}
