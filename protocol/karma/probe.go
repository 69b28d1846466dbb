package karma

import (
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
// periods), so that an idle deployment goes quiet. COPS-PR, bound to its
// ring, chooses no ring and sends none.

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
	dc     string
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
// they are not running and some DC is suspect.
func (c *coordinator) clientOp(now time.Duration, r *protocol.Ready) {
	c.lastOp = now
	if !c.probes() || c.probing {
		return
	}
	for _, dc := range c.topo.DCNames() {
		if c.suspect(dc) {
			c.probing = true
			r.SetTimer(c.p.opts.ProbeEvery, probeToken)
			return
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
	if now-c.lastOp > probeIdle*every {
		return
	}
	for _, dc := range c.topo.DCNames() {
		if !c.suspect(dc) {
			continue
		}
		c.probing = true
		id := c.nextID
		c.nextID++
		c.pending[id] = pendingProbe{dc: dc, sentAt: now}
		to := protocol.MakeNodeID(dc, storageName(int(c.index%uint64(max(1, c.topo.Servers(dc))))))
		r.Send(c.id, to, &pb.ProbeReq{Id: id})
	}
	if c.probing {
		r.SetTimer(every, probeToken)
	}
}

// probeResp folds a probe's round trip into the estimate of its DC. A
// probe measures the DC as it is now, where the estimate may carry a
// timeout's penalty (slower), so it weighs as much as the estimate.
func (c *coordinator) probeResp(now time.Duration, from protocol.NodeID, b *pb.ProbeResp) {
	p, ok := c.pending[b.Id]
	if !ok || from.DC() != p.dc {
		return // unknown, answered already, or not the DC probed
	}
	delete(c.pending, b.Id)
	c.est[p.dc] = (c.est[p.dc] + (now - p.sentAt)) / 2
}
