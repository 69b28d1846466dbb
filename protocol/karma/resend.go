package karma

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// Asking for a lost write again (doc.go, "Pipelined propagation").
//
// §4.4 assumes a reliable transport: a write sent to a ring reaches it.
// Here the CC's retransmission stands in for it, and its waits double
// while a ring does not acknowledge; so a write an MM lost in a crash (it
// had arrived and was not yet ready, so nothing of it was persisted)
// reaches the MM again only at the CC's next backed-off retransmission,
// seconds after the MM is back. Under pipelined program order that wait
// is not the lost write's alone: the thread's later writes are ready in
// the ring's other MMs and cannot be installed before it is, and reads of
// their keys are held there (read) — a get-transaction's second round
// included, which then outlives its operation's timeout.
//
// So the MM that waits asks. Every DepCheck an MM waits on is sent again
// once it has gone unanswered for resendPredecessor, then after twice as
// long each time up to maxBackoff (depwait's one retransmission per
// dependency, however many writes wait for it), marked lost: the one sent
// before may have died with a crashed MM, or with a partition. The
// dependency's MM answers it as any DepCheck, and if it has never seen the
// version (it lost it, or it never arrived) it also sends a ResendReq to
// the CC that minted it (the version's low bits name it); that CC sends
// the write to the ring at once if it is still buffered, sent there and
// unacknowledged, and was not sent there in the last resendPredecessor.
// The wait of a held read behind a lost write is then bounded by
// resendPredecessor and a few hops once the crashed MM is back, rather
// than by the CC's retransmission backoff, and a write the MM has (waiting
// for its own dependencies) is not sent again.
//
// The asks back off: asked at a fixed pace, every MM of a ring asked the
// owner of each version it waited for four times a second, and after a
// partition inside a ring the thousands of writes held back by it made
// those asks alone more than a hot MM could serve; its answers then came
// later than the next round of asks, and the ring never drained
// (TestKarmaStaysAvailableUnderTable1Failures, intra-ring partition;
// testdata/lost_asks_back_off). Only a pending write that a read is held
// behind keeps asking for its missing predecessors every
// resendPredecessor (testdata/held_read_behind_lost_write): reads are
// held only by the clients' operations in progress, so these asks stay
// few.

// resendPredecessor is how long a DepCheck waits for its answer before
// the MM asks again, marked lost: well above an intra-ring hop, so that in
// a healthy ring a write's dependencies are ready before it asks.
const resendPredecessor = 250 * time.Millisecond

