package fullrep

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/internal/invariants"
	"github.com/causeway/causeway/protocol"
)

// Expensive self-checks, compiled in with -tags causeway_invariants
// (internal/invariants): NewNode then wraps every server in a checked node
// that verifies its whole state after every input and panics on a broken
// invariant.

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
	c.checkInvariants()
	return r
}

func (c checkedServer) Step(now time.Duration, m protocol.Message) protocol.Ready {
	r := c.server.Step(now, m)
	c.checkInvariants()
	return r
}

func (c checkedServer) Tick(now time.Duration, token uint64) protocol.Ready {
	r := c.server.Tick(now, token)
	c.checkInvariants()
	return r
}

// checkInvariants verifies a server's state: a write still being
// replicated was committed here first (a DC acknowledges its client's put
// only once it holds it), and a replicated write waiting for dependencies
// is not committed yet and waits for at least one.
func (s *server) checkInvariants() {
	for _, k := range slices.Sorted(maps.Keys(s.out)) {
		o := s.out[k].msg
		invariants.Check(s.store[o.Key].version >= o.Version, "%s: write %s is replicated but the store holds the older %x",
			s.id, depKey(o.Key, o.Version), s.store[o.Key].version)
		invariants.Check(!s.mode.Causal || s.committed(o.Key, o.Version), "%s: write %s is replicated but not committed here",
			s.id, depKey(o.Key, o.Version))
	}
	for _, ik := range slices.Sorted(maps.Keys(s.in)) {
		w := s.in[ik].msg
		invariants.Check(!s.committed(w.Key, w.Version), "%s: write %s waits for dependencies but is committed", s.id, ik)
		invariants.Check(s.deps.Waiting(ik), "%s: write %s waits for no dependency", s.id, ik)
	}
}
