package k2

import (
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/depwait"
	pb "github.com/causeway/causeway/wire/k2pb"
)

// Moving a session (protocol.Mover, protocol.Resumer; k2.txt §VI-B
// "Switching Datacenters"): (0) the token carries the session's one-hop
// dependencies — its last write and every version read since — and its
// Lamport clock, but not read_ts, since EVTs are per DC and a time of the
// old DC means nothing in the new one. (1) A session resumed from it in
// DC d (2) sends each dependency's owner in d a DepCheck, the message a
// remote coordinator uses (answered DepOK once that exact version is
// committed there), resent with the servers' backoff, and answers no
// operation until every one is answered; submitted operations wait (and
// time out). (3) It then carries on with those dependencies, and with
// read_ts raised to the answering servers' times, each at or above the
// EVT its dependency has in d, so that its reads there see them.
//
// The state inside the protocol.EncodeToken envelope is
// protocol.EncodeDepsState with state version tokenState; the clock is
// the session's Lamport clock, and each dependency's clock part is at
// most it.
const tokenState = 1

// resumeName names, in the session's depwait table, the one thing that
// waits: the session itself.
const resumeName = "resume"

// tickToken is the session's timer token for DepCheck resends; operation
// timeouts use request numbers, which start at 1.
const tickToken = 0

var (
	_ protocol.Mover   = (*session)(nil)
	_ protocol.Resumer = (*Protocol)(nil)
)

// Token implements protocol.Mover.
func (c *session) Token() []byte {
	deps := make([]protocol.TokenDep, 0, len(c.deps))
	for _, k := range sortedKeys(c.deps) {
		deps = append(deps, protocol.TokenDep{Key: c.deps[k].Key, Version: c.deps[k].Version})
	}
	return protocol.EncodeToken(c.mode.Name, protocol.EncodeDepsState(tokenState, c.clock, deps))
}

// ResumeSession implements protocol.Resumer.
func (p *Protocol) ResumeSession(cfg protocol.SessionConfig, token []byte) (protocol.Session, error) {
	state, err := protocol.DecodeToken(p.mode.Name, token)
	if err != nil {
		return nil, err
	}
	clock, deps, err := protocol.DecodeDepsState(state, tokenState, func(clock, ver uint64) bool {
		return clockOf(ver) <= clock
	})
	if err != nil {
		return nil, err
	}
	c := newSession(p.mode, cfg)
	c.clock = clock
	if len(deps) == 0 {
		return c, nil
	}
	c.resume = depwait.New[*pb.Dep]()
	for _, d := range deps {
		c.deps[depKey(d.Key, d.Version)] = &pb.Dep{Key: d.Key, Version: d.Version}
	}
	return c, nil
}

// startResume sends the first DepCheck of every dependency of a resumed
// session to its owner in the session's DC.
func (c *session) startResume(now time.Duration, r *protocol.Ready) {
	for _, dk := range sortedKeys(c.deps) {
		d := c.deps[dk]
		if c.resume.Wait(resumeName, dk, d, now) {
			r.Send(c.id, owner(c.topo, c.dc, d.Key), &pb.DepCheck{Clock: c.clock, Dep: d})
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
		r.Send(c.id, owner(c.topo, c.dc, d.Key), &pb.DepCheck{Clock: c.clock, Dep: d})
	})
	r.SetTimer(tickEvery, tickToken)
}

// depOK records that a dependency of a resumed session is committed in
// its DC, raising read_ts to the answering server's time (at or above the
// dependency's EVT there: its clock had passed the commit). Once every
// dependency is in, the session is free and sends the operation that was
// waiting.
func (c *session) depOK(now time.Duration, b *pb.DepOK, r *protocol.Ready) {
	if c.resume == nil {
		return
	}
	free := false
	for _, d := range depsOf(b.Dep, b.Deps) {
		dk := depKey(d.Key, d.Version)
		if _, ok := c.deps[dk]; !ok {
			continue
		}
		c.readTS = max(c.readTS, stamp(b.Clock, 1<<nodeBits-1))
		if len(c.resume.Satisfied(dk)) > 0 {
			free = true
		}
	}
	if !free {
		return
	}
	c.resume = nil
	if c.op != nil {
		c.dispatch(now, c.op, r)
	}
}