// askAgain sends, marked lost, the DepChecks whose retransmission is due,
// and the predecessors' of the writes reads are held behind.
func (m *middleMan) askAgain(now time.Duration, r *protocol.Ready) {
	m.probeAgain(now, r)
	m.deps.Resend(now, resendPredecessor, maxBackoff, func(d *pb.Dep) {
		r.Send(m.id, m.ownerOf(d), &pb.DepCheck{Dep: d, Lost: true})
	})
	ask := map[string]*pb.Dep{}
	for _, key := range slices.Sorted(maps.Keys(m.held)) {
		for _, h := range m.held[key] {
			for _, wk := range slices.Sorted(maps.Keys(h.waitFor)) {
				w := m.pending[wk]
				if w == nil || !w.ask.Due(now, resendPredecessor, resendPredecessor) {
					continue
				}
				for _, d := range w.msg.Deps {
					if _, ok := m.readyOf(depKey(d.Key, d.Version)); d.ProgramOrder && !ok {
						ask[depName(d)] = d
					}
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(ask)) {
		d := ask[name]
		r.Send(m.id, m.ownerOf(d), &pb.DepCheck{Dep: d, Lost: true})
	}
}

// askMinter answers a lost-marked DepCheck for a version this MM has never
// seen with a ResendReq to the CC that minted it.
func (m *middleMan) askMinter(d *pb.Dep, r *protocol.Ready) {
	dk := depKey(d.Key, d.Version)
	_, ready := m.readyAt[dk]
	if ready || m.incoming[dk] != nil || m.pending[dk] != nil || m.inval[dk] != nil || m.installedHere(dk) {
		return
	}
	if cc, ok := mintedBy(m.topo, d.Version); ok {
		r.Send(m.id, cc, &pb.ResendReq{Ring: int32(m.ring), Key: d.Key, Version: d.Version})
	}
}

// mintedBy is the CC whose index a version's low bits hold (newCoordinator
// numbers the CCs in the topology's order).
func mintedBy(t *topology.Topology, version uint64) (protocol.NodeID, bool) {
	i := version & (1<<ccBits - 1)
	for _, d := range t.Datacenters {
		if i < uint64(d.Servers) {
			return protocol.MakeNodeID(d.Name, ccName(int(i))), true
		}
		i -= uint64(d.Servers)
	}
	return "", false
}

// resend answers an MM's ResendReq: the write goes to the ring now if it
// is still buffered, the ring has not acknowledged it and it was not sent
// there in the last resendPredecessor (every MM of the ring waiting for it
// may ask), and its next retransmission waits from now.
func (c *coordinator) resend(now time.Duration, from protocol.NodeID, b *pb.ResendReq, r *protocol.Ready) {
	ring := int(b.Ring)
	if b.Version == 0 {
		c.resendAll(now, from, ring, r)
		return
	}
	// At most one entry matches (versions are unique, a notify-after has
	// none), so the order of the search does not matter.
	for _, e := range c.entries {
		if e.put.Notify || b.Key != "" && e.put.Key != b.Key || e.put.Version != b.Version || ring < 0 || ring >= len(e.acked) || e.acked[ring] || !e.sent[ring] {
			continue
		}
		if now-e.lastSent[ring] < resendPredecessor {
			return // on its way already
		}
		e.resent[ring], e.retry[ring], e.lastSent[ring] = true, protocol.SentAt(now), now
		r.Send(c.id, replica(c.topo, ring, e.put.Key), c.toRing(c.thread(e.session), ring, e))
		return
	}
}

// Asking for every lost write at once (issue 12). A restarted MM has
// lost every write that had arrived and was not yet ready (nothing of it
// was persisted), and every write sent to it while it was down. Asking
// for each one only once another MM's DepCheck for it has gone
// unanswered, marked lost, took the backed-off asks' pace: after b/s1's
// restart in TestKarmaAnswersAfterRestartThenPartition (down from 300 to
// 800 ms) the ResendReqs came 90-400 ms after it, a write DC c had sent
// at 728 ms was asked for at 1195 ms, and its resent copy was lost to
// the partition that began at 1200 ms; DC c's later writes, and the
// writes of a and b that had read them, then could not be installed in
// ring {a, b} until the heal. So an MM that restarts (its boot mark was
// there) sends every CC a ResendReq naming no write (version 0, which
// no write has), and each CC sends it at once every buffered write of
// its threads that the MM owns in its ring, sent there and not
// acknowledged: whatever it sent before may have been lost, so the
// 250 ms limit of a single write's ResendReq does not apply. A write
// the MM has (a copy in flight, or persisted as ready) is a duplicate it
// ignores.

// askResendAll sends every CC the restarted MM's ResendReq for all its
// writes (see above).
func (m *middleMan) askResendAll(r *protocol.Ready) {
	for _, d := range m.topo.Datacenters {
		for j := 0; j < d.Servers; j++ {
			r.Send(m.id, protocol.MakeNodeID(d.Name, ccName(j)), &pb.ResendReq{Ring: int32(m.ring)})
		}
	}
}

// resendAll answers a restarted MM's ResendReq naming no write: every
// buffered write the MM owns in its ring, sent there and unacknowledged,
// goes to it again now; and so do the reads in progress that wait for it
// (resendReads).
func (c *coordinator) resendAll(now time.Duration, from protocol.NodeID, ring int, r *protocol.Ready) {
	if ring < 0 || ring >= len(c.topo.Rings()) {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(c.threads)) {
		t := c.threads[name]
		c.resendReads(now, t, from, ring, r)
		for _, e := range t.wb {
			if e.acked[ring] || !e.sent[ring] || replica(c.topo, ring, e.put.Key) != from {
				continue
			}
			e.resent[ring], e.retry[ring], e.lastSent[ring] = true, protocol.SentAt(now), now
			r.Send(c.id, from, c.toRing(t, ring, e))
		}
	}
}

// resendReads sends again, at once, the thread's read in progress that
// waits for an answer from from, an MM of ring that has just restarted:
// a request it had when it crashed, or that reached it while it was
// down, is lost, and waiting out the read's timeout would also penalize
// the server (latency.go) that the restart message has just cleared, so
// the read would go to another ring. A get is asked again in the same
// ring (another attempt, whose answer completes it as any other's); a
// get-transaction starts again there (round one). TestKarmaAnswersAfter
// RestartThenPartition, karma seed 4: a transaction sent at 296 ms to
// b/s1, which crashed at 300 ms and restarted at 800 ms, timed out at
// 700 and 1101 ms and was then sent to ring {c}, whose answer the
// partition at 1200 ms cut off.
func (c *coordinator) resendReads(now time.Duration, t *threadState, from protocol.NodeID, ring int, r *protocol.Ready) {
	if g := t.get; g != nil && !g.inCache && g.ring == ring && replica(c.topo, ring, g.key) == from {
		c.attempt(now, t, ring, r)
	}
	if tx := t.txn; tx != nil && tx.ring == ring {
		for _, i := range tx.reqs {
			if replica(c.topo, ring, tx.keys[i]) == from {
				c.txnRound1(now, t, ring, r)
				return
			}
		}
	}
}
