package fullrep

import (
	"strconv"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
)

// Pruning the committed-version set (causal mode; issue #17). A server
// remembers every version committed here so that a dep_check on that
// exact version succeeds: a key's current version by its "d/" record, the
// others in seen ("s/" records; commit). A stable version — committed
// in every DC (stable.go) — needs no record: committed answers yes for it
// from the frontier alone. So once an origin's frontier passes versions in
// seen, they are dropped from memory and storage, and the frontier that
// covers them is stored first ("t/<origin>", its value in the record's
// version), in the same batch before the deletes: a crash that keeps a
// delete keeps the frontier too (a crash loses a suffix of unsynced
// writes), so no committed version is ever forgotten. The set then holds
// the versions not yet acknowledged everywhere, about one round trip's
// worth, however long a run lasts.

// seenItem is a version in seen, ordered by its Lamport counter.
type seenItem struct {
	counter uint64
	v       versionID
}

// seenQueue is a binary min-heap of one origin's versions in seen, by
// counter (unique per origin: an origin mints one version per counter).
type seenQueue []seenItem

func (q *seenQueue) push(it seenItem) {
	h := append(*q, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p].counter <= it.counter {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = it
	*q = h
}

func (q *seenQueue) pop() seenItem {
	h := *q
	top := h[0]
	last := h[len(h)-1]
	h = h[:len(h)-1]
	i, n := 0, len(h)
	for n > 0 {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].counter < h[c].counter {
			c++
		}
		if last.counter <= h[c].counter {
			break
		}
		h[i] = h[c]
		i = c
	}
	if n > 0 {
		h[i] = last
	}
	*q = h
	return top
}

// originOf splits a version into its origin server's index and its
// Lamport counter.
func originOf(version uint64) (origin, counter uint64) {
	return version & (1<<serverBits - 1), version >> serverBits
}

// addSeen records that dk is committed here.
func (s *server) addSeen(dk versionID) {
	s.seen[dk] = true
	origin, counter := originOf(dk.version)
	q := s.seenBy[origin]
	if q == nil {
		q = &seenQueue{}
		s.seenBy[origin] = q
	}
	q.push(seenItem{counter, dk})
}

// knownFrontier is the highest frontier of origin this server knows:
// every version origin minted with a lower counter is committed in every
// DC.
func (s *server) knownFrontier(origin uint64) uint64 {
	if origin == s.index {
		return max(s.frontier(), s.stable[origin])
	}
	return s.stable[origin]
}

// durablyStable reports whether a stored frontier covers version: it is
// committed in every DC, and this server will still know it after a
// crash.
func (s *server) durablyStable(version uint64) bool {
	origin, counter := originOf(version)
	return counter < s.persisted[origin]
}

// prune drops from seen origin's versions below its known frontier.
func (s *server) prune(origin uint64, r *protocol.Ready) {
	q := s.seenBy[origin]
	if q == nil || len(*q) == 0 {
		return
	}
	f := s.knownFrontier(origin)
	if (*q)[0].counter >= f {
		return
	}
	s.stable[origin] = f
	s.persisted[origin] = f
	key := "t/" + strconv.FormatUint(origin, 10)
	r.Write(storage.Write{Kind: storage.Put, Key: key, Version: f}, false)
	r.Write(storage.Write{Kind: storage.DeleteBelow, Key: key, Version: f}, false)
	for len(*q) > 0 && (*q)[0].counter < f {
		it := q.pop()
		delete(s.seen, it.v)
		r.Write(storage.Write{Kind: storage.DeleteVersion, Key: "s/" + it.v.String()}, false) // put at version 0 (remember)
	}
}
