package node

import (
	"container/heap"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
)

// clock is the clock the state machines see: the time since the cluster's
// epoch, read once from the wall clock when the clock is made and then
// advanced by the monotonic clock, so that it never goes backwards within
// a process and agrees (to the hosts' clock sync) across processes and
// restarts.
//
// skew, when set, is an offset in nanoseconds that the admin endpoint sets
// (cluster.AdminClockPath): it is added to the time handed to the state
// machine (local), not to the time timers run on (now), as the
// simulator's clock_skew fault does.
type clock struct {
	base  time.Duration
	start time.Time
	skew  *atomic.Int64
}

func newClock(epoch time.Time) clock {
	if epoch.IsZero() {
		epoch = time.Unix(0, 0)
	}
	start := time.Now()
	return clock{base: max(start.Sub(epoch), 0), start: start}
}

func (c clock) now() time.Duration { return c.base + time.Since(c.start) }

// local is the time the state machine sees: now plus the skew, never
// below 0.
func (c clock) local() time.Duration {
	t := c.now()
	if c.skew != nil {
		t += time.Duration(c.skew.Load())
	}
	return max(t, 0)
}

type inputKind uint8

const (
	inMessage inputKind = iota // a message from another node
	inSubmit                   // a client operation for a session
	inCall                     // a function to run on the machine's goroutine
	inUnsent                   // a client session's message dropped unwritten
	inRefused                  // a node refused a client session's frame
)

// input is one thing queued for a state machine.
type input struct {
	kind  inputKind
	from  protocol.NodeID
	msg   proto.Message
	req   protocol.Request
	reply func(protocol.Reply, error) // of an inSubmit
	call  func()                      // of an inCall
	gen   uint64                      // of an inUnsent: the operation's
	err   error                       // of an inUnsent or inRefused: why
	// taken, if set, is called when the machine takes the input (the
	// node host's count of a session's queued frames).
	taken func()
}

// inbox is the unbounded queue of a machine's inputs. Pushers (transport
// handlers, clients) never block; the machine's goroutine takes everything
// queued at once.
type inbox struct {
	mu     sync.Mutex
	q      []input
	closed bool
	notify chan struct{} // capacity 1: wakes the machine
}

func newInbox() *inbox { return &inbox{notify: make(chan struct{}, 1)} }

// push queues in; it reports false (dropping in) once the inbox is closed.
func (b *inbox) push(in input) bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.q = append(b.q, in)
	b.mu.Unlock()
	select {
	case b.notify <- struct{}{}:
	default:
	}
	return true
}

// take appends every queued input to dst and empties the queue.
func (b *inbox) take(dst []input) []input {
	b.mu.Lock()
	defer b.mu.Unlock()
	dst = append(dst, b.q...)
	clear(b.q)
	b.q = b.q[:0]
	return dst
}

// len is the number of queued inputs.
func (b *inbox) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.q)
}

// close refuses further pushes and drops what is queued; it returns how
// many inputs were dropped.
func (b *inbox) close() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.q)
	b.closed, b.q = true, nil
	return n
}

// timerEntry is a pending protocol timer.
type timerEntry struct {
	at    time.Duration // on the machine's clock
	seq   uint64        // ties broken in the order the timers were set
	token uint64
}

type timerHeap []timerEntry

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(timerEntry)) }
func (h *timerHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// machine drives one protocol state machine (a server node or a client
// session): a server node's on one goroutine, everything but box belonging
// to that goroutine while run runs; a client session's under its direct
// lock (direct.go).
type machine struct {
	id    protocol.NodeID
	sm    protocol.Node
	clock clock
	box   *inbox
	log   *slog.Logger

	// persist applies a Ready's storage writes (nil: the machine has no
	// storage, and asking for writes is a failure). With gc set, persist
	// must not sync: gc does (commit.go).
	persist func(writes []storage.Write, sync bool) error
	// gc, if set, is the group commit: a Ready's synced writes are applied
	// at once and its effects wait for a shared sync (commit.go).
	gc *groupCommit
	// send hands one message (from this machine) to the network.
	send func(m protocol.Message)
	// received, if set, is told about each message before it is stepped.
	received func(m protocol.Message)
	// visible, if set, is told about each visibility report.
	visible func(v protocol.Visibility)

	timers  timerHeap
	seq     uint64
	onReply func(protocol.Reply, error) // of the outstanding submission
	// track follows the messages of a client session's outstanding
	// operation (unavailable.go); unused by server nodes.
	track opTrack
	// direct, set for a client session, runs the state machine on the
	// goroutines that bring it inputs (direct.go); nil for server nodes,
	// whose loop batches inputs for group commit.
	direct *direct
}

// run starts the state machine and handles its inputs and timers until
// stop is closed (it then returns nil) or a Ready cannot be persisted (it
// then returns the error: acting on the Ready's effects could break the
// protocol's durability promises). The inbox is closed when run returns.
func (m *machine) run(stop <-chan struct{}, started func()) error {
	defer m.box.close()
	if err := m.apply(m.sm.Start(m.clock.local())); err != nil {
		return err
	}
	if started != nil {
		started()
	}
	wake := time.NewTimer(time.Hour)
	wake.Stop()
	defer wake.Stop()
	var batch []input
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		if err := m.fireTimers(); err != nil {
			return err
		}
		batch = m.box.take(batch[:0])
		for i, in := range batch {
			batch[i] = input{}
			if err := m.handle(in); err != nil {
				return err
			}
			select {
			case <-stop:
				return nil
			case err := <-m.synced():
				if err := m.release(err); err != nil {
					return err
				}
			default:
			}
		}
		// Every synced write the timers and the batch applied shares one
		// sync, started only now (commit.go).
		m.kickSync()
		if len(batch) > 0 {
			continue
		}
		var fire <-chan time.Time
		if len(m.timers) > 0 {
			wake.Reset(max(m.timers[0].at-m.clock.now(), 0))
			fire = wake.C
		}
		select {
		case <-stop:
			return nil
		case <-m.box.notify:
		case <-fire:
		case err := <-m.synced():
			if err := m.release(err); err != nil {
				return err
			}
		}
		wake.Stop() // since Go 1.23 a stopped timer delivers no stale value
	}
}

