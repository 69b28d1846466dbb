package fawnkv

import (
	"fmt"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
)

// tokenVersion is the version of a FAWN-KV session token's state.
const tokenVersion = 1

// Token implements protocol.Mover. A FAWN-KV session's causal context is
// empty: every key has one chain (spanning the DCs on a topology of
// several), whose tail answers every put and serves every get, so a
// session anywhere reads every write acknowledged to anyone, its own
// included (linearizability). The token carries only its version.
func (s *session) Token() []byte {
	return protocol.EncodeToken(Name, []byte{tokenVersion})
}

// resume creates a session from a token's state: a new session, which may
// answer at once (see Token).
func resume(cfg protocol.SessionConfig, l *chain.Layout, state []byte) (protocol.Session, error) {
	if len(state) != 1 || state[0] != tokenVersion {
		return nil, fmt.Errorf("%w: FAWN-KV state of %d bytes, version %v (want version %d)", protocol.ErrBadToken, len(state), state, tokenVersion)
	}
	return newSession(cfg, l), nil
}
