package fullrep

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/depwait"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

// Moving a session (protocol.Mover, protocol.Resumer) follows k2.txt §VI-B:
// the token carries the session's nearest dependencies with their exact
// versions (its last put and every version read since, which covers
// read-your-writes and monotonic reads, since a version is committed in a
// DC only after its own dependencies are) and the highest version it has
// seen (so that its next put still gets a larger Lamport version). A
// session resumed in DC d first sends a DepCheck for each dependency to its
// owner in d — the message servers use for a replicated write's
// dependencies, answered DepOK once that exact version is committed there —
// and resends them with the servers' backoff; operations submitted
// meanwhile wait (and time out). An eventual session's token carries no
// dependencies: it claims nothing and resumes at once.
//
// The state inside the protocol.EncodeToken envelope:
//
//	tokenState            1 byte, this encoding's version
//	maxVersion            uvarint
//	len(deps)             uvarint, then for each dependency, sorted:
//	  len(key), key       uvarint and bytes
//	  version             uvarint (> 0)
const tokenState = 1

// resumeName names, in the session's depwait table, the one thing that
// waits: the session itself.
const resumeName = "resume"

// tickToken is the session's timer token for DepCheck resends; operation
// timeouts use request IDs, which start at 1.
const tickToken = 0

// Token implements protocol.Mover.
func (c *session) Token() []byte {
	b := []byte{tokenState}
	b = binary.AppendUvarint(b, c.maxVersion)
	ds := c.sortedDeps()
	b = binary.AppendUvarint(b, uint64(len(ds)))
	for _, d := range ds {
		b = binary.AppendUvarint(b, uint64(len(d.key)))
		b = append(b, d.key...)
		b = binary.AppendUvarint(b, d.version)
	}
	return protocol.EncodeToken(c.mode.Name, b)
}

// decodeState decodes the state of a token made by Token.
func decodeState(state []byte) (maxVersion uint64, deps []dep, err error) {
	bad := func(what string, args ...any) error {
		return fmt.Errorf("%w: %s", protocol.ErrBadToken, fmt.Sprintf(what, args...))
	}
	if len(state) == 0 {
		return 0, nil, bad("no session state")
	}
	if state[0] != tokenState {
		return 0, nil, bad("session state version %d, this build reads version %d", state[0], tokenState)
	}
	rest := state[1:]
	next := func() (uint64, bool) {
		v, w := binary.Uvarint(rest)
		if w <= 0 {
			return 0, false
		}
		rest = rest[w:]
		return v, true
	}
	maxVersion, ok := next()
	n, ok2 := next()
	// Each dependency takes at least two bytes: a bound on n before
	// anything is allocated.
	if !ok || !ok2 || n > uint64(len(rest))/2 {
		return 0, nil, bad("truncated or damaged session state")
	}
	deps = make([]dep, 0, n)
	for i := uint64(0); i < n; i++ {
		kl, ok := next()
		if !ok || kl > uint64(len(rest)) {
			return 0, nil, bad("truncated or damaged dependency %d", i+1)
		}
		key := string(rest[:kl])
		rest = rest[kl:]
		v, ok := next()
		if !ok {
			return 0, nil, bad("truncated or damaged dependency %d", i+1)
		}
		if v == 0 || v > maxVersion {
			return 0, nil, bad("dependency %d (key %q) has an impossible version", i+1, key)
		}
		deps = append(deps, dep{key, v})
	}
	if len(rest) != 0 {
		return 0, nil, bad("%d bytes of garbage after the session state", len(rest))
	}
	return maxVersion, deps, nil
}

// ResumeSession implements protocol.Resumer.
func (p *Protocol) ResumeSession(cfg protocol.SessionConfig, token []byte) (protocol.Session, error) {
	state, err := protocol.DecodeToken(p.mode.Name, token)
	if err != nil {
		return nil, err
	}
	maxVersion, deps, err := decodeState(state)
	if err != nil {
		return nil, err
	}
	c := p.NewSession(cfg).(*session)
	c.maxVersion = maxVersion
	if !p.mode.Causal || len(deps) == 0 {
		return c, nil
	}
	c.deps = map[dep]bool{}
	for _, d := range deps {
		c.deps[d] = true
	}
	c.resume = depwait.New[*pb.Dep]()
	return c, nil
}

// startResume sends the first DepCheck of every dependency of a resumed
// session to its owner in the session's DC.
func (c *session) startResume(now time.Duration, r *protocol.Ready) {
	for _, d := range c.sortedDeps() {
		pd := &pb.Dep{Key: d.key, Version: d.version}
		if c.resume.Wait(resumeName, depKey(d.key, d.version), pd, now) {
			r.Send(c.id, owner(c.topo, c.id.DC(), d.key), &pb.DepCheck{Dep: pd})
		}
	}
	r.SetTimer(tickEvery, tickToken)
}

// resumeTick resends the DepChecks that are due and keeps ticking while
// the session waits.
func (c *session) resumeTick(now time.Duration, r *protocol.Ready) {
	if c.resume == nil {
		return
	}
	c.resume.Resend(now, resendAfter, maxBackoff, func(d *pb.Dep) {
		r.Send(c.id, owner(c.topo, c.id.DC(), d.Key), &pb.DepCheck{Dep: d})
	})
	r.SetTimer(tickEvery, tickToken)
}

// depOK records that a dependency of a resumed session is committed in its
// DC; once all are, the session is free, and an operation that was waiting
// is sent.
func (c *session) depOK(d *pb.Dep, r *protocol.Ready) {
	if c.resume == nil || d == nil {
		return
	}
	if len(c.resume.Satisfied(depKey(d.Key, d.Version))) == 0 {
		return
	}
	c.resume = nil
	if c.pending != nil {
		c.send(r)
	}
}
