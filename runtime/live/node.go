package live

import (
	"fmt"
	"math/rand/v2"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/wire"
)

// node is one state machine and the goroutine that drives it. Everything
// but box, quit and exited belongs to that goroutine once it runs.
type node struct {
	rt      *Runtime
	id      protocol.NodeID
	dc      string
	role    protocol.Role // the NodeSpec's role; empty for sessions
	session bool
	sm      protocol.Node
	engine  storage.Engine // nil for sessions
	rng     *rand.Rand     // handed to the protocol
	netRng  *rand.Rand     // draws the jitter of the messages it sends
	box     *mailbox
	quit    chan struct{} // closed to end this node alone (Session.Close)
	exited  chan struct{} // closed when the loop has returned
	// busy holds a token while a session has an operation outstanding.
	busy chan struct{}
	// onReply is the reply callback of the outstanding operation.
	onReply func(protocol.Reply)
}

// newNode creates the shell of a node; kind is "node" or "session", as in
// the simulator's seed derivation.
func (rt *Runtime) newNode(kind string, id protocol.NodeID) *node {
	return &node{rt: rt, id: id, dc: id.DC(), rng: newRand(rt.cfg.Seed, kind+"/"+string(id)),
		netRng: newRand(rt.cfg.Seed, "network/"+string(id)), box: newMailbox(),
		quit: make(chan struct{}), exited: make(chan struct{})}
}

// run is the node's event loop.
func (n *node) run() {
	defer n.rt.wg.Done()
	defer close(n.exited)
	defer func() {
		// Whatever is still queued will never be handled.
		if d := n.box.close(); d > 0 {
			n.rt.dropped.Add(int64(d))
			n.rt.inFlight.Add(int64(-d))
		}
	}()
	if !n.apply(n.sm.Start(n.rt.Now())) {
		return
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-n.rt.done:
			return
		case <-n.quit:
			return
		default:
		}
		e, ok, wait := n.box.next(n.rt.Now())
		if ok {
			if !n.handle(e) {
				return
			}
			continue
		}
		var fire <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			fire = timer.C
		}
		select {
		case <-n.rt.done:
			return
		case <-n.quit:
			return
		case <-n.box.notify:
		case <-fire:
		}
		// Since Go 1.23 a stopped timer delivers no stale value.
		timer.Stop()
	}
}

// handle hands one input to the state machine; it reports false when the
// node has failed and must stop.
func (n *node) handle(e event) bool {
	now := n.rt.Now()
	var r protocol.Ready
	switch e.kind {
	case evDeliver:
		n.rt.inFlight.Add(-1)
		body, err := wire.Decode(e.frame)
		if err != nil {
			n.rt.dropped.Add(1)
			n.rt.log.Error("live: undecodable frame dropped", "node", n.id, "from", e.from, "err", err)
			return true
		}
		r = n.sm.Step(now, protocol.Message{From: e.from, To: n.id, Body: body})
	case evTimer:
		r = n.sm.Tick(now, e.token)
	case evSubmit:
		if n.onReply != nil {
			// Session.Do and SubmitAsync hold the busy token, so this
			// cannot happen.
			panic(fmt.Sprintf("live: session %s got an operation while one is outstanding", n.id))
		}
		n.onReply = e.onReply
		r = n.sm.(protocol.Session).Submit(now, e.req)
	case evCall:
		e.call()
		return true
	}
	return n.apply(r)
}

// apply carries out a Ready: persistence first, then its effects. It
// reports false when persisting failed: the node then stops, because the
// effects may depend on the writes being durable.
func (n *node) apply(r protocol.Ready) bool {
	if len(r.Persist.Writes) > 0 {
		if n.engine == nil {
			n.rt.fail(n, fmt.Errorf("session asked to persist %d writes", len(r.Persist.Writes)))
			return false
		}
		if err := n.engine.Apply(r.Persist.Writes, r.Persist.Sync); err != nil {
			n.rt.fail(n, fmt.Errorf("storage: %w", err))
			return false
		}
	}
	now := n.rt.Now()
	for _, m := range r.After.Messages {
		n.send(now, m)
	}
	for _, t := range r.After.Timers {
		n.box.push(event{at: now + t.After, seq: n.rt.seq.Add(1), kind: evTimer, token: t.Token})
	}
	for _, v := range r.After.Visible {
		n.rt.obs.Visible(now, n.id, v)
	}
	for _, rep := range r.After.Replies {
		cb := n.onReply
		if cb == nil {
			n.rt.log.Error("live: reply with no operation outstanding", "node", n.id, "op", rep.Op)
			continue
		}
		n.onReply = nil
		<-n.busy // the session may take its next operation
		cb(rep)
	}
	return true
}

// send encodes m and puts it in the receiver's mailbox, due after the
// link's one-way delay (plus jitter between DCs).
func (n *node) send(now time.Duration, m protocol.Message) {
	if m.From != n.id {
		n.rt.log.Error("live: message with a forged sender dropped", "node", n.id, "from", m.From, "to", m.To)
		n.rt.dropped.Add(1)
		return
	}
	frame, err := wire.Encode(m.Body)
	if err != nil {
		n.rt.log.Error("live: unencodable message dropped", "node", n.id, "to", m.To, "err", err)
		n.rt.dropped.Add(1)
		return
	}
	rt := n.rt
	rt.messages.Add(1)
	size := proto.Size(m.Body) // payload bytes, as the simulator counts them
	rt.obs.MessageSent(now, n.id, m.To, size)
	to := rt.lookup(m.To)
	if to == nil {
		rt.log.Error("live: message to an unknown node dropped", "node", n.id, "to", m.To, "type", fmt.Sprintf("%T", m.Body))
		rt.dropped.Add(1)
		return
	}
	d := rt.topo.OneWay(n.dc, to.dc)
	if n.dc != to.dc {
		rt.wanMessages.Add(1)
		rt.wanBytes.Add(int64(size))
		if rt.jitter > 0 {
			d += time.Duration(n.netRng.Int64N(int64(2*rt.jitter)+1)) - rt.jitter
			if d < 0 {
				d = 0
			}
		}
	}
	rt.inFlight.Add(1)
	if !to.box.push(event{at: now + d, seq: rt.seq.Add(1), kind: evDeliver, from: n.id, frame: frame}) {
		rt.inFlight.Add(-1)
		rt.dropped.Add(1) // the receiver is a closed session
	}
}
