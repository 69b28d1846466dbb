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
// in program order (versions increasing, each write naming the previous
// one as its program-order dependency) and indexed by id, and a
// thread is bound to a ring exactly when it holds restrictions.
func (c *coordinator) checkInvariants() {
	for _, name := range slices.Sorted(maps.Keys(c.threads)) {
		t := c.threads[name]
		for i, e := range t.wb {
			invariants.Check(c.entries[e.put.Id] == e, "%s: thread %s: write %d (id %d) is not indexed by its id", c.id, name, i, e.put.Id)
			invariants.Check(e.session == name, "%s: thread %s buffers a write of thread %s", c.id, name, e.session)
			if i == 0 {
				continue
			}
			prev := t.wb[i-1].put
			// Versions, not ids: ids may embed the CC's incarnation.
			invariants.Check(prev.Version < e.put.Version,
				"%s: thread %s: write buffer out of program order: version %x after version %x",
				c.id, name, e.put.Version, prev.Version)
			if e.recovered {
				continue // a recovered entry's predecessor may have completed
			}
			found := false
			for _, d := range e.put.Deps {
				found = found || d.ProgramOrder && d.Key == prev.Key && d.Version == prev.Version
			}
			invariants.Check(found, "%s: thread %s: write %s does not follow its predecessor %s in program order",
				c.id, name, depKey(e.put.Key, e.put.Version), depKey(prev.Key, prev.Version))
		}
		invariants.Check((len(t.drr) > 0) == (t.drrRing >= 0), "%s: thread %s: bound to ring %d with %d restrictions",
			c.id, name, t.drrRing, len(t.drr))
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
			invariants.Check(o.version < cur, "%s: key %s: stored version %x replaced the newer %x", m.id, k, cur, o.version)
			if i > 0 {
				invariants.Check(old[i-1].version < o.version && old[i-1].evt <= o.evt,
					"%s: key %s: multiversion window out of order at %d", m.id, k, i)
			}
		}
	}
	for wk := range m.incoming {
		invariants.Check(m.inval[wk] == nil, "%s: write %s both waits for dependencies and is stored", m.id, wk)
	}
}
