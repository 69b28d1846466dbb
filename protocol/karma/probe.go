package karma

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// The background monitor of wide-area delays (karma.txt §6.2: "background
// processes continually monitor the delays between DCs, and feed the
// information to the systems"). A CC's latency estimate of a DC (est) is
// refreshed by the replies of the reads it sends there; a DC judged slow
// during congestion gets no reads, so without the monitor its estimate
// would stay high, and the DC avoided, long after the congestion ended.
// Every Options.ProbeEvery a CC sends a ProbeReq to one storage server of
// every DC it suspects of being slower than the topology says (suspect),
// and folds each answer's round trip into its estimate of that DC. A DC
// that is not suspect needs no probe: either reads go there and refresh
// its estimate, or a nearer DC serves them and it would not be chosen
// anyway. So a healthy deployment sends no probe at all, and a CC probes
// only while it serves client operations (within the last probeIdle
// periods), so that an idle deployment goes quiet. A storage server
// penalized for unanswered reads (latency.go) is probed too, by itself:
// its answer clears its penalty. COPS-PR, bound to its ring, chooses no
// ring and sends none.

// probeToken is the CC's timer token of the probe rounds (tickEvery's
// timer uses 0).
const probeToken = 1

// probeIdle is how many probe periods a CC keeps probing after its last
// client operation.
const probeIdle = 3

// maxProbeWait is how long an unanswered probe is remembered.
const maxProbeWait = 10 * time.Second

// pendingProbe is a probe awaiting its answer.
type pendingProbe struct {
	to     protocol.NodeID
	sentAt time.Duration
}

// probes reports whether this CC runs the monitor.
func (c *coordinator) probes() bool { return c.p.opts.ProbeEvery > 0 && !c.p.mode.OwnRing }

// suspect reports whether the CC's estimate of dc exceeds the topology's
// round trip by more than a quarter and suspectSlack: the DC looked
// congested or unreachable to the CC's reads.
func (c *coordinator) suspect(dc string) bool {
	base := c.topo.RTT(c.dc, dc)
	return c.est[dc] > base+base/4+suspectSlack
}

// suspectSlack is the part of a suspect DC's excess latency that queueing
// at a loaded server explains without congestion.
const suspectSlack = 10 * time.Millisecond

// clientOp notes a client operation at now and starts the probe rounds if
// they are not running and something is to be probed.
func (c *coordinator) clientOp(now time.Duration, r *protocol.Ready) {
	c.lastOp = now
	if !c.probes() || c.probing || len(c.probeTargets()) == 0 {
		return
	}
	c.probing = true
	r.SetTimer(c.p.opts.ProbeEvery, probeToken)
}

// probeTargets are the nodes a probe round asks: one storage server of
// each suspect DC, and every penalized server, in order.
func (c *coordinator) probeTargets() []protocol.NodeID {
	to := map[protocol.NodeID]bool{}
	for _, dc := range c.topo.DCNames() {
		if c.suspect(dc) {
			to[protocol.MakeNodeID(dc, storageName(int(c.index%uint64(max(1, c.topo.Servers(dc))))))] = true
		}
	}
	for n := range c.pen {
		to[n] = true
	}
	return slices.Sorted(maps.Keys(to))
}

// idle reports whether the CC has served no client operation for
// probeIdle probe periods: then it probes nothing.
func (c *coordinator) idle(now time.Duration) bool {
	return now-c.lastOp > probeIdle*c.p.opts.ProbeEvery
}

// probe sends a probe to node to.
func (c *coordinator) probe(now time.Duration, to protocol.NodeID, r *protocol.Ready) {
	id := c.nextID
	c.nextID++
	c.pending[id] = pendingProbe{to: to, sentAt: now}
	if p, ok := c.pen[to]; ok {
		p.probeAt = now + c.readWait(to.DC())
		c.pen[to] = p
	}
	r.Send(c.id, to, &pb.ProbeReq{Id: id})
}

// probePenalized probes, between probe rounds, the penalized servers
// whose probe is due (at the CC's ticks, which run while it has work in
// progress).
func (c *coordinator) probePenalized(now time.Duration, r *protocol.Ready) {
	if !c.probes() || c.idle(now) {
		return
	}
	for _, n := range slices.Sorted(maps.Keys(c.pen)) {
		if now >= c.pen[n].probeAt {
			c.probe(now, n, r)
		}
	}
}

// probeRound sends one probe to every suspect DC, unless there is none or
// the CC has been idle for probeIdle periods: then the rounds stop until
// the next client operation.
func (c *coordinator) probeRound(now time.Duration, r *protocol.Ready) {
	every := c.p.opts.ProbeEvery
	for id, p := range c.pending {
		if now-p.sentAt > maxProbeWait {
			delete(c.pending, id)
		}
	}
	c.probing = false
	if c.idle(now) {
		return
	}
	for _, to := range c.probeTargets() {
		c.probing = true
		c.probe(now, to, r)
	}
	if c.probing {
		r.SetTimer(every, probeToken)
	}
}

// probeResp folds a probe's round trip into the estimate of its DC (the
// answer itself cleared the server's penalty, see heard). A probe
// measures the DC as it is now, where the estimate may remember a
// congestion that has ended, so it weighs as much as the estimate.
func (c *coordinator) probeResp(now time.Duration, from protocol.NodeID, b *pb.ProbeResp) {
	p, ok := c.pending[b.Id]
	if !ok || from != p.to {
		return // unknown, answered already, or not the node probed
	}
	delete(c.pending, b.Id)
	dc := from.DC()
	c.est[dc] = (c.est[dc] + (now - p.sentAt)) / 2
}
