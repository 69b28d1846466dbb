package karma

import (
	"container/heap"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
)

// Pruning per-version state (doc.go, "Pruning"). A CC's versions are
// settled below its settled frontier: every write it minted below it is
// complete (written in every ring), and so is every write of its threads
// that was buffered while one of those was not. An MM forgets everything
// it keeps about a settled version — committed, ready time, installed,
// its key, and what other MMs told it — and answers every ask about one
// from the frontier alone: it is ready, installed, written itself and
// written here, and no write still waiting anywhere in the ring names it
// as a program-order dependency, so its ready time is no longer needed
// (answered as 0). The frontier is stored ("f/<cc index>") before the
// "s/" markers it covers are deleted, in the same batch.

// settler computes a CC's settled frontier. Versions are minted in
// increasing order, so the versions of buffered writes form a queue.
type settler struct {
	buffered []uint64        // versions of buffered writes, ascending
	done     map[uint64]bool // complete, not yet at the queue's head
	// mark is the complete-below frontier when it last moved, and
	// markNext the first version the CC could mint then (0: no mark):
	// once everything below markNext is complete, mark is settled.
	mark, markNext uint64
	settled        uint64
}

// minted records a buffered write's version (in increasing order).
func (s *settler) minted(v uint64) { s.buffered = append(s.buffered, v) }

// recovered sorts the versions of the writes recovered after a restart.
func (s *settler) recovered() { slices.Sort(s.buffered) }

// completed records that the write of version v is complete; next is
// above every version the CC has minted.
func (s *settler) completed(v, next uint64) {
	if s.done == nil {
		s.done = map[uint64]bool{}
	}
	s.done[v] = true
	for len(s.buffered) > 0 && s.done[s.buffered[0]] {
		delete(s.done, s.buffered[0])
		s.buffered = s.buffered[1:]
	}
	below := next // every version minted below it is complete
	if len(s.buffered) > 0 {
		below = s.buffered[0]
	}
	if s.markNext != 0 && below >= s.markNext {
		s.settled, s.markNext = s.mark, 0
	}
	if s.markNext == 0 && below > s.settled {
		s.mark, s.markNext = below, next
	}
}

// nextVersion is above every version the CC has minted.
func (c *coordinator) nextVersion() uint64 { return (c.vc.now + 1) << ccBits }

// ccIndexOf is the index of the CC that minted version (mintedBy).
func ccIndexOf(version uint64) uint64 { return version & (1<<ccBits - 1) }

// prunable is a version an MM keeps state about, with its key ("" when
// it knows none).
type prunable struct {
	version uint64
	key     string
}

// versionHeap is a min-heap of prunables by version.
type versionHeap []prunable

