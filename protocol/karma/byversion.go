package karma

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// Program-order asks by version (doc.go, "Program-order asks by
// version"). An MM's first asks about a write's program-order
// dependencies go, one DepCheck per owning MM, as lists of versions
// (DepCheck.after, after_ready, after_self) without keys: versions are
// unique (a CC's counter ticks at every write it mints, and its index is
// in the low bits), so the owner finds each one's key among the writes it
// has (keyOf), or when the write arrives (early). Every answer about a
// program-order dependency — ready (with its ready time) or written
// itself — goes the same way, key-less (DepOK.ready_versions, ready_ago,
// self_versions), and the answers one step produces for one MM go as one
// DepOK (okOut, flushed at the end of the step). Nothing else changes:
// each version is asked, waited for and answered as when it went as a
// Dep with program_order, and the asker, which named it from a RingPut's
// program-order list, knows its key. Re-asks (depwait's, marked lost, and
// a held read's) and probes still name the key.

// ringIndex is the index, among ring's storage servers (its DCs in
// order, each DC's servers in order), of the one that stores key: how a
// RingPut names the owner of a program-order dependency
// (RingPut.after_owners).
func ringIndex(t *topology.Topology, ring int, key string) uint32 {
	dc, i := t.RingReplica(ring, key)
	n := 0
	for _, d := range t.Rings()[ring] {
		if d == dc {
			break
		}
		n += dcServers(t, d)
	}
	return uint32(n + i)
}

// ringNode is the storage server (with its MM) at index i of ring
// (ringIndex); an index past the ring's last server wraps around.
func ringNode(t *topology.Topology, ring int, i uint32) protocol.NodeID {
	total := 0
	for _, d := range t.Rings()[ring] {
		total += dcServers(t, d)
	}
	n := int(i) % max(total, 1)
	for _, d := range t.Rings()[ring] {
		if s := dcServers(t, d); n >= s {
			n -= s
		} else {
			return protocol.MakeNodeID(d, storageName(n))
		}
	}
	return ""
}

func dcServers(t *topology.Topology, dc string) int {
	for _, d := range t.Datacenters {
		if d.Name == dc {
			return d.Servers
		}
	}
	return 0
}

// ownerOf is the MM of this ring that owns a dependency: by its key, or
// for a program-order dependency named without one, by its owner index.
func (m *middleMan) ownerOf(d *pb.Dep) protocol.NodeID {
	if d.Key == "" {
		return ringNode(m.topo, m.ring, d.Owner)
	}
	return replica(m.topo, m.ring, d.Key)
}

// askKind says what a DepCheck by version asks about a write.
type askKind uint8

const (
	askReady askKind = 1 << iota
	askSelf
	askInstalled // a put-after dependency installed
	askWritten   // a put-after (or notify-after) dependency written
)

// okBatch is the key-less DepOK being gathered for one MM in this step.
type okBatch struct {
	ready             map[uint64]uint64 // version -> ready time
	self, inst, wrote map[uint64]bool
}

// learnKey records the key of a version named in a RingPut or recovered.
func (m *middleMan) learnKey(key string, version uint64) {
	if version != 0 && key != "" {
		m.keyOf[version] = key
	}
}

// learnKeyOf records the key of a version from its depKey.
func (m *middleMan) learnKeyOf(dk string) {
	i := strings.LastIndexByte(dk, '@')
	if i < 0 {
		return
	}
	if v, err := strconv.ParseUint(dk[i+1:], 16, 64); err == nil {
		m.learnKey(dk[:i], v)
	}
}

// askByVersion adds a program-order dependency to the DepCheck going to
// its owner (sendAsks sends them).
func askByVersion(asks map[protocol.NodeID]*pb.DepCheck, owner protocol.NodeID, version uint64, kind askKind) {
	c := asks[owner]
	if c == nil {
		c = &pb.DepCheck{}
		asks[owner] = c
	}
	switch kind {
	case askReady | askSelf:
		c.After = append(c.After, version)
	case askReady:
		c.AfterReady = append(c.AfterReady, version)
	case askSelf:
		c.AfterSelf = append(c.AfterSelf, version)
	case askInstalled:
		c.Installed = append(c.Installed, version)
	case askWritten:
		c.Written = append(c.Written, version)
	}
}

