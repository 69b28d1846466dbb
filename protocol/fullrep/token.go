package fullrep

import (
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
// session resumed in DC d first sends each server of d that owns some of
// its dependencies one DepCheck listing them — the message servers use for
// a replicated write's dependencies, answered by one DepOK once each of
// those exact versions is committed there —
// and resends them with the servers' backoff; operations submitted
// meanwhile wait (and time out). An eventual session's token carries no
// dependencies: it claims nothing and resumes at once.
//
// The state inside the protocol.EncodeToken envelope is
// protocol.EncodeDepsState's, with maxVersion as its clock and the
// dependencies sorted; tokenState is this encoding's version.
const tokenState = 1

// resumeName names, in the session's depwait table, the one thing that
// waits: the session itself.
const resumeName = "resume"

// tickToken is the session's timer token for DepCheck resends; operation
// timeouts use request IDs, which start at 1.
const tickToken = 0

// Token implements protocol.Mover.
func (c *session) Token() []byte {
	ds := c.sortedDeps()
	deps := make([]protocol.TokenDep, len(ds))
	for i, d := range ds {
		deps[i] = protocol.TokenDep{Key: d.key, Version: d.version}
	}
	return protocol.EncodeToken(c.mode.Name, protocol.EncodeDepsState(tokenState, c.maxVersion, deps))
}

// decodeState decodes the state of a token made by Token: a dependency's
// version cannot exceed the highest version the session had seen.
func decodeState(state []byte) (maxVersion uint64, deps []dep, err error) {
	maxVersion, tds, err := protocol.DecodeDepsState(state, tokenState, func(clock, v uint64) bool { return v <= clock })
	if err != nil {
		return 0, nil, err
	}
	deps = make([]dep, len(tds))
	for i, d := range tds {
		deps[i] = dep{d.Key, d.Version}
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
	var checks checkBatch
	for _, d := range c.sortedDeps() {
		pd := &pb.Dep{Key: d.key, Version: d.version}
		if c.resume.Wait(resumeName, depKey(d.key, d.version), pd, now) {
			checks.add(c.local.owner(d.key), pd)
		}
	}
	checks.send(c.id, r)
	r.SetTimer(tickEvery, tickToken)
}

// resumeTick resends the DepChecks that are due and keeps ticking while
// the session waits.
func (c *session) resumeTick(now time.Duration, r *protocol.Ready) {
	if c.resume == nil {
		return
	}
	var checks checkBatch
	c.resume.Resend(now, resendAfter, maxBackoff, func(d *pb.Dep) {
		checks.add(c.local.owner(d.Key), d)
	})
	checks.send(c.id, r)
	r.SetTimer(tickEvery, tickToken)
}

// depOK records that dependencies of a resumed session are committed in
// its DC; once all are, the session is free, and an operation that was
// waiting is sent.
func (c *session) depOK(deps []*pb.Dep, r *protocol.Ready) {
	if c.resume == nil {
		return
	}
	free := false
	for _, d := range deps {
		if d != nil && len(c.resume.Satisfied(depKey(d.Key, d.Version))) > 0 {
			free = true
		}
	}
	if !free {
		return
	}
	c.resume = nil
	if c.pending != nil {
		c.send(r)
	}
}
