package transport

import (
	"container/heap"
	"sync"
	"time"
)

// The delay line: WAN emulation without one timer per frame.
//
// A frame sent with no delay goes straight to its link's queue: traffic
// the emulation does not delay (inside a datacenter, or with emulation
// off) costs nothing for it. A delayed frame goes into the transport's
// one delay line, a deadline queue (a heap ordered by due time, then by
// arrival) served by one goroutine, which moves each frame to its link's
// queue when it comes due. The goroutine sleeps until the earliest due
// time with a waiter precise to tens of microseconds (on Linux, ppoll on
// an eventfd with the thread's timer slack at its minimum: Go's timers
// round a sleep under a millisecond up to a millisecond when the process
// is otherwise idle, which was most of a 0.25 ms hop), and a frame due
// before the one it waits for wakes it early.
//
// A link's frames never overtake one another: a delayed frame is due no
// earlier than the link's previous delayed frame (its due time is raised
// to that one's, so a delay lowered by SetDelay does not reorder), and a
// frame sent with no delay while earlier frames of its link are still in
// the line queues behind them.

// lineEntry is a frame waiting in the delay line.
type lineEntry struct {
	due   time.Time
	seq   uint64 // arrival order, for equal due times
	link  *link
	frame outFrame
}

type lineHeap []lineEntry

func (h lineHeap) Len() int { return len(h) }
func (h lineHeap) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].seq < h[j].seq
}
func (h lineHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *lineHeap) Push(x any)   { *h = append(*h, x.(lineEntry)) }
func (h *lineHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = lineEntry{}
	*h = old[:len(old)-1]
	return e
}

// delayLine holds delayed frames until they are due.
type delayLine struct {
	w waiter

	mu      sync.Mutex
	entries lineHeap
	seq     uint64
}

// waiter is how the delay line's goroutine sleeps: wait returns after d
// (at the earliest; d < 0 waits until woken) or as soon as wake is called
// (a wake while it is not waiting makes the next wait return at once).
type waiter interface {
	wait(d time.Duration)
	wake()
	close()
}

func newDelayLine() *delayLine { return &delayLine{w: newWaiter()} }

// send queues f on l: at once when it has no delay and nothing of its
// link is in the line, else in the line until now+d (raised to the due
// time of the link's previous delayed frame). The caller has reserved
// room for f in l's queue.
func (dl *delayLine) send(l *link, f outFrame, d time.Duration) {
	if d <= 0 && l.inLine.Load() == 0 {
		l.queue <- f
		return
	}
	var due time.Time
	if d > 0 {
		due = time.Now().Add(d)
	}
	dl.mu.Lock()
	if due.Before(l.lastDue) {
		due = l.lastDue
	}
	l.lastDue = due
	l.inLine.Add(1)
	dl.seq++
	heap.Push(&dl.entries, lineEntry{due: due, seq: dl.seq, link: l, frame: f})
	first := dl.entries[0].seq == dl.seq
	dl.mu.Unlock()
	if first {
		dl.w.wake() // it may be waiting for a later frame
	}
}

// run moves frames to their links' queues as they come due, until stop
// is closed.
func (dl *delayLine) run(stop <-chan struct{}) {
	prepareWaiterThread()
	for {
		select {
		case <-stop:
			return
		default:
		}
		dl.mu.Lock()
		now := time.Now()
		for len(dl.entries) > 0 && !dl.entries[0].due.After(now) {
			e := heap.Pop(&dl.entries).(lineEntry)
			e.link.queue <- e.frame // room was reserved at Send
			e.link.inLine.Add(-1)
		}
		wait := time.Duration(-1)
		if len(dl.entries) > 0 {
			wait = dl.entries[0].due.Sub(now)
		}
		dl.mu.Unlock()
		dl.w.wait(wait)
	}
}
