package sim

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/wire"
)

// decode returns a delivered message's body, decoding its frame the first
// time it is needed (to queue it by priority, or to hand it to the node).
func (s *Sim) decode(n *simNode, e *event) proto.Message {
	if e.body == nil {
		body, err := wire.Decode(e.frame)
		if err != nil {
			panic(fmt.Sprintf("sim: node %s got an undecodable frame from %s: %v", n.id, e.from, err))
		}
		e.body = body
	}
	return e.body
}

// priority is the class an input waits in at a busy node: the protocol's
// Prioritizer decides for messages; timers are high priority.
func (s *Sim) priority(n *simNode, e *event) protocol.Priority {
	if s.prio == nil || e.kind != evDeliver {
		return protocol.PriorityHigh
	}
	return s.prio.Priority(s.decode(n, e))
}

// cost is how long node n is busy with input e (see cost.go).
func (s *Sim) cost(n *simNode, e *event) time.Duration {
	var body proto.Message // nil: a timer
	if e.kind == evDeliver {
		body = s.decode(n, e)
	}
	return s.cfg.Cost.Cost(s.cfg.ServiceTime, n.service, body, e.size)
}

// countBytes counts a message handed to the network and returns its
// payload size, the size wan_bytes and Observer.MessageSent report: the
// protobuf encoding of body, without the wire codec's framing.
func (s *Sim) countBytes(body proto.Message, frame []byte, wan bool) int {
	size := proto.Size(body)
	if !wan {
		return size
	}
	s.stats.WANMessages++
	s.stats.WANBytes += int64(size)
	s.stats.WANFrameBytes += int64(len(frame))
	if s.carrier != nil {
		if v, ok := s.carrier.ReplicatedValue(body); ok {
			s.stats.ReplicatedWrites++
			s.stats.MetadataBytes += int64(size - len(v))
		}
	}
	return size
}
