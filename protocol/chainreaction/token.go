package chainreaction

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// Moving a session (protocol.Mover, protocol.Resumer; k2.txt §VI-B's
// switching datacenters, applied to chainreaction.txt §3.4–3.6 and §4):
// the token carries the session's metadata table — for ChainReaction one
// (key, version) per entry not yet garbage-collected (§3.5: its last put
// and every version read since that is not stable; under geo-replication
// not Global-Write-Stable), for cr-cops its COPS-style nearest
// dependencies (the same table, every version read since the last put) —
// and the highest version it has seen (maxSeen, the floor of its next
// put's version, §4.3's Lamport clock). Entries dropped as stable need no
// carrying: a stable version is at every node of its chain (under
// geo-replication, Global-Write-Stable: in every DC).
//
// A session resumed from it in DC d first runs the dependency
// stabilization procedure (§3.5) on every entry, in d, and sends no
// operation until every entry is answered (they wait, and may time out),
// resending with the session's backoff: an entry of a version written in
// d is asked of the tail of the key's chain in d (a Stabilize, answered
// once that version or a newer one is DC-Write-Stable there: d applied
// it in order, after its dependencies); an entry of a version written in
// another DC o is asked of d's remote-proxy (the same Stabilize), which
// answers once it has applied that version, or a later one of the key
// from o (o ships a key's versions in order), here: its dependencies left
// the proxy's queue before it (§4.1.2). The tail's "or a newer one" is
// not enough for those: a concurrent version d holds by last-writer-wins
// answers it while the entry's version and its dependencies are still on
// their way (scenario move_session_lww, TestRandomMovesStayCausal).
// Then each entry's version is at every node of its chain in d (or
// superseded there), so the entries' chain indexes (of the old DC's
// chains, or of views since changed) are not carried: an entry resumes
// with any node of the chain (chainIndex R), and, under geo-replication,
// pinned until the session's next put (its put then depends on the
// entries, wherever they were written: geo.go's observeGeo). A session
// resumed in its own DC stabilizes too (a token may outlive a view
// change, and a simpler rule beats saving a wait).
//
// Known gaps: the proxy keeps what it applied in memory, so after it
// restarts it answers only for versions it applies since (an older entry
// waits until a later put of its key from the same DC arrives; the
// session's operations time out meanwhile); and an entry of a version its
// DC never ships (a late put answered without being shipped, the open
// seed-496 bug) is never answered by a proxy.
//
// The state inside the protocol.EncodeToken envelope is
// protocol.EncodeDepsState with state version tokenState, maxSeen as its
// clock and the entries sorted by key; every entry's version is at most
// maxSeen.
const tokenState = 1

// resumeTimer is the resend timer token of a resumed session's
// stabilization while no operation is pending (operations use request
// ids, from 1).
const resumeTimer = 0 | resendBit

// anyNode is the chain index of an entry whose version is stable: any
// node of the chain may serve it.
const anyNode = math.MaxInt32

var _ protocol.Mover = (*session)(nil)

// Token implements protocol.Mover.
func (s *session) Token() []byte {
	deps := make([]protocol.TokenDep, 0, len(s.meta))
	for _, k := range slices.Sorted(maps.Keys(s.meta)) {
		if v := s.meta[k].version; v > 0 {
			// (cr-cops keeps an entry for a key read before any write:
			// no dependency.)
			deps = append(deps, protocol.TokenDep{Key: k, Version: v})
		}
	}
	name := Name
	if s.cops {
		name = NameCops
	}
	return protocol.EncodeToken(name, protocol.EncodeDepsState(tokenState, s.maxSeen, deps))
}

// resume creates a ChainReaction session from a token's state.
func resume(cfg protocol.SessionConfig, l *chain.Layout, state []byte) (protocol.Session, error) {
	return resumeWith(newSession(cfg, l).(*session), state)
}

// resumeCops creates a cr-cops session from a token's state.
func resumeCops(cfg protocol.SessionConfig, l *chain.Layout, state []byte) (protocol.Session, error) {
	return resumeWith(newCopsSession(cfg, l).(*session), state)
}

// resumeWith gives new session s the token state's clock and entries, to
// be stabilized in its DC before its first operation (startResume).
func resumeWith(s *session, state []byte) (protocol.Session, error) {
	clock, deps, err := protocol.DecodeDepsState(state, tokenState, func(clock, v uint64) bool { return v <= clock })
	if err != nil {
		return nil, err
	}
	s.maxSeen = clock
	for _, d := range deps {
		if s.resume == nil {
			s.resume = map[string]uint64{}
		}
		s.resume[d.Key] = max(s.resume[d.Key], d.Version)
		// Pinned under geo-replication: kept until the next put, which
		// depends on it, wherever it was written.
		s.meta[d.Key] = entry{version: s.resume[d.Key], chainIndex: anyNode, pinned: s.geo}
	}
	return s, nil
}

// startResume starts the resumed session's stabilization: its first
// Stabilizes go once the master's view is in (Start, Step).
func (s *session) startResume(now time.Duration, r *protocol.Ready) {
	if !s.c.Fetching() {
		s.sendResume(r)
	}
	r.SetTimer(s.c.FirstResend(now), resumeTimer)
}

// sendResume (re)sends a Stabilize for every entry of the token not yet
// known stable in the session's DC (request id 0).
func (s *session) sendResume(r *protocol.Ready) {
	me := s.c.Layout.DCIndex(s.c.ID.DC())
	for _, k := range slices.Sorted(maps.Keys(s.resume)) {
		v := s.resume[k]
		c, _ := s.c.Chain(k)
		s.target = c[len(c)-1]
		if s.geo && chain.Origin(v) != me {
			// Written in another DC: the DC's remote-proxy answers once
			// it applied that version here, after its dependencies.
			s.target = s.c.Layout.Proxy(s.c.ID.DC())
		}
		r.Send(s.c.ID, s.target, &pb.Stabilize{Client: string(s.c.ID), Key: k, Version: v})
	}
}

// resumeTick resends the stabilization while no operation is pending
// (an operation's own resends cover it otherwise: send).
func (s *session) resumeTick(r *protocol.Ready) {
	if len(s.resume) == 0 || s.pending != nil {
		return
	}
	wait := s.c.Resend(s.target, r)
	s.sendResume(r)
	r.SetTimer(wait, resumeTimer)
}

// onResumed records a StabilizeReply of the resumed session's
// stabilization; once every entry is stable in its DC, the pending
// operation, if any, is sent.
func (s *session) onResumed(b *pb.StabilizeReply, r *protocol.Ready) {
	if v, ok := s.resume[b.Key]; !ok || b.Version < v {
		return
	}
	delete(s.resume, b.Key)
	if len(s.resume) > 0 {
		return
	}
	s.resume = nil
	if s.pending != nil {
		s.send(r)
	}
}
