package k2

import (
	"fmt"
	"strings"

	"github.com/causeway/causeway/protocol"
)

var (
	_ protocol.Quiescer  = (*server)(nil)
	_ protocol.Quiescer  = (*session)(nil)
	_ protocol.Inspector = (*server)(nil)
)

// CheckQuiescent implements protocol.Quiescer for a server: no local
// transaction undecided or unacknowledged, no pending sub-request, no
// replication or remote commit under way, no dependency check or second
// round waiting, no fetch in flight.
func (s *server) CheckQuiescent() error {
	var list []string
	add := func(format string, args ...any) {
		if len(list) < 5 {
			list = append(list, fmt.Sprintf(format, args...))
		}
	}
	for _, id := range sortedKeys(s.coord) {
		add("local transaction %s awaits votes", id)
	}
	for _, id := range sortedKeys(s.decided) {
		add("local transaction %s awaits cohort acks", id)
	}
	for _, id := range sortedKeys(s.cohortPending) {
		add("sub-request %s pending", id)
	}
	for _, v := range sortedKeys(s.out) {
		add("transaction %x awaits replication", v)
	}
	for _, v := range sortedKeys(s.rcoord) {
		t := s.rcoord[v]
		add("replicated transaction %x not committed here (deps %v, %d/%d votes, evt %x)", v, sortedKeys(t.deps), len(t.votes), len(t.parts), t.evt)
	}
	for _, v := range sortedKeys(s.rprepared) {
		add("replicated transaction %x prepared, not committed", v)
	}
	for _, v := range sortedKeys(s.rwait) {
		add("replicated transaction %x waits for phase-1 data", v)
	}
	for _, dk := range sortedKeys(s.depWaiters) {
		add("dependency check of %s waits", dk)
	}
	for _, id := range sortedKeys(s.fetches) {
		add("fetch %d of %s in flight", id, s.fetches[id].key)
	}
	for _, key := range sortedKeys(s.keys) {
		if k := s.keys[key]; len(k.waiting) > 0 || len(k.pending) > 0 {
			add("key %s: %d pending, %d second rounds waiting", key, len(k.pending), len(k.waiting))
		}
	}
	if len(list) == 0 {
		return nil
	}
	return fmt.Errorf("not quiescent: %s", strings.Join(list, "; "))
}

// CheckQuiescent implements protocol.Quiescer for a session.
func (c *session) CheckQuiescent() error {
	if c.op != nil {
		return fmt.Errorf("not quiescent: %v operation %d outstanding", c.op.req.Op, c.op.reqID)
	}
	return nil
}
