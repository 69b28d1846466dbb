package protocol

import "google.golang.org/protobuf/proto"

// Priority is the class of an input in a server node's service queue in
// the simulator: a node serves every queued high-priority input before
// any low-priority one, and inputs of one class in arrival order. The zero
// value is PriorityHigh, so a protocol that says nothing gets one FIFO
// queue per node.
type Priority uint8

const (
	// PriorityHigh is the priority of every input unless a Prioritizer
	// says otherwise: client traffic, eager propagation, acknowledgements.
	PriorityHigh Priority = iota
	// PriorityLow yields to every high-priority input queued at the same
	// node, e.g. ChainReaction's lazy propagation to the tail of a chain
	// (chainreaction.txt §3.3).
	PriorityLow
)

func (p Priority) String() string {
	if p == PriorityLow {
		return "low"
	}
	return "high"
}

// Prioritizer is implemented by protocols some of whose messages yield to
// others in a node's service queue. A runtime that queues inputs (the
// simulator with a service time) asks it for the priority of every message
// it queues; timers are always PriorityHigh. Priority must depend on the
// message alone. Priorities matter only where inputs wait: in the
// simulator with a service time; the live runtimes serve each node's
// inputs in arrival order.
type Prioritizer interface {
	Priority(body proto.Message) Priority
}

// WriteCarrier is implemented by protocols that replicate writes by
// message, so that a runtime can tell how much metadata a protocol ships
// per replicated write (metadata_bytes_per_write: a message's payload
// bytes minus its value's). ReplicatedValue reports whether body carries a
// client write to another replica of its key — COPS's Replicate, Karma's
// RingPut, not a client's request to its own DC nor a cache fill — and if
// so the value written.
type WriteCarrier interface {
	ReplicatedValue(body proto.Message) (value []byte, ok bool)
}

// Cloner is implemented by protocols that copy their own message bodies
// faster than proto.Clone's reflection, for the simulator, which gives
// every receiver its own copy of a body. CloneBody returns a copy equal
// to proto.Clone(body) field by field (an empty bytes field becomes nil,
// as proto.Clone makes it) and sharing no memory with it, or nil for a
// body it does not copy, which the simulator then clones with
// proto.Clone.
type Cloner interface {
	CloneBody(body proto.Message) proto.Message
}

// Sharer is implemented by protocols whose nodes never modify a message
// body, nor anything it refers to (bytes, lists, nested messages), once it
// has been handed to Ready.Send or received in Step: the simulator then
// hands every receiver the sent body itself instead of a copy. ShareBody
// reports whether body may be shared; a body it refuses is copied
// (Cloner, proto.Clone). A shared body must be what its copy would be:
// no unknown fields, and no bytes field or list that is empty but not
// nil (a copy makes it nil). The simulator's Config.CheckShared catches a
// node that modifies a shared body.
type Sharer interface {
	ShareBody(body proto.Message) bool
}

// Sizer is implemented by protocols that size their own message bodies
// faster than proto.Size's reflection, for the simulator, which sizes
// every message it sends (wan_bytes, the cost model, the frame limit).
// BodySize returns proto.Size(body), or false for a body it does not
// size, which the simulator then sizes with proto.Size.
type Sizer interface {
	BodySize(body proto.Message) (int, bool)
}
