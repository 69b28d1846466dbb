package node

import (
	"sync"
	"time"
)

// direct runs a client session's state machine on the goroutines that
// have work for it — the caller of Session.Do submitting an operation,
// the transport's reader delivering a reply — under a lock, instead of
// handing each input to the session's own goroutine. A session's
// operation then costs the same goroutine wake-ups as a no-op Ping: the
// reply's reader wakes the caller, and nothing else wakes.
//
// The session's goroutine (runDirect) is left what cannot run where it
// arrives: the protocol's timers, and the inputs the inbox still carries
// (a frame the transport dropped unwritten, reported from inside a send
// while the lock is held; Token's call).
//
// Inputs still reach the state machine one at a time, each one's Ready
// carried out before the next is stepped; frames of one link still
// arrive in order, since one reader delivers them.
type direct struct {
	mu     sync.Mutex    // held while the state machine runs
	closed bool          // no input is handled any more
	err    error         // why a direct input ended the session
	failed chan struct{} // closed when err is set
	wake   *time.Timer   // fires when the earliest timer is due
	armed  time.Duration // when wake fires (on the machine's clock); 0: not armed
}

// startDirect starts m's state machine on the calling goroutine and
// makes m run directly (see direct).
func (m *machine) startDirect() error {
	d := &direct{failed: make(chan struct{})}
	d.wake = time.NewTimer(time.Hour)
	d.wake.Stop()
	m.direct = d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := m.apply(m.sm.Start(m.clock.local())); err != nil {
		d.closed = true
		return err
	}
	m.rearm()
	return nil
}

// handleDirect hands in to the state machine on the calling goroutine.
// It reports false when the session has ended (in is dropped).
func (m *machine) handleDirect(in input) bool {
	d := m.direct
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	if err := m.handle(in); err != nil {
		m.failDirect(err)
		return true
	}
	m.rearm()
	return true
}

// failure is why an input ended the session, if one did.
func (d *direct) failure() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// failDirect ends the session with err; the lock is held.
func (m *machine) failDirect(err error) {
	d := m.direct
	d.closed, d.err = true, err
	close(d.failed)
}

// rearm points the wake timer at the earliest protocol timer, if that is
// earlier than where it points; the lock is held. A session sets a
// timeout per operation, each later than the last: the timer is rarely
// moved.
func (m *machine) rearm() {
	d := m.direct
	if len(m.timers) == 0 {
		return
	}
	at := m.timers[0].at
	if d.armed != 0 && d.armed <= at {
		return
	}
	d.armed = at
	d.wake.Reset(max(at-m.clock.now(), 0))
}

// runDirect is the session's goroutine with direct: it fires the
// protocol's timers and handles what the inbox carries until stop is
// closed (it then returns nil) or an input ends the session (it returns
// why). The inbox is closed when it returns.
func (m *machine) runDirect(stop <-chan struct{}) error {
	d := m.direct
	defer m.box.close()
	defer d.wake.Stop()
	var batch []input
	for {
		select {
		case <-stop:
			d.mu.Lock()
			d.closed = true
			d.mu.Unlock()
			return nil
		case <-d.failed:
			return d.err
		case <-m.box.notify:
		case <-d.wake.C:
		}
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			continue // failed: the select above returns
		}
		err := m.serveDirect(&batch)
		if err != nil {
			m.failDirect(err)
		} else {
			m.rearm()
		}
		d.mu.Unlock()
	}
}

// serveDirect fires the due timers and handles the queued inputs; the
// lock is held.
func (m *machine) serveDirect(batch *[]input) error {
	d := m.direct
	if d.armed != 0 && d.armed <= m.clock.now() {
		d.armed = 0
	}
	if err := m.fireTimers(); err != nil {
		return err
	}
	*batch = m.box.take((*batch)[:0])
	for i, in := range *batch {
		(*batch)[i] = input{}
		if err := m.handle(in); err != nil {
			return err
		}
	}
	return nil
}
