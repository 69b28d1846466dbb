package sim

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/wire"
)

// copyBody returns the copy of a message body its receiver gets: the body
// itself when the protocol lets receivers share it (protocol.Sharer), else
// a clone (the protocol's own, protocol.Cloner, when it has one), or with
// Config.WireRoundTrip the body encoded and decoded by the wire codec.
func (s *Sim) copyBody(from *simNode, body proto.Message) proto.Message {
	if !s.cfg.WireRoundTrip {
		if s.sharer != nil && s.sharer.ShareBody(body) {
			if s.shared != nil {
				if _, ok := s.shared[body]; !ok {
					s.shared[body] = proto.Clone(body)
				}
			}
			return body
		}
		if s.cloner != nil {
			if c := s.cloner.CloneBody(body); c != nil {
				return c
			}
		}
		return proto.Clone(body)
	}
	frame, err := wire.Encode(body)
	if err != nil {
		panic(fmt.Sprintf("sim: node %s: %v", from.id, err))
	}
	out, err := wire.Decode(frame)
	if err != nil {
		panic(fmt.Sprintf("sim: node %s sent an undecodable frame: %v", from.id, err))
	}
	return out
}

// priority is the class an input waits in at a busy node: the protocol's
// Prioritizer decides for messages; timers are high priority.
func (s *Sim) priority(n *simNode, e *event) protocol.Priority {
	if s.prio == nil || e.kind != evDeliver {
		return protocol.PriorityHigh
	}
	return s.prio.Priority(e.body)
}

// cost is how long node n is busy with input e (see cost.go).
func (s *Sim) cost(n *simNode, e *event) time.Duration {
	var body proto.Message // nil: a timer
	if e.kind == evDeliver {
		body = e.body
	}
	return s.cfg.Cost.Cost(s.cfg.ServiceTime, n.service, body, e.size)
}

// sized is a message body and its encoded size. A Ready that sends one
// body to several nodes (a write replicated to every DC) has it sized
// once: nothing can change it while the Ready is applied.
type sized struct {
	body proto.Message
	size int
}

// countBytes counts a message handed to the network and returns its
// payload size, the size wan_bytes and Observer.MessageSent report: the
// protobuf encoding of body, without the wire codec's framing. A message
// over the wire's frame limit is a bug of its sender, as it would be live.
func (s *Sim) countBytes(from *simNode, body proto.Message, wan bool) int {
	if s.sized.body != body {
		n, ok := 0, false
		if s.sizer != nil {
			n, ok = s.sizer.BodySize(body)
		}
		if !ok {
			n = proto.Size(body)
		}
		s.sized = sized{body: body, size: n}
	}
	size := s.sized.size
	frame := size
	if wan || size > wire.MaxFrameBytes/2 {
		frame = wire.FrameSize(body, size)
		if frame > wire.MaxFrameBytes {
			panic(fmt.Sprintf("sim: node %s: %T is %d bytes framed, over the wire's %d-byte limit", from.id, body, frame, wire.MaxFrameBytes))
		}
	}
	if !wan {
		return size
	}
	s.stats.WANMessages++
	s.stats.WANBytes += int64(size)
	s.stats.WANFrameBytes += int64(frame)
	if s.carrier != nil {
		if v, ok := s.carrier.ReplicatedValue(body); ok {
			s.stats.ReplicatedWrites++
			s.stats.MetadataBytes += int64(size - len(v))
		}
	}
	return size
}

// checkShared, with Config.CheckShared, panics if body is shared and
// differs from its copy taken when it was first sent: when is "before" or
// "after" node n's Step.
func (s *Sim) checkShared(body proto.Message, n *simNode, when string) {
	if s.shared != nil { // small enough to inline: no call per delivery without the check
		s.compareShared(body, n, when)
	}
}

// compareShared is checkShared's comparison.
func (s *Sim) compareShared(body proto.Message, n *simNode, when string) {
	if c, ok := s.shared[body]; ok && !proto.Equal(body, c) {
		panic(fmt.Sprintf("sim: a shared %T changed %s node %s received it: %v, sent as %v (protocol.Sharer)", body, when, n.id, body, c))
	}
}

// SharedIntact reports, with Config.CheckShared, whether every body sent
// so far that receivers share (protocol.Sharer) is still as it was when
// first sent: a node that modifies one later than its Step is caught here.
func (s *Sim) SharedIntact() error {
	for b, c := range s.shared {
		if !proto.Equal(b, c) {
			return fmt.Errorf("sim: a shared %T changed after it was sent: %v, sent as %v (protocol.Sharer)", b, b, c)
		}
	}
	return nil
}