// sendAsks sends each owner its DepCheck, lists packed.
// The ready and installed asks about another DC's versions go to their
// owner's proxy in this DC (push.go).
func (m *middleMan) sendAsks(asks map[protocol.NodeID]*pb.DepCheck, r *protocol.Ready) {
	proxied := m.proxyAsks(asks)
	for _, set := range []map[protocol.NodeID]*pb.DepCheck{asks, proxied} {
		for _, owner := range slices.Sorted(maps.Keys(set)) {
			c := set[owner]
			c.After, c.AfterReady, c.AfterSelf = packVersions(c.After), packVersions(c.AfterReady), packVersions(c.AfterSelf)
			c.Installed, c.Written = packVersions(c.Installed), packVersions(c.Written)
			r.Send(m.id, owner, c)
		}
	}
}

// packVersions sorts vs and turns each into its difference from the
// previous one.
func packVersions(vs []uint64) []uint64 {
	slices.Sort(vs)
	vs = slices.Compact(vs)
	prev := uint64(0)
	for i, v := range vs {
		vs[i], prev = v-prev, v
	}
	return vs
}

// unpackVersions undoes packVersions (into a new slice).
func unpackVersions(ds []uint64) []uint64 {
	out := make([]uint64, len(ds))
	v := uint64(0)
	for i, d := range ds {
		v += d
		out[i] = v
	}
	return out
}

// askedByVersion handles a DepCheck by version.
func (m *middleMan) askedByVersion(from protocol.NodeID, b *pb.DepCheck) {
	for _, l := range []struct {
		vs   []uint64
		kind askKind
	}{{b.After, askReady | askSelf}, {b.AfterReady, askReady}, {b.AfterSelf, askSelf}, {b.Installed, askInstalled}, {b.Written, askWritten}} {
		for _, v := range unpackVersions(l.vs) {
			if key, ok := m.keyOf[v]; ok {
				m.askedProgramOrder(from, key, v, l.kind)
				continue
			}
			if m.early[v] == nil {
				m.early[v] = map[protocol.NodeID]askKind{}
			}
			m.early[v][from] |= l.kind
		}
	}
}

// arrived answers, or registers, the asks by version made before the
// write reached this MM.
func (m *middleMan) arrived(key string, version uint64) {
	m.learnKey(key, version)
	e := m.early[version]
	if e == nil {
		return
	}
	delete(m.early, version)
	for _, from := range slices.Sorted(maps.Keys(e)) {
		m.askedProgramOrder(from, key, version, e[from])
	}
}

// askedProgramOrder answers, or waits to answer, whether this MM's write
// is ready (askReady), written itself (askSelf), installed (askInstalled)
// or written (askWritten).
func (m *middleMan) askedProgramOrder(from protocol.NodeID, key string, version uint64, kind askKind) {
	dk := depKey(key, version)
	if kind&askInstalled != 0 {
		if m.installedHere(dk) {
			m.okTo(from).inst[version] = true
		} else {
			addWaiter(m.installedWaiters, dk, from)
		}
	}
	if kind&askWritten != 0 {
		if m.committed[dk] {
			m.okTo(from).wrote[version] = true
		} else {
			addWaiter(m.waiters, dk, from)
		}
	}
	if kind&askReady != 0 {
		if at, ok := m.readyAt[dk]; ok {
			m.answerReady(from, version, at)
		} else {
			addWaiter(m.readyWaiters, dk, from)
		}
	}
	if kind&askSelf != 0 {
		m.askedSelfWritten(from, key, version)
	}
}

func (m *middleMan) okTo(to protocol.NodeID) *okBatch {
	o := m.okOut[to]
	if o == nil {
		o = &okBatch{ready: map[uint64]uint64{}, self: map[uint64]bool{}, inst: map[uint64]bool{}, wrote: map[uint64]bool{}}
		m.okOut[to] = o
	}
	return o
}

