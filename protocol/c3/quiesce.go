package c3

import (
	"fmt"
	"strings"

	"github.com/causeway/causeway/protocol"
)

var (
	_ protocol.Quiescer = (*layer)(nil)
	_ protocol.Quiescer = (*session)(nil)
)

// CheckQuiescent implements protocol.Quiescer for a layer: once faults
// heal and the network is quiet, every label has been acknowledged and
// executed, no write is executing or finished out of order, and every
// local write's coordinator has been told.
func (y *layer) CheckQuiescent() error {
	var list []string
	for dest := range y.dcs {
		if n := y.ch.Unacked(dest); n > 0 {
			list = append(list, fmt.Sprintf("%d labels unacknowledged by %s", n, y.dcs[dest]))
		}
	}
	for src, q := range y.waitingOps {
		if len(q) > 0 {
			list = append(list, fmt.Sprintf("%d labels from %s waiting (head deps %v, ExecutedClock %v)", len(q), y.dcs[src], q[0].Deps, y.executedClock))
		}
		if len(y.aheadExecuted[src]) > 0 || y.ch.Buffered(src) > 0 {
			list = append(list, fmt.Sprintf("labels from %s finished ahead or received out of order", y.dcs[src]))
		}
	}
	if len(y.currentWrites) > 0 {
		list = append(list, fmt.Sprintf("%d writes executing", len(y.currentWrites)))
	}
	if len(y.local) > 0 {
		list = append(list, fmt.Sprintf("%d local writes unanswered", len(y.local)))
	}
	if len(list) == 0 {
		return nil
	}
	return fmt.Errorf("not quiescent: %s", strings.Join(list, "; "))
}

// CheckQuiescent implements protocol.Quiescer for a session.
func (c *session) CheckQuiescent() error {
	if c.pending != nil {
		return fmt.Errorf("not quiescent: %v operation %d outstanding", c.pending.Op, c.reqID)
	}
	return nil
}
