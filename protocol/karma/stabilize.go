package karma

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// Stability probes: a CC sends STABLE once, when every ring has
// acknowledged a write; one lost to a partition, a loss or a crash of its
// MM (the "t/" mark is not synced) would leave the version in flight until
// the key's next write, restricting every reader of it, and a quiescent
// system with versions in flight. So an MM that has held a committed
// version for stableProbeAfter without learning it stable asks the key's
// replica in every other ring whether the version is committed there (a
// DepCheck, answered at once or once it is); when every ring says so the
// version is stable — committed in every ring means its causal past is too
// (its dependencies and its thread's previous write were committed there
// before it), which is what the CC's STABLE asserts — and the answers'
// commit clocks cover its commit in every ring, as STABLE's clock does.
// A DepOK from another ring is always a probe's answer: MMs send their own
// DepChecks within their ring.

// stableProbeAfter is how long a committed version waits for its STABLE
// before the MM probes the other rings: far beyond a write's usual time to
// complete, so that probes are sent only for lost STABLEs.
const stableProbeAfter = 10 * time.Second

// stabilityProbe is the probe of a key's stored version.
type stabilityProbe struct {
	version uint64
	since   time.Duration // -1: committed since the last tick
	sent    bool
	retry   protocol.Retry
	ok      map[int]bool // rings that have the version committed
}

// stabilizer holds an MM's probes, by key.
type stabilizer struct {
	probes map[string]*stabilityProbe
}

// committed notes that version of key is committed here.
func (s *stabilizer) committed(key string, version uint64) {
	if p := s.probes[key]; p != nil && p.version >= version {
		return
	}
	if s.probes == nil {
		s.probes = map[string]*stabilityProbe{}
	}
	s.probes[key] = &stabilityProbe{version: version, since: -1, ok: map[int]bool{}}
}

// pending reports whether a stored version is not yet known stable.
func (s *stabilizer) pending() bool { return len(s.probes) > 0 }

// recover probes every committed version a restarted MM holds that its
// storage does not mark stable.
func (m *middleMan) recoverStability() {
	for k, o := range m.store {
		if o.version > m.stable[k] && m.committed[depKey(k, o.version)] {
			m.stab.committed(k, o.version)
		}
	}
}

// probeStability forgets probes of versions now stable or superseded and
// sends the due ones.
func (m *middleMan) probeStability(now time.Duration, r *protocol.Ready) {
	for _, k := range slices.Sorted(maps.Keys(m.stab.probes)) {
		p := m.stab.probes[k]
		switch {
		case m.stable[k] >= p.version || m.store[k].version != p.version:
			delete(m.stab.probes, k)
			continue
		case p.since < 0:
			p.since = now
			continue
		case now-p.since < stableProbeAfter:
			continue
		case !p.sent:
			p.sent, p.retry = true, protocol.SentAt(now)
		case !due(&p.retry, now):
			continue
		}
		for ring := range m.topo.Rings() {
			if ring != m.ring && !p.ok[ring] {
				r.Send(m.id, replica(m.topo, ring, k), &pb.DepCheck{Dep: &pb.Dep{Key: k, Version: p.version}})
			}
		}
	}
}

// stabilityAnswer handles a DepOK from another ring (a probe's answer)
// and reports whether it was one.
func (m *middleMan) stabilityAnswer(from protocol.NodeID, b *pb.DepOK, r *protocol.Ready) bool {
	ring := m.topo.RingOf(from.DC())
	if ring == m.ring || b.Dep == nil {
		return false
	}
	p := m.stab.probes[b.Dep.Key]
	if p == nil || p.version != b.Dep.Version {
		return true
	}
	p.ok[ring] = true
	for rg := range m.topo.Rings() {
		if rg != m.ring && !p.ok[rg] {
			return true
		}
	}
	delete(m.stab.probes, b.Dep.Key)
	m.markStable(b.Dep.Key, b.Dep.Version, r)
	return true
}
