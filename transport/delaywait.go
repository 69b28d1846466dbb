package transport

import "time"

// chanWaiter is the portable waiter: a Go timer. Its sleeps are as
// precise as Go's timers (about a millisecond at worst).
type chanWaiter struct {
	timer *time.Timer
	done  chan struct{}
}

func newChanWaiter() *chanWaiter {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &chanWaiter{timer: t, done: make(chan struct{})}
}

func (w *chanWaiter) arm(d time.Duration) {
	if d < 0 {
		w.timer.Stop()
		return
	}
	w.timer.Reset(d) // since Go 1.23 a reset timer delivers no stale value
}

func (w *chanWaiter) wait() {
	select {
	case <-w.timer.C:
	case <-w.done:
	}
}

func (w *chanWaiter) close() { close(w.done) }
