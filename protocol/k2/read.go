package k2

import (
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/k2pb"
)

// Read-only transactions at a server (k2.txt §V-C, Fig. 5). The first
// round returns, for each key, every visible version valid at or after
// the client's read_ts with its [EVT, LVT] and its value when stored or
// cached here; it never blocks. The second round reads one key at a
// chosen time ts: it waits for transactions pending on the key that were
// prepared at or before ts (they may commit at or before ts), then
// answers with the version visible at ts, fetching its value from the
// nearest replica DC when it is not here.

// localValue returns the value of ⟨key, ver⟩ held in this DC, and
// whether it came from the cache.
func (s *server) localValue(key string, k *keyState, ver uint64) (value []byte, ok, cached bool) {
	if s.replica(key) {
		if ver == 0 {
			return s.loaded.Value(key), true, false
		}
		if st := k.values[ver]; st != nil {
			return st.value, true, false
		}
		return nil, false, false
	}
	if v, ok := k.pinned[ver]; ok {
		return v, true, !s.mode.Paris
	}
	if v, ok := s.cache.get(key, ver); ok {
		return v, true, true
	}
	return nil, false, false
}

// limit is the latest time at which key's visible versions are final:
// now, or just before the earliest pending transaction's prepare.
func (s *server) limit(k *keyState) uint64 {
	lim := s.nowTS()
	if p, ok := k.minPending(); ok && p-1 < lim {
		lim = p - 1
	}
	return lim
}

// read answers a first round.
func (s *server) read(now time.Duration, from protocol.NodeID, b *pb.ReadReq, r *protocol.Ready) {
	rep := &pb.ReadReply{ReqId: b.ReqId}
	for _, key := range b.Keys {
		k := s.state(key)
		kv := &pb.KeyVersions{Key: key, Floor: k.liveFloor(now)}
		for _, seg := range k.segments(s.limit(k)) {
			if seg.lvt < b.ReadTs || seg.lvt < kv.Floor {
				continue
			}
			k.entries[seg.idx].lastRead = now
			out := &pb.Segment{Version: seg.ver, Evt: seg.evt, Lvt: seg.lvt}
			if v, ok, cached := s.localValue(key, k, seg.ver); ok {
				out.Value, out.HasValue, out.Cached = v, true, cached
			}
			if seg.staleAt > 0 {
				out.StaleMs = float64(now-seg.staleAt) / float64(time.Millisecond)
			}
			kv.Segments = append(kv.Segments, out)
		}
		rep.Keys = append(rep.Keys, kv)
	}
	rep.Clock = s.clock
	r.Send(s.id, from, rep)
}

// readAt is a second-round read being served.
type readAt struct {
	from protocol.NodeID
	req  *pb.ReadAtReq
}

// fetch is a remote read in flight.
type fetch struct {
	w       *readAt
	key     string
	ver     uint64
	staleMs float64
	// candidates are the replica DCs by distance; next is the one to try
	// after the current.
	candidates []string
	next       int
	// startedAt is when the fetch began, sentAt when it was last sent.
	startedAt, sentAt time.Duration
	missing           uint32
	// retryAt, when set, is when to start over after every DC missed.
	retryAt time.Duration
}

// readAt serves a second-round read, or queues it behind pending
// transactions prepared at or before its ts.
func (s *server) readAt(now time.Duration, w *readAt, r *protocol.Ready) {
	b := w.req
	s.clock = max(s.clock, clockOf(b.Ts)) // later prepares come after ts
	k := s.state(b.Key)
	if k.pendingAtOrBefore(b.Ts) {
		k.waiting = append(k.waiting, w)
		return
	}
	seg, ok := k.at(b.Ts)
	if !ok {
		// ts precedes every version kept (cannot happen while the first
		// round's versions are protected from GC): the oldest kept.
		seg = segment{ver: k.entries[0].ver}
	}
	stale := 0.0
	if seg.staleAt > 0 && seg.staleAt <= now {
		stale = float64(now-seg.staleAt) / float64(time.Millisecond)
	}
	if v, ok, cached := s.localValue(b.Key, k, seg.ver); ok {
		r.Send(s.id, w.from, &pb.ReadAtReply{Clock: s.clock, ReqId: b.ReqId, Key: b.Key, Version: seg.ver, Value: v,
			Cached: cached, StaleMs: stale})
		return
	}
	holders := k.replicas[seg.ver]
	if len(holders) == 0 {
		holders = replicaDCs(s.topo, b.Key)
	}
	cands := s.byDistance(holders)
	if len(cands) == 0 {
		cands = []string{s.dc} // f = 1 and the value is gone here: ask ourselves, to count the miss
	}
	f := &fetch{w: w, key: b.Key, ver: seg.ver, staleMs: stale, candidates: cands, startedAt: now}
	s.nextFetch++
	id := s.inc<<40 | s.nextFetch
	s.fetches[id] = f
	s.sendFetch(now, id, f, r)
}

