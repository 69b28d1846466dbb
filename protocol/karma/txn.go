package karma

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// Get-transactions (karma.txt §4.5), after Eiger's read-only transactions:
// all reads of a transaction go to one ring, bypassing the DC caches. The
// first round reads the latest version of every key, each with the
// commit-clock interval [evt, clock] in which the replica knows it valid.
// The effective time eff is the largest of the CC's clock at the start and
// every evt; keys whose interval ends before eff are read again, as of eff,
// from the replicas' multiversion windows. The CC's clock at the start
// covers everything in the thread's causal past (doc.go, "Commit clock"),
// so the snapshot at eff contains it. The thread's own writes that the
// ring's snapshot does not have yet are read from its write buffer.

// txnRead is one key's state in a get-transaction.
type txnRead struct {
	value    []byte
	version  uint64
	evt, lvt uint64
	inFlight bool
	writer   string
}

// pendingTxn is a session's get-transaction in progress at the CC.
type pendingTxn struct {
	reqID      uint64 // the session's
	from       protocol.NodeID
	keys       []string
	restricted bool
	ring       int
	restarts   int
	// secondRound: some key was read again at eff (the txn_round2 tag).
	secondRound bool
	// wanRounds counts the rounds that ended on an answer after a
	// cross-DC exchange (the wan_rounds metric); roundWAN is whether the
	// current round sent a request out of the CC's DC.
	wanRounds int
	roundWAN  bool
	c0, eff   uint64 // eff is 0 during the first round
	reads     []txnRead
	reqs      map[uint64]int // our ring request id -> key index
	deadline  time.Duration
}

// maxTxnRestarts bounds how often a transaction starts again because the
// version it needed left a multiversion window; after that it waits for a
// timeout like any unanswered read.
const maxTxnRestarts = 8

// txnStart begins a session's get-transaction on the thread's bound ring,
// or the ring nearest to its keys.
func (c *coordinator) txnStart(now time.Duration, from protocol.NodeID, b *pb.ClientTxn, r *protocol.Ready) {
	t := c.thread(b.Session)
	t.get = nil
	tx := &pendingTxn{reqID: b.ReqId, from: from, keys: b.Keys, restricted: c.restricted(t)}
	t.txn = tx
	ring := c.binding(t)
	if ring < 0 {
		ring = c.nearestTxnRing(tx.keys)
	}
	c.txnRound1(now, t, ring, r)
}

// nearestTxnRing is the ring whose costliest replica of the keys costs
// least (latency.go).
func (c *coordinator) nearestTxnRing(keys []string) int {
	best, bestD := -1, time.Duration(0)
	for ring := range c.topo.Rings() {
		if d := c.costliest(ring, keys); best < 0 || d < bestD {
			best, bestD = ring, d
		}
	}
	return best
}

// costliest is the cost of the costliest replica of keys in ring.
func (c *coordinator) costliest(ring int, keys []string) time.Duration {
	var d time.Duration
	for _, k := range keys {
		d = max(d, c.cost(replica(c.topo, ring, k)))
	}
	return d
}

// txnDeadline is when an unanswered round moves on: the longest readWait
// of the keys' replicas in ring.
func (c *coordinator) txnDeadline(now time.Duration, ring int, keys []string) time.Duration {
	var d time.Duration
	for _, k := range keys {
		dc, _ := c.topo.RingReplica(ring, k)
		d = max(d, c.readWait(dc))
	}
	return now + d
}

// txnRound1 (re)starts the transaction on ring: read the latest versions.
func (c *coordinator) txnRound1(now time.Duration, t *threadState, ring int, r *protocol.Ready) {
	tx := t.txn
	for id := range tx.reqs {
		delete(c.reqs, id)
	}
	tx.ring, tx.c0, tx.eff = ring, c.lc.now, 0
	tx.reads = make([]txnRead, len(tx.keys))
	tx.reqs = map[uint64]int{}
	tx.deadline = c.txnDeadline(now, ring, tx.keys)
	tx.roundWAN = c.anyRemote(ring, tx.keys)
	for i, k := range tx.keys {
		id := c.newReq(t)
		tx.reqs[id] = i
		c.sendRead(now, replica(c.topo, ring, k), &pb.RingGet{ReqId: id, Key: k, Clock: tx.c0, Txn: true}, r)
	}
}

