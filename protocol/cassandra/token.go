package cassandra

import (
	"fmt"

	"github.com/causeway/causeway/protocol"
)

// Moving a session (protocol.Mover, protocol.Resumer): a Cassandra
// session keeps no causal context (the presets claim only eventual
// consistency; a driver talks to any node of its DC), so its token carries
// none and a resumed session is a new one in its new DC. Moving promises
// nothing beyond what the consistency levels give: a read in the new DC
// may miss the session's own writes until they replicate there.
//
// The state inside the protocol.EncodeToken envelope is the one byte
// tokenState.
const tokenState = 1

var (
	_ protocol.Mover   = (*session)(nil)
	_ protocol.Resumer = (*Protocol)(nil)
)

// Token implements protocol.Mover.
func (c *session) Token() []byte { return protocol.EncodeToken(c.preset.Name, []byte{tokenState}) }

// ResumeSession implements protocol.Resumer.
func (p *Protocol) ResumeSession(cfg protocol.SessionConfig, token []byte) (protocol.Session, error) {
	state, err := protocol.DecodeToken(p.preset.Name, token)
	if err != nil {
		return nil, err
	}
	if len(state) != 1 || state[0] != tokenState {
		return nil, fmt.Errorf("%w: session state is not %s's version %d", protocol.ErrBadToken, p.preset.Name, tokenState)
	}
	return newSession(p.preset, cfg), nil
}
