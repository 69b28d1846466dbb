package sim

import (
	"fmt"
	"time"

	"github.com/causeway/causeway/protocol"
)

// Quiescent asks every live node and session that implements
// protocol.Quiescer to check its invariants at quiescence, in creation
// order, and returns what failed, each error prefixed with the node's ID.
// Call it after Quiesce reported a quiet network: while messages or timers
// are pending, nodes are legitimately busy.
func (s *Sim) Quiescent() []error {
	var out []error
	for _, n := range s.order {
		if !n.up || n.sm == nil {
			continue
		}
		q, ok := n.sm.(protocol.Quiescer)
		if !ok {
			continue
		}
		if err := q.CheckQuiescent(); err != nil {
			out = append(out, fmt.Errorf("%s: %w", n.id, err))
		}
	}
	return out
}

// QuiesceChecked is Quiesce followed by the invariants at quiescence: it
// heals every fault, restarts crashed nodes and runs until a whole step
// passes with no message sent and every protocol.Quiescer is satisfied, or
// until limit more virtual time has passed. A quiet step is not enough
// alone: a node may still hold a timer that will retransmit (a write
// waiting out its backoff), so the invariants are given until limit to
// hold. It reports whether the network went quiet and what Quiescent
// found at the end (nil when everything holds).
func (s *Sim) QuiesceChecked(step, limit time.Duration) (quiet bool, violations []error) {
	s.heal("all")
	deadline := s.now + limit
	for s.now < deadline {
		before := s.stats.Messages
		s.RunUntil(s.now + step)
		quiet = s.stats.Messages == before
		if quiet {
			if violations = s.Quiescent(); len(violations) == 0 {
				return true, nil
			}
		}
	}
	if !quiet {
		return false, s.Quiescent()
	}
	return quiet, violations
}