// txnReply records one read of the transaction and moves it on when its
// round is complete.
func (c *coordinator) txnReply(now time.Duration, t *threadState, b *pb.RingGetReply, r *protocol.Ready) {
	tx := t.txn
	i, ok := tx.reqs[b.ReqId]
	if !ok || tx.keys[i] != b.Key {
		return // a reply to an earlier round or attempt
	}
	delete(tx.reqs, b.ReqId)
	delete(c.reqs, b.ReqId)
	if b.TooOld {
		// The version valid at eff left the window: start again, with a
		// clock that has moved past what the ring told us. The round ended
		// on this answer, a wide-area round if it came from another DC.
		if c.anyRemote(tx.ring, tx.keys[i:i+1]) {
			tx.wanRounds++
		}
		if tx.restarts < maxTxnRestarts {
			tx.restarts++
			c.txnRound1(now, t, tx.ring, r)
		}
		return
	}
	tx.reads[i] = txnRead{value: b.Value, version: b.Version, evt: b.Evt, lvt: b.Clock, inFlight: b.InFlight, writer: b.Writer}
	if len(tx.reqs) > 0 {
		return
	}
	if tx.roundWAN {
		tx.wanRounds++ // the round waited for every answer, a remote one too
	}
	if tx.eff == 0 {
		// End of the first round: the effective time, and the keys whose
		// version may not be the one valid then.
		tx.eff = tx.c0
		for _, rd := range tx.reads {
			tx.eff = max(tx.eff, rd.evt)
		}
		var again []int
		for j, rd := range tx.reads {
			if rd.lvt < tx.eff {
				again = append(again, j)
			}
		}
		if len(again) > 0 {
			tx.secondRound = true
			tx.deadline = c.txnDeadline(now, tx.ring, tx.keys)
			tx.roundWAN = false
			for _, j := range again {
				tx.roundWAN = tx.roundWAN || c.anyRemote(tx.ring, tx.keys[j:j+1])
			}
			for _, j := range again {
				id := c.newReq(t)
				tx.reqs[id] = j
				c.sendRead(now, replica(c.topo, tx.ring, tx.keys[j]), &pb.RingGet{ReqId: id, Key: tx.keys[j], Clock: c.lc.now, Txn: true, At: tx.eff}, r)
			}
			return
		}
	}
	c.txnDone(t, r)
	c.askHome(now, t, r)
}

// txnDone answers the session: the snapshot, with the thread's own newer
// writes over it (read your writes); in-flight versions restrict the
// thread to the transaction's ring, as a get's would (§4.2).
func (c *coordinator) txnDone(t *threadState, r *protocol.Ready) {
	tx := t.txn
	t.txn = nil
	rep := &pb.ClientReply{ReqId: tx.reqID, Restricted: tx.restricted, SecondRound: tx.secondRound,
		WideArea: tx.wanRounds > 0, WanRounds: uint32(tx.wanRounds)}
	for i, k := range tx.keys {
		rd := tx.reads[i]
		if own := t.ownNewer(k, rd.version); own != nil {
			rep.Reads = append(rep.Reads, &pb.TxnRead{Value: own.Value, Found: true})
			continue
		}
		c.vc.observe(rd.version >> ccBits)
		t.maxSeen = max(t.maxSeen, rd.version)
		if rd.version > 0 && rd.inFlight {
			c.restrict(t, tx.ring, k, rd.version, rd.writer, r)
		}
		rep.Reads = append(rep.Reads, &pb.TxnRead{Value: rd.value, Found: found(rd.version, rd.value)})
	}
	r.Send(c.id, tx.from, rep)
}

// anyRemote reports whether a replica of keys in ring is outside the CC's
// DC.
func (c *coordinator) anyRemote(ring int, keys []string) bool {
	for _, k := range keys {
		if dc, _ := c.topo.RingReplica(ring, k); dc != c.dc {
			return true
		}
	}
	return false
}

// remote is a get's wan_rounds: 1 when its answer came from another DC.
func remote(wide bool) uint32 {
	if wide {
		return 1
	}
	return 0
}

// txnTimedOut restarts an unanswered transaction: on the ring that costs
// least now that the silent replicas are penalized (another one, §4.5,
// unless they have been heard from since) when the thread is free to
// choose, else on its bound ring.
func (c *coordinator) txnTimedOut(now time.Duration, t *threadState, r *protocol.Ready) {
	tx := t.txn
	// Only the replicas that left their reads unanswered are penalized:
	// those that answered are up, and as near as they were.
	silent := map[protocol.NodeID]bool{}
	for _, i := range tx.reqs {
		silent[replica(c.topo, tx.ring, tx.keys[i])] = true
	}
	for _, n := range slices.Sorted(maps.Keys(silent)) {
		c.unanswered(now, n)
	}
	ring := c.binding(t)
	if ring < 0 {
		ring = c.nearestTxnRing(tx.keys)
	}
	c.txnRound1(now, t, ring, r)
}
