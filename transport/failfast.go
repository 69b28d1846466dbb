package transport

import (
	"fmt"
	"time"
)

// failFastConnectTimeout bounds a FailFast link's connection attempt, so
// that an address that drops connection attempts (rather than refusing
// them) is found unreachable in about a second too.
const failFastConnectTimeout = time.Second

// unreachableError is why a FailFast link is unreachable: it wraps
// ErrUnreachable and the failed attempt's error.
type unreachableError struct {
	addr string
	err  error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("%v: %s: %v", ErrUnreachable, e.addr, e.err)
}

func (e *unreachableError) Unwrap() []error { return []error{ErrUnreachable, e.err} }

// unreachable returns the error Send answers for this link: non-nil only
// on a FailFast transport whose link failed to open a stream since it last
// had one.
func (l *link) unreachable() error {
	if p := l.unreachableErr.Load(); p != nil {
		return *p
	}
	return nil
}

// failedToOpen is called by run when a stream could not be opened. On a
// FailFast transport it marks the link unreachable and drops every frame
// it holds (pending included), reporting each to its unsent callback.
func (l *link) failedToOpen(err error, pending **outFrame) {
	t := l.t
	if !t.cfg.FailFast {
		return
	}
	var uerr error = &unreachableError{addr: l.addr, err: err}
	l.unreachableErr.Store(&uerr)
	drop := func(f *outFrame) {
		l.queued.Add(-1)
		t.unsent.Add(1)
		if f.unsent != nil {
			f.unsent(uerr)
		}
	}
	if *pending != nil {
		drop(*pending)
		*pending = nil
	}
	for {
		select {
		case f := <-l.queue:
			drop(&f)
		default:
			return
		}
	}
}
