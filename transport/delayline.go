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
// time on a timer precise to tens of microseconds (on Linux a timerfd,
// read through Go's network poller: delaywait_linux.go; Go's own timers
// round a sleep under a millisecond up to a millisecond when the process
// is otherwise idle, which was most of a 0.25 ms hop), and a frame due
// before the one it waits for sets the timer earlier.
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

// waiter is how the delay line's goroutine sleeps: a one-shot timer.
// arm sets it to go off d from now (d < 0: never), replacing the previous
// setting; it is called under the line's mu only. wait returns once the
// timer has gone off since it was last armed (at once if it has), or
// after close.
type waiter interface {
	arm(d time.Duration)
	wait()
	close()
}

func newDelayLine() *delayLine { return &delayLine{w: newWaiter()} }

// send queues f on l: at once when it has no delay and nothing of its
// link is in the line, else in the line until now+d (raised to the due
// time of the link's previous delayed frame). The caller has reserved
// room for f in l's queue. Queued at once with inline set, f may give the
// caller l's write token: send then returns the stream to drain (push).
func (dl *delayLine) send(l *link, f outFrame, d time.Duration, inline bool) (frameSender, bool) {
	if d <= 0 && l.inLine.Load() == 0 {
		return l.push(f, inline)
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
	if dl.entries[0].seq == dl.seq {
		// The line may be waiting for a later frame: it wakes for this
		// one, and sets its timer again for what is left.
		dl.w.arm(max(time.Until(due), 0))
	}
	dl.mu.Unlock()
	return nil, false
}

// wake makes the line's goroutine look at its entries now (Close, after
// its stop channel is closed).
func (dl *delayLine) wake() {
	dl.mu.Lock()
	dl.w.arm(0)
	dl.mu.Unlock()
}

// run moves frames to their links' queues as they come due, until stop
// is closed.
func (dl *delayLine) run(stop <-chan struct{}) {
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
			e.link.push(e.frame, false) // room was reserved at Send; the link's goroutine writes it
			e.link.inLine.Add(-1)
		}
		wait := time.Duration(-1)
		if len(dl.entries) > 0 {
			wait = dl.entries[0].due.Sub(now)
		}
		dl.w.arm(wait)
		dl.mu.Unlock()
		dl.w.wait()
	}
}