// answerReady tells an MM that this MM's write is ready, at ready time at.
func (m *middleMan) answerReady(to protocol.NodeID, version, at uint64) {
	m.okTo(to).ready[version] = at
}

// answerSelf tells an MM that this MM's write is written itself.
func (m *middleMan) answerSelf(to protocol.NodeID, version uint64) {
	m.okTo(to).self[version] = true
}

// flushOKs sends the key-less DepOKs gathered in this step, one per MM.
func (m *middleMan) flushOKs(r *protocol.Ready) {
	if len(m.okOut) == 0 {
		return
	}
	for _, to := range slices.Sorted(maps.Keys(m.okOut)) {
		o := m.okOut[to]
		for _, at := range o.ready {
			m.lc.observe(at) // a relayed (proxied) ready time may be above this clock
		}
		ok := &pb.DepOK{Clock: m.lc.now}
		vs := slices.Sorted(maps.Keys(o.ready))
		for _, v := range vs {
			ok.ReadyAgo = append(ok.ReadyAgo, m.lc.now-o.ready[v])
		}
		ok.ReadyVersions = packVersions(vs)
		ok.SelfVersions = packVersions(slices.Collect(maps.Keys(o.self)))
		ok.InstalledVersions = packVersions(slices.Collect(maps.Keys(o.inst)))
		ok.WrittenVersions = packVersions(slices.Collect(maps.Keys(o.wrote)))
		r.Send(m.id, to, ok)
	}
	clear(m.okOut)
}

// answeredByVersion handles a key-less DepOK: the ready ones first, then
// those written themselves, as separate DepOKs were handled.
func (m *middleMan) answeredByVersion(now time.Duration, b *pb.DepOK, r *protocol.Ready) {
	vs := unpackVersions(b.ReadyVersions)
	for i, v := range vs {
		if i >= len(b.ReadyAgo) || b.ReadyAgo[i] > b.Clock {
			continue // malformed
		}
		dk := depKey("", v) // as unpackAfter names it
		m.knownReady[dk] = b.Clock - b.ReadyAgo[i]
		m.depSatisfied(now, readyPrefix+dk, r)
	}
	for _, v := range unpackVersions(b.SelfVersions) {
		dk := depKey("", v)
		m.knownSelfWritten[dk] = true
		m.depSatisfied(now, selfPrefix+dk, r)
	}
	// Put-after dependencies are named by key here (learnt when asked).
	for _, v := range unpackVersions(b.InstalledVersions) {
		if key, ok := m.keyOf[v]; ok {
			dk := depKey(key, v)
			m.knownInstalled[dk] = true
			m.depSatisfied(now, installedPrefix+dk, r)
		}
	}
	for _, v := range unpackVersions(b.WrittenVersions) {
		if key, ok := m.keyOf[v]; ok {
			dk := depKey(key, v)
			m.knownWritten[dk] = true
			m.depSatisfied(now, dk, r)
		}
	}
}

// askedWithoutKey handles a re-ask (lost) of a program-order dependency
// named by version alone, as its first ask was: by the key the version
// has here, or, if it never came here, waiting for it (after asking its
// CC to send it again). It reports whether the DepCheck is handled.
func (m *middleMan) askedWithoutKey(from protocol.NodeID, b *pb.DepCheck, r *protocol.Ready) bool {
	var kind askKind
	switch {
	case b.Dep.SelfWritten:
		kind = askSelf
	case b.Dep.ProgramOrder:
		kind = askReady
		if b.SelfToo {
			kind |= askSelf
		}
	default:
		return false
	}
	key, known := m.keyOf[b.Dep.Version]
	if b.Lost {
		m.askMinter(&pb.Dep{Key: key, Version: b.Dep.Version}, r)
	}
	if known {
		m.askedProgramOrder(from, key, b.Dep.Version, kind)
		return true
	}
	if m.early[b.Dep.Version] == nil {
		m.early[b.Dep.Version] = map[protocol.NodeID]askKind{}
	}
	m.early[b.Dep.Version][from] |= kind
	return true
}
