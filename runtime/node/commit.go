package node

import (
	"github.com/causeway/causeway/protocol"
)

// Group commit.
//
// A protocol step whose Ready asks for a synced write may not act — send,
// report, reply — before the write is durable. Syncing each such Ready on
// the node's event loop serializes the node on the disk: one fsync per
// acknowledged write, and nothing else served meanwhile. Instead the loop
// applies the writes at once without syncing (they are in Pebble's
// memtable and write-ahead log, not yet on disk), parks the step's effects,
// and, once it has applied the whole batch of inputs it took, asks for a
// sync on another goroutine; the loop carries on with the next inputs.
// Every synced write of the batch shares that sync, and every one applied
// while a sync is in flight shares the next one. When a sync completes, every parked step it covers is
// carried out, in the order the steps ran.
//
// Order is kept for every step, not only those that wrote: a step that
// comes after a parked one is parked behind it, even if it wrote nothing,
// because its messages may reveal what the earlier step wrote (a get
// served from a put not yet durable). So a step's effects go out only when
// every synced write of every earlier step is durable, exactly as when
// each Ready was synced on the loop. Timers are the exception: they are
// set at once, since a timer only schedules a later step, whose effects
// are ordered behind this one's in turn.

// effects are the parts of a Ready that wait for its writes to be durable.
type effects struct {
	messages []protocol.Message
	visible  []protocol.Visibility
	replies  []protocol.Reply
}

// parked is a step's effects waiting for a sync.
type parked struct {
	// upTo is the number of synced-write steps, counting this one, that
	// must be durable before the effects may go out.
	upTo uint64
	eff  effects
}

// groupCommit is the loop's commit queue: the parked effects in step
// order and the sync in flight. It belongs to the loop's goroutine, except
// for done.
type groupCommit struct {
	// sync makes every write applied so far durable. It runs on its own
	// goroutine, concurrently with the loop applying further writes.
	sync func() error
	// done receives the result of the sync in flight.
	done chan error

	// applied counts the steps that applied writes asking for a sync;
	// durable is how many of them are durable; target is what the sync
	// in flight will make durable (valid while inFlight).
	applied, durable, target uint64
	inFlight                 bool
	queue                    []parked
	// onSync, if set, is called on the loop after each successful sync.
	onSync func()
}

func newGroupCommit(sync func() error, onSync func()) *groupCommit {
	return &groupCommit{sync: sync, done: make(chan error, 1), onSync: onSync}
}

// wrote records that a step applied writes that asked for a sync.
func (g *groupCommit) wrote() { g.applied++ }

// admit takes a step's effects: it returns them to be carried out now when
// nothing they depend on awaits a sync, and otherwise parks them and
// returns false.
func (g *groupCommit) admit(e effects) bool {
	if g.applied == g.durable {
		return true
	}
	g.queue = append(g.queue, parked{upTo: g.applied, eff: e})
	return false
}

// kick starts a sync if some synced write is not durable and none is in
// flight.
func (g *groupCommit) kick() {
	if g.inFlight || g.applied == g.durable {
		return
	}
	g.inFlight, g.target = true, g.applied
	go func() { g.done <- g.sync() }()
}

// synced records the completion of the sync in flight (err is its
// result) and returns the effects it released, in step order. On an error
// nothing is released: the caller must stop the node.
func (g *groupCommit) synced(err error) ([]effects, error) {
	g.inFlight = false
	if err != nil {
		return nil, err
	}
	if g.onSync != nil {
		g.onSync()
	}
	g.durable = g.target
	n := 0
	for n < len(g.queue) && g.queue[n].upTo <= g.durable {
		n++
	}
	out := make([]effects, n)
	for i := range n {
		out[i] = g.queue[i].eff
		g.queue[i] = parked{}
	}
	g.queue = g.queue[n:]
	return out, nil
}