// fireTimers ticks the state machine for every timer due.
func (m *machine) fireTimers() error {
	for len(m.timers) > 0 && m.timers[0].at <= m.clock.now() {
		e := heap.Pop(&m.timers).(timerEntry)
		if err := m.apply(m.sm.Tick(m.clock.local(), e.token)); err != nil {
			return err
		}
		if err := m.failOpIfLost(); err != nil { // a retransmission refused
			return err
		}
	}
	return nil
}

// handle hands one input to the state machine and applies its Ready.
func (m *machine) handle(in input) error {
	if in.taken != nil {
		in.taken()
	}
	now := m.clock.local()
	var r protocol.Ready
	switch in.kind {
	case inMessage:
		msg := protocol.Message{From: in.from, To: m.id, Body: in.msg}
		if m.received != nil {
			m.received(msg)
		}
		r = m.sm.Step(now, msg)
	case inSubmit:
		s, ok := m.sm.(protocol.Session)
		if !ok {
			return fmt.Errorf("node %s is not a session: it cannot take client operations", m.id)
		}
		if m.onReply != nil {
			// Session.Do holds the busy token, so this cannot happen.
			panic(fmt.Sprintf("node: session %s got an operation while one is outstanding", m.id))
		}
		m.onReply = in.reply
		m.track = opTrack{gen: m.track.gen + 1, op: in.req.Op}
		r = s.Submit(now, in.req)
	case inCall:
		in.call()
		return nil
	case inUnsent:
		m.unsentFrame(in.gen, in.err)
		return m.failOpIfLost()
	case inRefused:
		return m.refused(in.err)
	}
	if err := m.apply(r); err != nil {
		return err
	}
	return m.failOpIfLost()
}

// apply carries out a Ready: its storage writes first (synced if asked),
// and only once they are done its messages, visibility reports and
// replies. With group commit the writes are applied unsynced and those
// effects wait, in step order, for a sync that covers them (commit.go);
// timers are set at once.
func (m *machine) apply(r protocol.Ready) error {
	if len(r.Persist.Writes) > 0 {
		if m.persist == nil {
			return fmt.Errorf("node %s asked to persist %d writes but has no storage", m.id, len(r.Persist.Writes))
		}
		if err := m.persist(r.Persist.Writes, r.Persist.Sync); err != nil {
			return fmt.Errorf("storage: %w", err)
		}
		if m.gc != nil && r.Persist.Sync {
			m.gc.wrote()
		}
	}
	now := m.clock.now()
	for _, t := range r.After.Timers {
		m.seq++
		heap.Push(&m.timers, timerEntry{at: now + t.After, seq: m.seq, token: t.Token})
	}
	e := effects{messages: r.After.Messages, visible: r.After.Visible, replies: r.After.Replies}
	if m.gc != nil && !m.gc.admit(e) {
		return nil // the loop starts the sync once its batch is applied
	}
	m.carryOut(e)
	return nil
}

// kickSync starts a sync for the synced writes applied and not yet
// durable, if none is in flight.
func (m *machine) kickSync() {
	if m.gc != nil {
		m.gc.kick()
	}
}

// synced is the channel on which the group commit's sync in flight
// reports (nil, never ready, without group commit).
func (m *machine) synced() <-chan error {
	if m.gc == nil {
		return nil
	}
	return m.gc.done
}

// release carries out the effects a completed sync released. The loop
// starts the next sync, if synced writes applied meanwhile wait for one.
func (m *machine) release(syncErr error) error {
	released, err := m.gc.synced(syncErr)
	if err != nil {
		return fmt.Errorf("storage: sync: %w", err)
	}
	for _, e := range released {
		m.carryOut(e)
	}
	return nil // the loop starts the next sync, if one is due, after its batch
}

// carryOut sends a step's messages and hands over its visibility reports
// and replies.
func (m *machine) carryOut(e effects) {
	for _, msg := range e.messages {
		if msg.From != m.id {
			m.log.Error("message with a forged sender dropped", "node", m.id, "from", msg.From, "to", msg.To)
			continue
		}
		m.send(msg)
	}
	for _, v := range e.visible {
		if m.visible != nil {
			m.visible(v)
		}
	}
	for _, rep := range e.replies {
		cb := m.onReply
		if cb == nil {
			m.log.Error("reply with no operation outstanding", "node", m.id, "op", rep.Op)
			continue
		}
		m.onReply = nil
		cb(rep, nil)
	}
}