// byDistance orders dcs by round-trip time from this DC, leaving it out.
func (s *server) byDistance(dcs []string) []string {
	var out []string
	rest := append([]string(nil), dcs...)
	for len(rest) > 0 {
		n := s.topo.Nearest(s.dc, rest)
		if n == "" {
			break
		}
		if n != s.dc {
			out = append(out, n)
		}
		for i, d := range rest {
			if d == n {
				rest = append(rest[:i], rest[i+1:]...)
				break
			}
		}
	}
	return out
}

// sendFetch sends f to its next candidate.
func (s *server) sendFetch(now time.Duration, id uint64, f *fetch, r *protocol.Ready) {
	dc := f.candidates[f.next%len(f.candidates)]
	f.next++
	f.sentAt = now
	f.retryAt = 0
	r.Send(s.id, owner(s.topo, dc, f.key), &pb.Fetch{Clock: s.clock, FetchId: id, Key: f.key, Version: f.ver})
}

// serveFetch answers a remote read at once, from IncomingWrites or the
// stored versions (k2.txt §V-C: it never waits).
func (s *server) serveFetch(from protocol.NodeID, b *pb.Fetch, r *protocol.Ready) {
	rep := &pb.FetchReply{FetchId: b.FetchId, Key: b.Key, Version: b.Version}
	if s.replica(b.Key) {
		k := s.state(b.Key)
		if v, ok := k.incoming[b.Version]; ok {
			rep.Value, rep.Found = v, true
		} else if st := k.values[b.Version]; st != nil {
			rep.Value, rep.Found = st.value, true
		} else if b.Version == 0 {
			rep.Value, rep.Found = s.loaded.Value(b.Key), true
		}
	}
	rep.Clock = s.clock
	r.Send(s.id, from, rep)
}

// fetched completes a second round with a fetched value, caching it, or
// tries the next replica DC when it was missing.
func (s *server) fetched(now time.Duration, b *pb.FetchReply, r *protocol.Ready) {
	f := s.fetches[b.FetchId]
	if f == nil || f.key != b.Key || f.ver != b.Version {
		return
	}
	if !b.Found {
		f.missing++
		switch {
		case f.next < len(f.candidates):
			s.sendFetch(now, b.FetchId, f, r)
		case now-f.startedAt >= fetchGiveUp:
			s.giveUpFetch(b.FetchId, f, r)
		default:
			f.retryAt = now + resendAfter/10
		}
		return
	}
	delete(s.fetches, b.FetchId)
	s.cache.put(b.Key, b.Version, b.Value)
	r.Send(s.id, f.w.from, &pb.ReadAtReply{Clock: s.clock, ReqId: f.w.req.ReqId, Key: b.Key, Version: b.Version,
		Value: b.Value, Remote: true, Missing: f.missing, StaleMs: f.staleMs})
}

// fetchTimeout is how long a fetch waits for its answer before it is sent
// to the next replica DC (the first may be down, k2.txt §VI-A).
func (s *server) fetchTimeout(dc string) time.Duration {
	return s.topo.RTT(s.dc, dc) + 200*time.Millisecond
}

// fetchGiveUp bounds a fetch: with no replica DC giving the version by
// then, the second-round read answers unavailable instead of retrying
// forever. It is the transaction timeout of k2.txt §IV-A (GCAfter), past
// which the client has given up anyway. See doc.go, deviations.
const fetchGiveUp = GCAfter

// giveUpFetch ends fetch id, answering its read unavailable.
func (s *server) giveUpFetch(id uint64, f *fetch, r *protocol.Ready) {
	delete(s.fetches, id)
	r.Send(s.id, f.w.from, &pb.ReadAtReply{Clock: s.clock, ReqId: f.w.req.ReqId, Key: f.key, Version: f.ver,
		Remote: true, Missing: f.missing, Unavailable: true})
}

// tickFetches redirects fetches that went unanswered, retries those that
// found nothing, and gives up on those older than fetchGiveUp.
func (s *server) tickFetches(now time.Duration, r *protocol.Ready) {
	for _, id := range sortedKeys(s.fetches) {
		f := s.fetches[id]
		if now-f.startedAt >= fetchGiveUp {
			s.giveUpFetch(id, f, r)
			continue
		}
		switch {
		case f.retryAt != 0:
			if now >= f.retryAt {
				f.next = 0
				s.sendFetch(now, id, f, r)
			}
		case now-f.sentAt >= s.fetchTimeout(f.candidates[(f.next-1)%len(f.candidates)]):
			s.sendFetch(now, id, f, r)
		}
	}
}
