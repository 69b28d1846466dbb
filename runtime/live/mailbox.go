package live

import (
	"container/heap"
	"sync"
	"time"

	"github.com/causeway/causeway/protocol"
)

type eventKind uint8

const (
	evDeliver eventKind = iota // a message arrives
	evTimer                    // a timer set through Ready.SetTimer fires
	evSubmit                   // a client operation is handed to a session
	evCall                     // run a function on the node's goroutine
)

// event is one input waiting in a node's mailbox. It becomes due at at
// (runtime clock); due events are handled in (at, seq) order.
type event struct {
	at    time.Duration
	seq   uint64
	kind  eventKind
	from  protocol.NodeID
	frame []byte
	token uint64
	req   protocol.Request
	// onReply receives the reply of an evSubmit.
	onReply func(protocol.Reply)
	call    func()
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = event{}
	*h = old[:len(old)-1]
	return e
}

// mailbox is a node's inbox and delay line in one: an unbounded priority
// queue of inputs keyed by the time they become due. Senders never block
// and nothing is dropped while the mailbox is open; memory is the only
// bound. Messages in flight, pending timers and client submissions all wait
// here, so the node's goroutine needs a single timer to sleep until the next
// one is due.
//
// Per-link FIFO: a node's goroutine sends in program order with a
// non-decreasing clock, and seq numbers are taken in that order, so with
// zero jitter two messages on one link are due in the order they were sent.
type mailbox struct {
	mu     sync.Mutex
	events eventHeap
	closed bool
	// notify has capacity 1: a push wakes the owner if it sleeps.
	notify chan struct{}
}

func newMailbox() *mailbox { return &mailbox{notify: make(chan struct{}, 1)} }

// push queues e; it reports false (and drops e) when the mailbox is closed.
func (b *mailbox) push(e event) bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	heap.Push(&b.events, e)
	b.mu.Unlock()
	select {
	case b.notify <- struct{}{}:
	default:
	}
	return true
}

// next pops the earliest event due at or before now. When none is due it
// returns ok=false and how long until the earliest pending event (wait < 0:
// the mailbox is empty).
func (b *mailbox) next(now time.Duration) (e event, ok bool, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.events) == 0 {
		return event{}, false, -1
	}
	if at := b.events[0].at; at > now {
		return event{}, false, at - now
	}
	return heap.Pop(&b.events).(event), true, 0
}

// close drops every queued event and refuses further pushes. It returns
// how many message deliveries were dropped.
func (b *mailbox) close() (droppedMessages int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.events {
		if e.kind == evDeliver {
			droppedMessages++
		}
	}
	b.closed, b.events = true, nil
	return droppedMessages
}
