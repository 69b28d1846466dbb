package protocol

import "time"

// Retry is the backoff state of one message a node retransmits until it is
// acknowledged: the first retransmission comes first after the send, then
// the wait doubles up to a cap, so that a backlog (a DC back from a crash or
// a partition) is not buried under its own retries.
type Retry struct {
	lastSent time.Duration
	wait     time.Duration
}

// SentAt returns the Retry of a message sent at now.
func SentAt(now time.Duration) Retry { return Retry{lastSent: now} }

// Due reports whether the message should be sent again at now, waiting
// first after the first send and doubling up to limit; when it is due it
// records the send.
func (r *Retry) Due(now, first, limit time.Duration) bool {
	if r.wait == 0 {
		r.wait = first
	}
	if now-r.lastSent < r.wait {
		return false
	}
	r.lastSent = now
	r.wait = min(2*r.wait, limit)
	return true
}
