package karma

import (
	"fmt"
	"maps"
	"slices"

	"github.com/causeway/causeway/protocol"
)

// Invariants at quiescence (protocol.Quiescer): once every fault has
// healed and the network is quiet, every write has completed in every ring
// and been declared stable, so nothing may be left in a write buffer, no
// thread may be restricted to a ring, no get or transaction may be
// pending, and at every middle man no write may wait for a dependency or
// an invalidation, no DepCheck may wait for an answer, and the stored
// version of every key must be committed and stable (a STABLE lost on the
// way is made up for by the MM's stability probes, stabilize.go).

var (
	_ protocol.Quiescer = (*coordinator)(nil)
	_ protocol.Quiescer = (*middleMan)(nil)
	_ protocol.Quiescer = (*session)(nil)
)

// maxQuiescenceReports bounds the problems one node reports.
const maxQuiescenceReports = 5

// problems collects invariant violations, keeping the first few.
type problems struct {
	list []string
	more int
}

func (p *problems) addf(format string, args ...any) {
	if len(p.list) == maxQuiescenceReports {
		p.more++
		return
	}
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	s := ""
	for i, l := range p.list {
		if i > 0 {
			s += "; "
		}
		s += l
	}
	if p.more > 0 {
		s += fmt.Sprintf("; and %d more", p.more)
	}
	return fmt.Errorf("not quiescent: %s", s)
}

// CheckQuiescent implements protocol.Quiescer for a client coordinator:
// empty write buffers, no restrictions (but COPS-PR's, which restrict
// nothing), no notify-after, get or transaction in progress.
func (c *coordinator) CheckQuiescent() error {
	var p problems
	for _, name := range slices.Sorted(maps.Keys(c.threads)) {
		t := c.threads[name]
		if n := len(t.wb); n > 0 {
			e := t.wb[0]
			p.addf("thread %s: write buffer holds %d writes, the oldest %s acknowledged by rings %v",
				name, n, depKey(e.put.Key, e.put.Version), ackedRings(e))
		}
		// COPS-PR's in-flight reads restrict nothing (its threads are bound
		// to their DC's ring anyway): they stay as the next put's
		// dependencies, a COPS client's context, with no notify-after.
		if !c.p.mode.OwnRing && (len(t.drr) > 0 || t.drrRing >= 0) {
			p.addf("thread %s: restricted to ring %d by %v", name, t.drrRing, slices.Sorted(maps.Keys(t.drr)))
		}
		if t.notify != nil {
			p.addf("thread %s: notify-after %d acknowledged by rings %v", name, t.notify.put.Id, ackedRings(t.notify))
		}
		if t.get != nil {
			p.addf("thread %s: get of %s pending", name, t.get.key)
		}
		if t.txn != nil {
			p.addf("thread %s: get-transaction of %v pending", name, t.txn.keys)
		}
	}
	if len(c.entries) > 0 {
		ids := slices.Sorted(maps.Keys(c.entries))
		p.addf("%d write-buffer entries still propagating (ids %v…)", len(ids), ids[:min(len(ids), 3)])
	}
	return p.err()
}

func ackedRings(e *wbEntry) []int {
	var out []int
	for r, a := range e.acked {
		if a {
			out = append(out, r)
		}
	}
	return out
}

// CheckQuiescent implements protocol.Quiescer for a middle man: no write
// waiting for dependencies or invalidations, no DepCheck outstanding or
// waiting here (by version too), every stored version committed here and stable, and no
// stable version newer than the stored one (a premature STABLE).
func (m *middleMan) CheckQuiescent() error {
	var p problems
	for _, wk := range slices.Sorted(maps.Keys(m.incoming)) {
		p.addf("write %s waits for its dependencies", wk)
	}
	if n := m.deps.Len(); n > 0 {
		p.addf("%d dependency checks outstanding", n)
	}
	for _, wk := range slices.Sorted(maps.Keys(m.inval)) {
		iv := m.inval[wk]
		p.addf("write %s waits for invalidations by %v (gated: %v, ordered: %v)", wk, slices.Sorted(maps.Keys(iv.pending)), iv.gated, iv.ordered)
	}
	for _, wk := range slices.Sorted(maps.Keys(m.pending)) {
		p.addf("write %s is ready and not installed", wk)
	}
	for _, k := range slices.Sorted(maps.Keys(m.held)) {
		p.addf("%d reads of %s are held", len(m.held[k]), k)
	}
	for _, w := range []map[string]map[protocol.NodeID]bool{m.waiters, m.readyWaiters, m.installedWaiters, m.selfWaiters} {
		for _, dk := range slices.Sorted(maps.Keys(w)) {
			p.addf("DepChecks of %v wait here for %s", slices.Sorted(maps.Keys(w[dk])), dk)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(m.early)) {
		p.addf("DepChecks of %v wait here for version %x, never seen", slices.Sorted(maps.Keys(m.early[v])), v)
	}
	keys := map[string]bool{}
	for k := range m.store {
		keys[k] = true
	}
	for k := range m.stable {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		v, s := m.store[k].version, m.stable[k]
		if v > 0 && !m.committed[depKey(k, v)] {
			p.addf("key %s: stored version %x is not committed here", k, v)
		}
		switch {
		case s > v:
			p.addf("key %s: stable version %x is newer than the stored %x", k, s, v)
		case v > s:
			p.addf("key %s: stored version %x is not stable (stable: %x)", k, v, s)
		}
	}
	return p.err()
}

// CheckQuiescent implements protocol.Quiescer for a client thread: no
// operation outstanding and no migration under way.
func (s *session) CheckQuiescent() error {
	switch {
	case s.mig != nil:
		return fmt.Errorf("not quiescent: migrating from %s", s.mig.from)
	case s.pending != nil:
		return fmt.Errorf("not quiescent: %v operation %d outstanding", s.pending.Op, s.reqID)
	}
	return nil
}
