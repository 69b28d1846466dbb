package karma

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// Where a CC sends a read (Fig. 3: the ring whose replica of the key is
// nearest) rests on two things it learns separately, because they fail
// separately:
//
//   - est, per DC: the round trip to the DC as measured (§6.2's "delays
//     between DCs"), seeded with the topology's RTT and averaged with the
//     round trip of every read answered from there — answers that come
//     after the read was given up on included — and of every probe
//     (probe.go). Only measurements move it.
//   - pen, per storage server: a penalty for reads the server left
//     unanswered (it crashed, or its DC is cut off or congested beyond the
//     read's wait), which doubles with each timeout and is cleared by the
//     next message of any kind from the server (a read's answer, a
//     probe's, a write's acknowledgement).
//
// A replica costs est of its DC plus its pen. So a crashed server diverts
// only the reads of the keys it holds, not those of its DC's other
// servers, and its penalty goes with its first answer after the restart;
// and a read's wait before it is sent again (readWait) follows est alone,
// never a penalty, so a thread bound to a ring (a DRR) keeps asking the
// ring at the pace of its round trip and is answered soon after the server
// comes back or a partition heals, rather than after waits that doubled
// while nothing could answer.

// readWait is how long a read to dc waits for its answer before it is
// sent again (or another ring asked): four measured round trips and
// some slack for a busy server.
func (c *coordinator) readWait(dc string) time.Duration {
	return 4*c.est[dc] + 200*time.Millisecond
}

// cost is what reading from replica n is expected to take.
func (c *coordinator) cost(n protocol.NodeID) time.Duration { return c.est[n.DC()] + c.pen[n].d }

// penalty is a storage server's penalty for unanswered reads, and when it
// is next probed (probe.go): a penalized server is probed at the pace of
// a read's wait, so that its first answer after it comes back clears the
// penalty about as soon as a read would have found it back.
type penalty struct {
	d       time.Duration
	probeAt time.Duration
}

// maxPenalty caps a server's penalty.
const maxPenalty = 10 * time.Second

// unanswered penalizes replica n for a read it left unanswered: the first
// timeout makes it cost twice its DC's round trip and 100 ms more, and
// each further one doubles the penalty.
func (c *coordinator) unanswered(now time.Duration, n protocol.NodeID) {
	p := c.pen[n]
	p.d = min(2*p.d+c.est[n.DC()]+100*time.Millisecond, maxPenalty)
	p.probeAt = now + c.readWait(n.DC())
	c.pen[n] = p
}

// heard clears the penalty of the node a message came from: it is up.
func (c *coordinator) heard(from protocol.NodeID) {
	if len(c.pen) > 0 {
		delete(c.pen, from)
	}
}

// sentRead is a ring read awaiting its answer, for the round trip it will
// measure.
type sentRead struct {
	to protocol.NodeID
	at time.Duration
}

// sendRead sends a ring read (of a get or a get-transaction) and notes
// when, so that its answer, however late, measures the DC.
func (c *coordinator) sendRead(now time.Duration, to protocol.NodeID, req *pb.RingGet, r *protocol.Ready) {
	c.sent[req.ReqId] = sentRead{to: to, at: now}
	r.Send(c.id, to, req)
}

// measured folds the round trip of the ring read id, answered now, into
// its DC's estimate: a fifth of the weight, so that one slow answer moves
// it less than a trend does. Each attempt of a read has its own id, so an
// answer always times the attempt it answers.
func (c *coordinator) measured(now time.Duration, id uint64) {
	s, ok := c.sent[id]
	if !ok {
		return
	}
	delete(c.sent, id)
	dc := s.to.DC()
	c.est[dc] = (4*c.est[dc] + (now - s.at)) / 5
}

// forgetReads drops the reads unanswered for longer than maxProbeWait:
// they will not be answered.
func (c *coordinator) forgetReads(now time.Duration) {
	for _, id := range slices.Sorted(maps.Keys(c.sent)) {
		if now-c.sent[id].at > maxProbeWait {
			delete(c.sent, id)
		}
	}
}

// nearestRing picks the ring whose replica of key costs least (est of its
// DC plus its penalty). A read that timed out penalized its replica, so
// the next attempt goes to another ring unless that replica has been heard
// from since (it is back) or the other rings cost more still.
func (c *coordinator) nearestRing(key string) int {
	best, bestD := -1, time.Duration(0)
	for ring := range c.topo.Rings() {
		if d := c.cost(replica(c.topo, ring, key)); best < 0 || d < bestD {
			best, bestD = ring, d
		}
	}
	return best
}
