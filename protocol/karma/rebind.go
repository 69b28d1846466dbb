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
	c.moveTo(t, ring, r)
	for id := range g.attempts {
		delete(c.reqs, id)
	}
	g.attempts = map[uint64]bool{}
	c.readRing(now, t, ring, r)
}

// covers reports whether notify-after e covers every restriction the
// thread holds (carries it, or a later write of its writer thread).
func (e *wbEntry) covers(t *threadState) bool {
	for _, d := range t.drr {
		if !covered(d, e.put.Deps) {
			return false
		}
	}
	return true
}

// Moving home (issue 12). A thread of DC d bound to a ring other than d's
// own (it read in-flight versions there while d's ring could not answer)
// waits above for its restrictions to be written in some other ring, and
// that takes as long as their writes take to complete there: after a
// restart of one of d's ring's servers, about a second. Meanwhile it reads
// only the far ring, and a partition that cuts that ring off leaves it
// with nothing to read. But what the thread's next reads need of a ring is
// what binding it to the far ring asked there: that everything it read in
// flight is readable, causal past included — installed, not written
// (doc.go, "Moving home"). So while a thread is bound away from home, its
// CC keeps an install check in flight to the home ring: a notify-after
// whose dependencies carry installed, which the MM answers once each is
// installed in its ring (pipeline.go, put). When it is answered and still
// covers every restriction of the thread, the thread is bound to its home
// ring; a check that no longer covers them (the thread read more in
// flight since it was sent) is replaced by one that does.

// homeRetry is the first wait before an unanswered install check is sent
// again (then doubling, up to homeRetryLimit): its MM may have restarted
// and forgotten it. A check waits for installs, which take as long as the
// ring's backlog, so it is not resent at a write's pace, and its
// retransmissions leave the ring's acknowledgement estimate alone.
const homeRetry, homeRetryLimit = time.Second, 4 * time.Second

// askHome sends the thread's home ring an install check of its
// restrictions if the thread is bound to another ring and the check in
// flight (if any) does not cover every restriction; it sends an
// unanswered one again when due.
func (c *coordinator) askHome(now time.Duration, t *threadState, r *protocol.Ready) {
	if c.p.mode.OwnRing || t.drrRing < 0 || t.drrRing == c.myRing || len(t.drr) == 0 {
		c.dropHome(t)
		return
	}
	if !c.homeAnswers() {
		return
	}
	if e := t.home; e != nil {
		if e.covers(t) {
			if e.retry[c.myRing].Due(now, homeRetry, homeRetryLimit) {
				r.Send(c.id, replica(c.topo, c.myRing, e.put.Key), c.toRing(t, c.myRing, e))
			}
			return
		}
		c.dropHome(t) // (testdata/home_check_new_restriction)
	}
	var deps []*pb.Dep
	for _, d := range t.restrictions() {
		deps = append(deps, &pb.Dep{Key: d.Key, Version: d.Version, Writer: d.Writer, Installed: true})
	}
	e := c.newEntry(t.name, &pb.RingPut{Key: deps[0].Key, Deps: deps, Notify: true, Id: c.nextID})
	c.nextID++
	t.home = e
	e.sent[c.myRing], e.retry[c.myRing] = true, protocol.SentAt(now)
	r.Send(c.id, replica(c.topo, c.myRing, e.put.Key), c.toRing(t, c.myRing, e))
}

// homeAnswers reports whether every storage server of the CC's own ring
// answers reads, as far as the CC knows (none is penalized for reads it
// left unanswered, latency.go): a thread is not moved back to a ring
// where its reads would time out, only to be moved away again
// (testdata/rebind_after_back_crash). A penalty goes with the server's
// next message, which the penalized-server probes (probe.go) bring soon
// after it is back.
func (c *coordinator) homeAnswers() bool {
	for n, p := range c.pen {
		if p.d > 0 && c.topo.RingOf(n.DC()) == c.myRing {
			return false
		}
	}
	return true
}

// dropHome forgets the thread's install check, if any: its answer, if it
// comes, matches nothing.
func (c *coordinator) dropHome(t *threadState) {
	if t.home != nil {
		delete(c.entries, t.home.put.Id)
		t.home = nil
	}
}

// homeAcked handles the home ring's answer to install check e: if the
// thread is still bound to another ring and e covers every restriction it
// holds, every one is installed in the home ring, causal past included,
// and the thread is bound there. A get or get-transaction in progress is
// sent to the home ring again, and answers to its earlier requests are
// ignored: an in-flight version read in the old ring must not restrict a
// thread bound to the new one.
func (c *coordinator) homeAcked(now time.Duration, t *threadState, e *wbEntry, r *protocol.Ready) {
	c.dropHome(t)
	if c.p.mode.OwnRing || t.drrRing < 0 || t.drrRing == c.myRing || !c.homeAnswers() {
		return // (askHome asks again once the home ring answers)
	}
	if !e.covers(t) {
		c.askHome(now, t, r) // (testdata/home_check_new_restriction)
		return
	}
	c.moveTo(t, c.myRing, r)
	if g := t.get; g != nil && !g.inCache {
		for id := range g.attempts {
			delete(c.reqs, id)
		}
		g.attempts = map[uint64]bool{}
		c.readRing(now, t, c.myRing, r)
	}
	if t.txn != nil {
		c.txnRound1(now, t, c.myRing, r)
	}
}

// moveTo binds the thread's restrictions to ring, persisting them so.
func (c *coordinator) moveTo(t *threadState, ring int, r *protocol.Ready) {
	t.drrRing = ring
	for _, dk := range slices.Sorted(maps.Keys(t.drr)) {
		r.Write(storage.Write{Kind: storage.Put, Key: drrKey(t.name, dk), Value: drrValue(ring, t.drr[dk].Writer)}, true)
	}
}
