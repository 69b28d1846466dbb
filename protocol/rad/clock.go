package rad

import (
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
)

// clockKey stores a bound above every timestamp a server has handed out,
// so a restarted server never mints or reports a time below one it
// reported before its crash (a round-1 LVT, an EVT).
const clockKey = "k/clock"

// clockLease is how far the stored bound runs ahead of the clock.
const clockLease = 1 << 16

// lamport is a server's Lamport clock (Eiger §4.1): timestamps are
// counter << serverBits | index, unique across servers.
type lamport struct {
	counter uint64
	index   uint64
	ceiling uint64 // stored bound on counter
}

// observe advances the clock past timestamp t (Lamport's receive rule).
func (c *lamport) observe(t uint64) { c.counter = max(c.counter, t>>serverBits) }

// tick returns a new timestamp, larger than every one seen.
func (c *lamport) tick(r *protocol.Ready) uint64 {
	c.counter++
	c.lease(r)
	return c.counter<<serverBits | c.index
}

// now is the latest time up to which nothing this server has not yet
// committed can become visible: every later tick anywhere is larger.
func (c *lamport) now(r *protocol.Ready) uint64 {
	c.lease(r)
	return c.counter<<serverBits | (1<<serverBits - 1)
}

// advance ticks the clock once per event: Step calls it for the message
// handled and each message sent, Tick for each message sent, as Eiger's
// LamportClock ticks on every receive and every send (updateTime,
// sendTimestamp).
// A server that handles more messages runs ahead of a quieter one, which
// can make the validity intervals of RAD's first round miss each other
// (k2.txt §VII-C). Only future times grow: the LVTs and EVTs already
// handed out stay valid.
func (c *lamport) advance(events int, r *protocol.Ready) {
	if events <= 0 {
		return
	}
	c.counter += uint64(events)
	c.lease(r)
}

// lease extends the stored ceiling when the clock reaches it: synced
// before the Ready's effects reveal any time above the old ceiling.
func (c *lamport) lease(r *protocol.Ready) {
	if c.counter < c.ceiling {
		return
	}
	c.ceiling = c.counter + clockLease
	r.Write(storage.Write{Kind: storage.Put, Key: clockKey, Version: c.ceiling}, true)
}
