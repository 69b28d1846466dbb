package fullrep

import (
	"fmt"
	"strings"

	"github.com/causeway/causeway/protocol"
)

// Invariants at quiescence (protocol.Quiescer): once every fault has
// healed and the network is quiet, every write has been replicated to and
// acknowledged by every other DC, and no replicated write or DepCheck
// waits for a dependency.

var (
	_ protocol.Quiescer = (*server)(nil)
	_ protocol.Quiescer = (*session)(nil)
)

// maxQuiescenceReports bounds the problems one node reports.
const maxQuiescenceReports = 5

// CheckQuiescent implements protocol.Quiescer for a server: nothing
// awaiting replication, no pending dependency wait, no DepCheck waiting
// here.
func (s *server) CheckQuiescent() error {
	var list []string
	more := 0
	addf := func(format string, args ...any) {
		if len(list) == maxQuiescenceReports {
			more++
			return
		}
		list = append(list, fmt.Sprintf(format, args...))
	}
	for _, k := range sortedVersions(s.out) {
		addf("write %s awaits replication to %v", k, s.out[k].unacked)
	}
	for _, k := range sortedVersions(s.in) {
		addf("replicated write %s waits for its dependencies", k)
	}
	if n := len(s.waitingOn); n > 0 {
		addf("%d dependency checks outstanding", n)
	}
	for _, dk := range sortedVersions(s.waiters) {
		var from []protocol.NodeID
		for _, q := range s.waiters[dk] {
			from = append(from, q.from)
		}
		addf("DepChecks of %v wait here for %s", from, dk)
	}
	if len(list) == 0 {
		return nil
	}
	msg := strings.Join(list, "; ")
	if more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	return fmt.Errorf("not quiescent: %s", msg)
}

// CheckQuiescent implements protocol.Quiescer for a session: no operation
// outstanding and no resumed session still waiting for its dependencies.
func (c *session) CheckQuiescent() error {
	switch {
	case c.resume != nil:
		return fmt.Errorf("not quiescent: resumed session waits for %d dependencies", c.resume.Len())
	case c.pending != nil:
		return fmt.Errorf("not quiescent: %v operation %d outstanding", c.pending.Op, c.reqID)
	}
	return nil
}
