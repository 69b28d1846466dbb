package karma

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// Moving a restriction to another ring (§4.4, Claim 1). A thread
// restricted to ring r waits for its in-flight reads to complete before it
// may read elsewhere, and §4.4 argues they will complete even if a back
// end of r fails, because they and their causal past were written in r
// before they could be read there. Program order is weaker here: a write
// is readable in a ring once the thread's previous write is stored there
// (see the deviations in doc.go), so a back end of r failing between
// storing and writing that previous write leaves the read one unable to
// be written in r, hence to complete, and its readers bound to r for as
// long as the failure lasts. So when a bound get times out, the CC sends
// a notify-after (§4.2) with the thread's restrictions at once, and the
// first other ring that acknowledges it — every restriction written
// there, so their causal past too — becomes the thread's ring: a ring
// holding everything the thread depends on is as good as r for it
// (testdata/restricted_reader_after_back_crash).

// boundGetTimedOut is called when a bound get has timed out in its ring:
// a notify-after in flight that another ring has already acknowledged
// moves the thread there now; without one, one starts now.
func (c *coordinator) boundGetTimedOut(now time.Duration, t *threadState, r *protocol.Ready) {
	if c.p.mode.OwnRing || len(t.drr) == 0 {
		return
	}
	if e := t.notify; e != nil {
		if !e.covers(t) {
			// It was sent before the thread's latest restrictions, so no
			// ring's acknowledgement of it can move the thread, and it may
			// never complete (its ring r cannot answer): one with every
			// restriction replaces it (testdata/rebind_after_new_restriction).
			delete(c.entries, e.put.Id)
			t.notify = nil
		} else {
			for ring, acked := range e.acked {
				if acked && ring != t.drrRing {
					c.rebind(now, t, e, ring, r)
					return
				}
			}
			return
		}
	}
	deps := t.restrictions()
	t.lastNotify = now
	t.notify = c.newEntry(t.name, &pb.RingPut{Key: deps[0].Key, Deps: deps, Notify: true, Id: c.nextID})
	c.nextID++
	c.propagate(now, t, r)
}

// rebind moves the thread's restriction to ring, which has just
// acknowledged notify-after e, if the thread's get is stuck in its bound
// ring (it timed out there at least once) and e covers every restriction
// the thread holds; the get is then sent to ring at once. Replies to the
// get's earlier attempts are ignored from now on: an in-flight value read
// in the old ring must not restrict a thread bound to the new one.
func (c *coordinator) rebind(now time.Duration, t *threadState, e *wbEntry, ring int, r *protocol.Ready) {
	g := t.get
	if c.p.mode.OwnRing || g == nil || g.inCache || t.drrRing < 0 || ring == t.drrRing || len(g.attempts) < 2 {
		return
	}
	if !e.covers(t) {
		return
	}
	t.drrRing = ring
	for _, dk := range slices.Sorted(maps.Keys(t.drr)) {
		r.Write(storage.Write{Kind: storage.Put, Key: drrKey(t.name, dk), Value: []byte{byte(ring)}}, true)
	}
	for id := range g.attempts {
		delete(c.reqs, id)
	}
	g.attempts = map[uint64]bool{}
	c.readRing(now, t, ring, r)
}

// covers reports whether notify-after e carries every restriction the
// thread holds.
func (e *wbEntry) covers(t *threadState) bool {
	covered := map[string]bool{}
	for _, d := range e.put.Deps {
		covered[depKey(d.Key, d.Version)] = true
	}
	for dk := range t.drr {
		if !covered[dk] {
			return false
		}
	}
	return true
}
