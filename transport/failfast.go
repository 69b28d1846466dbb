package transport

import (
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/status"
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
	return fmt.Sprintf("%v: %s: %s", ErrUnreachable, e.addr, briefCause(e.err))
}

// briefCause is the end of a gRPC connection error, the part a person
// acts on ("connection refused", "i/o timeout"), rather than its layers of
// status codes and descriptions.
func briefCause(err error) string {
	msg := status.Convert(err).Message()
	if i := strings.LastIndex(msg, "connect: "); i >= 0 {
		msg = msg[i+len("connect: "):]
	} else if i := strings.LastIndex(msg, "desc = "); i >= 0 {
		msg = msg[i+len("desc = "):]
	}
	return strings.Trim(msg, `"`)
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
// it holds, reporting each to its unsent callback.
func (l *link) failedToOpen(err error) {
	t := l.t
	if !t.cfg.FailFast {
		return
	}
	var uerr error = &unreachableError{addr: l.addr, err: err}
	l.unreachableErr.Store(&uerr)
	// No stream is attached: no one holds the write token.
	l.mu.Lock()
	q := l.q
	l.q = nil
	l.mu.Unlock()
	for i := range q {
		l.queued.Add(-1)
		t.unsent.Add(1)
		if q[i].unsent != nil {
			q[i].unsent(uerr)
		}
	}
}
