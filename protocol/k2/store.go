package k2

import (
	"slices"
	"time"
)

// entry is one committed version of a key made visible locally at its
// EVT (k2.txt §IV-A, §V-C).
type entry struct {
	ver, evt uint64
	// at is the local time it was committed, lastRead the last time a
	// first round returned it (GC keeps both within GCAfter).
	at, lastRead time.Duration
}

// stored is a version's value kept at a replica server for remote reads.
type stored struct {
	value []byte
	// supersededAt is when a newer version committed here (0: newest).
	supersededAt time.Duration
}

// keyState is everything a server knows of one key: the multiversion
// framework (§IV-A), IncomingWrites, pending marks and committed versions.
type keyState struct {
	// entries are the visible versions in EVT order; a version is visible
	// at time t when it is the highest version with evt ≤ t. entries[0]
	// is the oldest kept (the loaded version 0 at EVT 0 until GC).
	entries []entry
	maxVer  uint64
	// values: a replica server's committed values, by version.
	values map[uint64]*stored
	// incoming is the IncomingWrites table: replicated values not yet
	// committed, visible to remote reads only.
	incoming map[uint64][]byte
	// pending marks: transaction → its prepare time at this server.
	pending map[string]uint64
	// done: committed versions and their EVT here (dependency checks and
	// idempotent commits).
	done map[uint64]uint64
	// replicas: for a non-replica key, the DCs that hold each version
	// (phase 2's list).
	replicas map[uint64][]string
	// pinned: values of local writes to a non-replica key, kept until
	// phase 1 is acknowledged.
	pinned map[uint64][]byte
	// waiting: second-round reads waiting for pending transactions.
	waiting []*readAt
}

func newKeyState() *keyState {
	return &keyState{entries: []entry{{}}, values: map[uint64]*stored{}, incoming: map[uint64][]byte{},
		pending: map[string]uint64{}, done: map[uint64]uint64{0: 0}, replicas: map[uint64][]string{}, pinned: map[uint64][]byte{}}
}

// minPending returns the earliest prepare time of a pending transaction
// (0 and false when none).
func (k *keyState) minPending() (uint64, bool) {
	var m uint64
	ok := false
	for _, p := range k.pending {
		if !ok || p < m {
			m, ok = p, true
		}
	}
	return m, ok
}

// pendingAtOrBefore reports whether a transaction prepared at or before ts
// is pending on the key (a second round at ts must wait for it, §V-C).
func (k *keyState) pendingAtOrBefore(ts uint64) bool {
	for _, p := range k.pending {
		if p <= ts {
			return true
		}
	}
	return false
}

// insert records a committed version visible from evt on. Every version
// is kept, even one older than a version already committed: a version is
// visible at t when it is the highest with evt ≤ t, so an older version
// with an earlier EVT is the key's version between its EVT and the newer
// one's (until then a pending mark hid those times). It reports whether
// ver is the highest version committed so far.
func (k *keyState) insert(ver, evt uint64, now time.Duration) bool {
	newest := ver > k.maxVer
	k.maxVer = max(k.maxVer, ver)
	i, _ := slices.BinarySearchFunc(k.entries, evt, func(e entry, t uint64) int {
		switch {
		case e.evt < t:
			return -1
		case e.evt > t:
			return 1
		}
		return 0
	})
	k.entries = slices.Insert(k.entries, i, entry{ver: ver, evt: evt, at: now})
	return newest
}

// segment is a version with the times [evt, lvt] at which it is visible.
type segment struct {
	idx      int // its entry
	ver      uint64
	evt, lvt uint64
	// staleAt is when the next version became visible locally (0: none).
	staleAt time.Duration
}

// segments lists the key's visible versions over [floor, limit], in time
// order: entry i starts a segment when its version exceeds every earlier
// one's.
func (k *keyState) segments(limit uint64) []segment {
	var out []segment
	var best uint64
	for i, e := range k.entries {
		if i > 0 && e.ver <= best {
			continue
		}
		best = e.ver
		if e.evt > limit {
			break
		}
		if n := len(out); n > 0 {
			out[n-1].lvt = e.evt - 1
			out[n-1].staleAt = e.at
		}
		out = append(out, segment{idx: i, ver: e.ver, evt: e.evt, lvt: limit})
	}
	// A segment whose successor starts at its own EVT is empty.
	return slices.DeleteFunc(out, func(s segment) bool { return s.lvt < s.evt })
}

// at returns the version visible at ts and its segment, and false when ts
// is before the oldest version kept.
func (k *keyState) at(ts uint64) (segment, bool) {
	segs := k.segments(^uint64(0))
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].evt <= ts {
			return segs[i], true
		}
	}
	return segment{}, false
}

// GC (k2.txt §IV-A) keeps a version while it is not superseded for more
// than GCAfter, or while a first round returned it within GCAfter — but
// the latter only up to 2·GCAfter after it was superseded, so that a
// client reading a hot key at an old read_ts (find_ts takes the earliest
// time that works) is still moved forward: the paper's "GC guarantees
// progress". An expired version is no longer returned by first rounds
// (liveFloor); it is dropped from memory 3·GCAfter after it was
// superseded, so a second round following a first within the operation's
// timeout still finds it.

// supersededAt returns when the segment starting at entries[i] was
// superseded here (its successor's commit time), and false for the
// newest.
func (k *keyState) supersededAt(i int) (time.Duration, bool) {
	for j := i + 1; j < len(k.entries); j++ {
		if k.entries[j].ver > k.entries[i].ver {
			return k.entries[j].at, true
		}
	}
	return 0, false
}

// liveFloor is the EVT of the oldest version a first round still returns.
func (k *keyState) liveFloor(now time.Duration) uint64 {
	best := uint64(0)
	for i, e := range k.entries {
		if i > 0 && e.ver <= best {
			continue
		}
		best = e.ver
		at, ok := k.supersededAt(i)
		if !ok || now-at <= GCAfter || (now-e.lastRead <= GCAfter && now-at <= 2*GCAfter) {
			return e.evt
		}
	}
	return k.entries[len(k.entries)-1].evt
}

// gc drops, from the oldest on, versions superseded more than 3·GCAfter
// ago, and a replica's values superseded more than fetchRetention ago.
// Storage keeps them (see doc.go, deviations).
func (k *keyState) gc(now time.Duration) {
	for len(k.entries) > 1 {
		e, next := k.entries[0], k.entries[1]
		if next.ver < e.ver || now-next.at <= 3*GCAfter {
			break
		}
		k.entries = k.entries[1:]
	}
	for v, s := range k.values {
		if s.supersededAt > 0 && now-s.supersededAt > fetchRetention {
			delete(k.values, v)
		}
	}
}