func (h versionHeap) Len() int           { return len(h) }
func (h versionHeap) Less(i, j int) bool { return h[i].version < h[j].version }
func (h versionHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *versionHeap) Push(x any)        { *h = append(*h, x.(prunable)) }
func (h *versionHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// pruner is an MM's side: each CC's settled frontier as far as this MM
// knows it and the versions it keeps state about, by
// minting CC.
type pruner struct {
	settled map[uint64]uint64
	tracked map[uint64]*versionHeap
	// stale are "s/" records below a stored frontier found at recovery
	// (their deletes were lost in a crash), deleted at start.
	stale []storage.Write
}

func frontierKey(cc uint64) string { return "f/" + strconv.FormatUint(cc, 16) }

// pruned reports whether a version is settled: whatever this MM is asked
// about it, the answer is yes (and its ready time is not needed).
// Version 0, a key's initial state, is not a write.
func (m *middleMan) pruned(version uint64) bool {
	return version != 0 && version < m.prune.settled[ccIndexOf(version)]
}

// prunedDK is pruned for a depKey ("<key>@<hex version>").
func (m *middleMan) prunedDK(dk string) bool {
	i := strings.LastIndexByte(dk, '@')
	if i < 0 {
		return false
	}
	v, err := strconv.ParseUint(dk[i+1:], 16, 64)
	return err == nil && m.pruned(v)
}

// isCommitted reports whether a version is written (committed) here.
func (m *middleMan) isCommitted(dk string, version uint64) bool {
	return m.committed[dk] || m.pruned(version)
}

// track notes that this MM keeps state about a version (key "" when
// named without one).
func (m *middleMan) track(key string, version uint64) {
	cc := ccIndexOf(version)
	h := m.prune.tracked[cc]
	if h == nil {
		h = &versionHeap{}
		m.prune.tracked[cc] = h
	}
	heap.Push(h, prunable{version: version, key: key})
}

// recoverFrontiers loads the stored settled frontiers (before "s/").
func (m *middleMan) recoverFrontiers(st storage.Reader) {
	_ = st.Scan("f/", func(r storage.Record) error {
		if cc, err := strconv.ParseUint(r.Key[2:], 16, 64); err == nil {
			m.prune.settled[cc] = max(m.prune.settled[cc], r.Version)
		}
		return nil
	})
}

// settle takes a CC's settled frontier from its Stable and forgets the
// versions it passes.
func (m *middleMan) settle(now time.Duration, cc, settled uint64, r *protocol.Ready) {
	if settled <= m.prune.settled[cc] {
		return
	}
	m.prune.settled[cc] = settled
	h := m.prune.tracked[cc]
	if h == nil || h.Len() == 0 || (*h)[0].version >= settled {
		return
	}
	r.Write(storage.Write{Kind: storage.Put, Key: frontierKey(cc), Version: settled}, false)
	r.Write(storage.Write{Kind: storage.DeleteBelow, Key: frontierKey(cc), Version: settled}, false)
	var keep []prunable
	var waits []string
	early := map[uint64]map[protocol.NodeID]askKind{}
	for h.Len() > 0 && (*h)[0].version < settled {
		p := heap.Pop(h).(prunable)
		dk, at := depKey(p.key, p.version), depKey("", p.version)
		if m.pending[dk] != nil || m.incoming[dk] != nil || m.inval[dk] != nil {
			keep = append(keep, p) // cannot be (settled means written here)
			continue
		}
		if m.committed[dk] {
			r.Write(storage.Write{Kind: storage.DeleteVersion, Key: "s/" + dk, Version: m.readyAt[dk]}, false)
		}
		if m.keyOf[p.version] == p.key {
			delete(m.keyOf, p.version)
		}
		for _, s := range []map[string]bool{m.committed, m.installed, m.selfWritten, m.knownWritten, m.knownInstalled, m.knownSelfWritten} {
			delete(s, dk)
			delete(s, at)
		}
		delete(m.readyAt, dk)
		delete(m.knownReady, dk)
		delete(m.knownReady, at)
		if e := m.early[p.version]; e != nil {
			early[p.version] = e
			delete(m.early, p.version)
		}
		waits = append(waits, dk, installedPrefix+dk, readyPrefix+at, selfPrefix+at, readyPrefix+dk, selfPrefix+dk)
	}
	for _, p := range keep {
		heap.Push(h, p)
	}
	// Asks kept for a version that never arrived: settled, it was
	// written here (a crash lost the ask's record of it), so answer.
	for _, v := range slices.Sorted(maps.Keys(early)) {
		for _, from := range slices.Sorted(maps.Keys(early[v])) {
			m.askedProgramOrder(from, "", v, early[v][from])
		}
	}
	// Writes waiting here for a settled version wait no more.
	for _, name := range waits {
		m.depSatisfied(now, name, r)
	}
}

// answerSettled answers an ask about a settled version: it is ready (its
// ready time no longer needed: 0), written itself, installed and written
// here.
func (m *middleMan) answerSettled(from protocol.NodeID, version uint64, kind askKind) {
	o := m.okTo(from)
	if kind&askReady != 0 {
		o.ready[version] = 0
	}
	if kind&askSelf != 0 {
		o.self[version] = true
	}
	if kind&askInstalled != 0 {
		o.inst[version] = true
	}
	if kind&askWritten != 0 {
		o.wrote[version] = true
	}
}

// agingKey is a key whose multiversion window gained a version at.
type agingKey struct {
	at  time.Duration
	key string
}

// expireOld drops from the multiversion windows the versions superseded
// more than txnWindow ago, oldest first, as supersede does when the key
// is written again: a key written once and never again would otherwise
// keep its window for ever. Only a window's oldest versions go, so a
// second round at a time they covered finds none and answers too_old
// (never a wrong version).
func (m *middleMan) expireOld(now time.Duration) {
	for len(m.aging) > 0 && now-m.aging[0].at > txnWindow {
		key := m.aging[0].key
		m.aging = m.aging[1:]
		old := m.old[key]
		drop := 0
		for drop < len(old) && now-old[drop].until > txnWindow {
			drop++
		}
		if drop == len(old) {
			delete(m.old, key)
		} else if drop > 0 {
			m.old[key] = old[drop:]
		}
	}
}

// settledLag is how a Stable for version carries the frontier settled
// (Stable.settled_lag), in version counters below version's: rounded
// down to a counter, and to one below version's counter if it is not
// already, it is weaker, and still a frontier (everything below it is
// below settled).
func settledLag(version, settled uint64) uint64 {
	sc, vc := settled>>ccBits, version>>ccBits
	switch {
	case sc == 0:
		return 0
	case sc >= vc:
		return 1
	}
	return vc - sc
}
