package rad

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/depwait"
	pb "github.com/causeway/causeway/wire/radpb"
)

// Moving a session (protocol.Mover, protocol.Resumer; k2.txt §VI-B): the
// token carries the session's one-hop dependencies with their exact
// versions and its clock ts. A session resumed in a DC sends a DepCheck
// for each dependency to the server of its (possibly new) replica group
// holding it, resent with the servers' backoff, and holds its operations
// until every one is answered DepOK; its ts then also covers the times
// those servers answered at, at or above the dependencies' EVTs in the
// new group, so its reads there see them.
//
// The state inside the protocol.EncodeToken envelope is
// protocol.EncodeDepsState's, with ts as its clock and the dependencies
// sorted (each version ≤ ts); tokenState is this encoding's version.
const tokenState = 1

// resumeName names, in the session's depwait table, the session itself.
const resumeName = "resume"

// tickToken is the session's timer token for DepCheck resends; operation
// timeouts use request IDs, which start at 1.
const tickToken = 0

var (
	_ protocol.Mover   = (*session)(nil)
	_ protocol.Resumer = Protocol{}
)

func (c *session) sortedDeps() []dep {
	return slices.SortedFunc(maps.Keys(c.deps), func(a, b dep) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.version, b.version))
	})
}

// Token implements protocol.Mover.
func (c *session) Token() []byte {
	ds := c.sortedDeps()
	deps := make([]protocol.TokenDep, len(ds))
	for i, d := range ds {
		deps[i] = protocol.TokenDep{Key: d.key, Version: d.version}
	}
	return protocol.EncodeToken(Name, protocol.EncodeDepsState(tokenState, c.ts, deps))
}

// decodeState decodes the state of a token made by Token: a dependency's
// version cannot exceed the session's clock.
func decodeState(state []byte) (ts uint64, deps []dep, err error) {
	ts, tds, err := protocol.DecodeDepsState(state, tokenState, func(clock, v uint64) bool { return v <= clock })
	if err != nil {
		return 0, nil, err
	}
	for _, d := range tds {
		deps = append(deps, dep{d.Key, d.Version})
	}
	return ts, deps, nil
}

// ResumeSession implements protocol.Resumer.
func (Protocol) ResumeSession(cfg protocol.SessionConfig, token []byte) (protocol.Session, error) {
	state, err := protocol.DecodeToken(Name, token)
	if err != nil {
		return nil, err
	}
	ts, deps, err := decodeState(state)
	if err != nil {
		return nil, err
	}
	c := newSession(cfg)
	c.ts = ts
	if len(deps) == 0 {
		return c, nil
	}
	c.deps = map[dep]bool{}
	for _, d := range deps {
		c.deps[d] = true
	}
	c.resume = depwait.New[*pb.Dep]()
	return c, nil
}

// startResume sends the first DepCheck of every dependency.
func (c *session) startResume(now time.Duration, r *protocol.Ready) {
	for _, d := range c.sortedDeps() {
		pd := &pb.Dep{Key: d.key, Version: d.version}
		if c.resume.Wait(resumeName, depName(d.key, d.version), pd, now) {
			r.Send(c.id, c.owner(d.key), &pb.DepCheck{Dep: pd})
		}
	}
	r.SetTimer(tickEvery, tickToken)
}

// resumeTick resends the DepChecks that are due while the session waits.
func (c *session) resumeTick(now time.Duration, r *protocol.Ready) {
	if c.resume == nil {
		return
	}
	c.resume.Resend(now, resendAfter, maxBackoff, func(d *pb.Dep) {
		r.Send(c.id, c.owner(d.Key), &pb.DepCheck{Dep: d})
	})
	r.SetTimer(tickEvery, tickToken)
}

// depOK records a dependency committed in the session's group; once all
// are, the session sends the operation that was waiting.
func (c *session) depOK(b *pb.DepOK, r *protocol.Ready) {
	if c.resume == nil || b.Dep == nil {
		return
	}
	c.ts = max(c.ts, b.Clock)
	if len(c.resume.Satisfied(depName(b.Dep.Key, b.Dep.Version))) == 0 {
		return
	}
	c.resume = nil
	if c.op != nil {
		c.dispatch(c.op, r)
	}
}
