package karma

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/internal/invariants"
	"github.com/causeway/causeway/protocol"
)

// Expensive self-checks, compiled in with -tags causeway_invariants
// (internal/invariants): NewNode then wraps every CC and MM in a checked
// node that verifies its whole state after every input and panics on a
// broken invariant, where the bug happens rather than when the checker
// sees its effect.

// checked wraps a node with its self-check, run after every input.
type checked struct {
	protocol.Node
	check func()
}

// withInvariants wraps n in its self-checks when they are compiled in.
func withInvariants(n protocol.Node) protocol.Node {
	if !invariants.Enabled {
		return n
	}
	switch x := n.(type) {
	case *coordinator:
		return &checkedCoordinator{checked{x, x.checkInvariants}}
	case *middleMan:
		return &checkedMiddleMan{checked{x, x.checkInvariants}}
	}
	return n
}

func (c *checked) Start(now time.Duration) protocol.Ready {
	r := c.Node.Start(now)
	c.check()
	return r
}

func (c *checked) Step(now time.Duration, m protocol.Message) protocol.Ready {
	r := c.Node.Step(now, m)
	c.check()
	return r
}

func (c *checked) Tick(now time.Duration, token uint64) protocol.Ready {
	r := c.Node.Tick(now, token)
	c.check()
	return r
}

// checkedCoordinator and checkedMiddleMan keep the optional interfaces
// runtimes look for.
type checkedCoordinator struct{ checked }

func (c *checkedCoordinator) CheckQuiescent() error {
	return c.Node.(*coordinator).CheckQuiescent()
}

type checkedMiddleMan struct{ checked }

func (m *checkedMiddleMan) CheckQuiescent() error { return m.Node.(*middleMan).CheckQuiescent() }

func (m *checkedMiddleMan) Replicas(fn func(key string, value []byte)) {
	m.Node.(*middleMan).Replicas(fn)
}

// checkInvariants verifies a CC's state: every thread's write buffer is
// in program order (versions increasing) and indexed by id, a ring is
// sent a thread's writes in order and at most pipelineWindow ahead of its
// acknowledgements, and a
// thread is bound to a ring exactly when it holds restrictions.
func (c *coordinator) checkInvariants() {
	for _, name := range slices.Sorted(maps.Keys(c.threads)) {
		t := c.threads[name]
		// Each Check is behind its condition: a call boxes its arguments,
		// and these loops run over every buffered write after every input.
		for i, e := range t.wb {
			if c.entries[e.put.Id] != e {
				invariants.Check(false, "%s: thread %s: write %d (id %d) is not indexed by its id", c.id, name, i, e.put.Id)
			}
			if e.session != name {
				invariants.Check(false, "%s: thread %s buffers a write of thread %s", c.id, name, e.session)
			}
			// Versions, not ids: ids may embed the CC's incarnation.
			if i > 0 && t.wb[i-1].put.Version >= e.put.Version {
				invariants.Check(false, "%s: thread %s: write buffer out of program order: version %x after version %x",
					c.id, name, e.put.Version, t.wb[i-1].put.Version)
			}
		}
		// Program order is sent, not buffered: each copy of a write names
		// the earlier writes its ring has not acknowledged (toRing); a ring
		// is sent a write only after every earlier one, and while fewer
		// than pipelineWindow earlier ones are unacknowledged there.
		for ring := range c.topo.Rings() {
			unacked, unsent := 0, false
			for i, e := range t.wb {
				if e.acked[ring] {
					continue
				}
				if e.sent[ring] && (unsent || unacked >= pipelineWindow) {
					invariants.Check(false,
						"%s: thread %s: write %d sent to ring %d after %d unacknowledged earlier writes (one unsent: %v)",
						c.id, name, i, ring, unacked, unsent)
				}
				unsent = unsent || !e.sent[ring]
				unacked++
			}
		}
		if (len(t.drr) > 0) != (t.drrRing >= 0) {
			invariants.Check(false, "%s: thread %s: bound to ring %d with %d restrictions",
				c.id, name, t.drrRing, len(t.drr))
		}
	}
}

// checkInvariants verifies an MM's state: a key's stored version is newer
// than every version it replaced (last-writer-wins), the multiversion
// window is ordered, and a write waiting for its dependencies is not also
// stored (waiting for invalidations).
func (m *middleMan) checkInvariants() {
	for _, k := range slices.Sorted(maps.Keys(m.old)) {
		cur := m.store[k].version
		old := m.old[k]
		for i, o := range old {
			if o.version >= cur {
				invariants.Check(false, "%s: key %s: stored version %x replaced the newer %x", m.id, k, cur, o.version)
			}
			if i > 0 && (old[i-1].version >= o.version || old[i-1].evt > o.evt) {
				invariants.Check(false, "%s: key %s: multiversion window out of order at %d", m.id, k, i)
			}
		}
	}
	for wk := range m.incoming {
		if m.inval[wk] != nil {
			invariants.Check(false, "%s: write %s both waits for dependencies and is stored", m.id, wk)
		}
	}
}
