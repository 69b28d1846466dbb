package chain

import (
	"github.com/causeway/causeway/protocol"
)

var _ protocol.Resumer = (*Protocol)(nil)

// ResumeSession implements protocol.Resumer for the modes that set
// Mode.Resume; for the others it answers, as protocol.ResumeSession does
// for a protocol that is no Resumer, "protocol P does not support moving
// sessions" (their sessions are no protocol.Mover either).
func (p *Protocol) ResumeSession(cfg protocol.SessionConfig, token []byte) (protocol.Session, error) {
	if p.mode.Resume == nil {
		return nil, cannotMove(p.mode.Name)
	}
	state, err := protocol.DecodeToken(p.mode.Name, token)
	if err != nil {
		return nil, err
	}
	return p.mode.Resume(cfg, p.Layout(cfg.Topology), state)
}

// cannotMove says that the sessions of protocol name cannot move.
type cannotMove string

func (e cannotMove) Error() string {
	return "protocol " + string(e) + " does not support moving sessions"
}

// Is makes the error match protocol.ErrMoveUnsupported.
func (e cannotMove) Is(target error) bool { return target == protocol.ErrMoveUnsupported }
