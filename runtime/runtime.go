// Package runtime holds what Causeway's two runtimes share. A runtime is
// the environment protocol state machines run in: it delivers messages and
// timers, keeps the clock, persists Ready.Persist before acting on
// Ready.After, and reports what happened to an Observer.
//
// The runtimes themselves are runtime/sim (a deterministic discrete-event
// simulator with virtual time) and runtime/live (one goroutine per node,
// the real clock, in-process transport with injected WAN delay).
package runtime

import (
	"time"

	"github.com/causeway/causeway/protocol"
)

// Observer is told what a runtime did. The sim calls it from its single
// thread; the live runtime calls it from many goroutines, so a live
// Observer must be safe for concurrent use. now is the runtime's clock
// (virtual time in the simulator), measured from the start of the run.
type Observer interface {
	// MessageSent is called for every message handed to the network, with
	// its payload size: the protobuf encoding of the message (proto.Size),
	// without the wire codec's framing (the message's kind), so that
	// wan_bytes measures what a protocol ships, not how it is named.
	MessageSent(now time.Duration, from, to protocol.NodeID, bytes int)
	// Visible is called when a node reports that a write became readable
	// (v.Value is nil at a metadata-only replica, which reports v.Version).
	Visible(now time.Duration, node protocol.NodeID, v protocol.Visibility)
}

// NopObserver ignores everything.
type NopObserver struct{}

// MessageSent implements Observer.
func (NopObserver) MessageSent(time.Duration, protocol.NodeID, protocol.NodeID, int) {}

// Visible implements Observer.
func (NopObserver) Visible(time.Duration, protocol.NodeID, protocol.Visibility) {}
