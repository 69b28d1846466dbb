package c3

import (
	"encoding/binary"
	"fmt"

	"github.com/causeway/causeway/protocol"
)

// Moving a session (protocol.Mover, protocol.Resumer) is C3's migration
// (c3.txt §3.5, Alg. 1 l.16–24) carried across processes: a C3 session
// keeps no dependency metadata, its causal past is whatever its current
// DC has applied, so the token names that DC (and the highest version the
// session has seen, above which its writes are minted). A session resumed
// from it in DC d starts with that DC as its current one: its first
// operation on a key d replicates migrates it home through the old DC's
// gating node, whose migration label is ordered after everything the old
// session did there, exactly as a migration inside one session.
//
// The state inside the protocol.EncodeToken envelope:
//
//	tokenState        1 byte
//	maxVersion        uvarint
//	len(dc), dc       uvarint and bytes: the session's current DC
const tokenState = 1

var (
	_ protocol.Mover   = (*session)(nil)
	_ protocol.Resumer = (*Layered)(nil)
)

// Token implements protocol.Mover.
func (c *session) Token() []byte {
	b := []byte{tokenState}
	b = binary.AppendUvarint(b, c.maxVersion)
	b = binary.AppendUvarint(b, uint64(len(c.cur)))
	b = append(b, c.cur...)
	return protocol.EncodeToken(c.name, b)
}

// ResumeSession implements protocol.Resumer: a session of cfg's DC whose
// current DC is the token's.
func (p *Layered) ResumeSession(cfg protocol.SessionConfig, token []byte) (protocol.Session, error) {
	state, err := protocol.DecodeToken(p.spec.Name, token)
	if err != nil {
		return nil, err
	}
	bad := func(what string, args ...any) error {
		return fmt.Errorf("%w: %s", protocol.ErrBadToken, fmt.Sprintf(what, args...))
	}
	if len(state) == 0 || state[0] != tokenState {
		return nil, bad("session state is not %s's version %d", p.spec.Name, tokenState)
	}
	rest := state[1:]
	maxVersion, w := binary.Uvarint(rest)
	if w <= 0 {
		return nil, bad("truncated session state")
	}
	rest = rest[w:]
	n, w := binary.Uvarint(rest)
	if w <= 0 || n > uint64(len(rest)-w) {
		return nil, bad("truncated session state")
	}
	dc := string(rest[w : w+int(n)])
	if len(rest) != w+int(n) {
		return nil, bad("%d bytes after the session state", len(rest)-w-int(n))
	}
	if !cfg.Topology.HasDC(dc) {
		return nil, bad("the session was in DC %q, which topology %s does not have", dc, cfg.Topology.Name)
	}
	c := newClient(p.spec.Name, cfg, p.spec.NodeOf)
	c.maxVersion = maxVersion
	c.attach(dc)
	return c, nil
}
