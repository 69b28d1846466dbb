package transport

import "time"

// chanWaiter is the portable waiter: a Go timer and a channel. Its sleeps
// are as precise as Go's timers (about a millisecond at worst).
type chanWaiter struct {
	ch    chan struct{}
	timer *time.Timer
}

func newChanWaiter() *chanWaiter {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &chanWaiter{ch: make(chan struct{}, 1), timer: t}
}

func (w *chanWaiter) wait(d time.Duration) {
	if d < 0 {
		<-w.ch
		return
	}
	w.timer.Reset(d)
	select {
	case <-w.ch:
	case <-w.timer.C:
	}
	w.timer.Stop()
}

func (w *chanWaiter) wake() {
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

func (w *chanWaiter) close() {}
