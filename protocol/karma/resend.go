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
// So the MM that waits asks. A write that has waited resendPredecessor
// there — ready and not installed because an earlier write of its thread
// is not ready in the ring, or not ready because a put-after dependency
// is not installed — sends the DepCheck of each dependency it still waits
// for again, marked lost (the one sent before the crash may have died
// with the crashed MM), every resendPredecessor while the wait lasts, one
// per dependency however many writes wait for it. The dependency's MM
// answers it as any DepCheck, and if it has never seen the version (it
// lost it, or it never arrived) it also sends a ResendReq to the CC that
// minted it (the version's low bits name it); that CC sends the write to
// the ring at once if it is still buffered and unacknowledged there. The
// wait of a held read behind a lost write is then bounded by
// resendPredecessor and a few hops once the crashed MM is back, rather
// than by the CC's retransmission backoff, and a write the MM has (waiting
// for its own dependencies) is not sent again.

// resendPredecessor is how long a write waits at an MM for a dependency
// before the MM asks again, and then the pace of its asking: well above
// an intra-ring hop, so that in a healthy ring a write's dependencies are
// ready before it asks.
const resendPredecessor = 250 * time.Millisecond

// askForLostWrites sends the lost-marked DepChecks of the dependencies of
// every write waiting here longer than resendPredecessor.
func (m *middleMan) askForLostWrites(now time.Duration, r *protocol.Ready) {
	ask := map[string]*pb.Dep{}
	for _, wk := range slices.Sorted(maps.Keys(m.pending)) {
		w := m.pending[wk]
		if !m.deps.Waiting(confName(wk)) || !w.ask.Due(now, resendPredecessor, resendPredecessor) {
			continue
		}
		for _, d := range w.msg.Deps {
			if _, ok := m.readyOf(depKey(d.Key, d.Version)); d.ProgramOrder && !ok {
				ask[depName(d)] = d
			}
		}
	}
	for _, wk := range slices.Sorted(maps.Keys(m.incoming)) {
		w := m.incoming[wk]
		if w.msg.Notify || !w.ask.Due(now, resendPredecessor, resendPredecessor) {
			continue
		}
		for _, d := range w.msg.Deps {
			if dk := depKey(d.Key, d.Version); !d.ProgramOrder && !d.Installed && !m.installedHere(dk) && !m.knownInstalled[dk] {
				id := &pb.Dep{Key: d.Key, Version: d.Version, Installed: true}
				ask[depName(id)] = id
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
// is still buffered and the ring has not acknowledged it, and its next
// retransmission waits from now.
func (c *coordinator) resend(now time.Duration, b *pb.ResendReq, r *protocol.Ready) {
	ring := int(b.Ring)
	for _, id := range slices.Sorted(maps.Keys(c.entries)) {
		e := c.entries[id]
		if e.put.Notify || e.put.Key != b.Key || e.put.Version != b.Version || ring < 0 || ring >= len(e.acked) || e.acked[ring] || !e.sent[ring] {
			continue
		}
		e.resent[ring], e.retry[ring] = true, protocol.SentAt(now)
		r.Send(c.id, replica(c.topo, ring, e.put.Key), c.toRing(c.thread(e.session), ring, e))
		return
	}
}
