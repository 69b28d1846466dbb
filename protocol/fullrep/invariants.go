package fullrep

import (
	"strings"
	"time"

	"github.com/causeway/causeway/internal/invariants"
	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

// Expensive self-checks, compiled in with -tags causeway_invariants
// (internal/invariants): NewNode then wraps every server in a checked node
// that verifies, after every input, the state that input touched, and
// panics on a broken invariant.

type checkedServer struct{ *server }

// withInvariants wraps s in its self-checks when they are compiled in.
func withInvariants(s *server) protocol.Node {
	if !invariants.Enabled {
		return s
	}
	return checkedServer{s}
}

func (c checkedServer) Start(now time.Duration) protocol.Ready {
	r := c.server.Start(now)
	for k := range c.out {
		c.checkOutgoing(k)
	}
	return r
}

func (c checkedServer) Step(now time.Duration, m protocol.Message) protocol.Ready {
	r := c.server.Step(now, m)
	c.checkTouched(r)
	if b, ok := m.Body.(*pb.Replicate); ok {
		c.checkIncoming(versionID{b.Key, b.Version})
	}
	return r
}

func (c checkedServer) Tick(now time.Duration, token uint64) protocol.Ready {
	r := c.server.Tick(now, token)
	c.checkTouched(r)
	return r
}

// checkTouched checks the replication records a Ready persists.
func (s *server) checkTouched(r protocol.Ready) {
	for _, w := range r.Persist.Writes {
		if v, ok := parseVersionID(strings.TrimPrefix(w.Key, "r/")); ok && strings.HasPrefix(w.Key, "r/") {
			s.checkOutgoing(v)
		}
	}
}

// checkOutgoing verifies that a write still being replicated (out key k)
// was committed here first: a DC acknowledges its client's put only once
// it holds it.
func (s *server) checkOutgoing(k versionID) {
	o := s.out[k]
	if o == nil {
		return
	}
	w := o.msg
	invariants.Check(s.store[w.Key].version >= w.Version, "%s: write %s is replicated but the store holds the older %x",
		s.id, depKey(w.Key, w.Version), s.store[w.Key].version)
	invariants.Check(!s.mode.Causal || s.committed(w.Key, w.Version), "%s: write %s is replicated but not committed here",
		s.id, depKey(w.Key, w.Version))
}

// checkIncoming verifies that a replicated write waiting for dependencies
// (in key ik) is not committed yet and waits for at least one.
func (s *server) checkIncoming(ik versionID) {
	in := s.in[ik]
	if in == nil {
		return
	}
	invariants.Check(!s.committed(in.msg.Key, in.msg.Version), "%s: write %s waits for dependencies but is committed", s.id, ik)
	invariants.Check(in.missing > 0, "%s: write %s waits for no dependency", s.id, ik)
}

// checkInvariants runs every check on the whole state (tests).
func (s *server) checkInvariants() {
	for k := range s.out {
		s.checkOutgoing(k)
	}
	for ik := range s.in {
		s.checkIncoming(ik)
	}
}
