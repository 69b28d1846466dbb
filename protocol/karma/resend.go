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
	m.deps.Resend(now, resendPredecessor, maxBackoff, func(d *pb.Dep) {
		r.Send(m.id, replica(m.topo, m.ring, d.Key), &pb.DepCheck{Dep: d, Lost: true})
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
		r.Send(m.id, replica(m.topo, m.ring, d.Key), &pb.DepCheck{Dep: d, Lost: true})
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
func (c *coordinator) resend(now time.Duration, b *pb.ResendReq, r *protocol.Ready) {
	ring := int(b.Ring)
	// At most one entry matches (versions are unique, a notify-after has
	// none), so the order of the search does not matter.
	for _, e := range c.entries {
		if e.put.Notify || e.put.Key != b.Key || e.put.Version != b.Version || ring < 0 || ring >= len(e.acked) || e.acked[ring] || !e.sent[ring] {
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
