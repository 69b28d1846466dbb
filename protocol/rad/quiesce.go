package rad

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/causeway/causeway/protocol"
)

var (
	_ protocol.Quiescer  = (*server)(nil)
	_ protocol.Quiescer  = (*session)(nil)
	_ protocol.Inspector = (*server)(nil)
)

// CheckQuiescent implements protocol.Quiescer for a server: no
// transaction pending or being coordinated, no replication unacknowledged,
// no dependency check outstanding or waiting here, no parked read, no
// held write.
func (s *server) CheckQuiescent() error {
	var list []string
	for _, id := range slices.Sorted(maps.Keys(s.parts)) {
		p := s.parts[id]
		what := fmt.Sprintf("transaction %s pending (prepared %v, complete %v", id, p.prepared, p.complete)
		if c := s.coords[id]; c != nil {
			what += fmt.Sprintf("; coordinator: %d deps, all committed %v, notified by %v, votes of %v",
				len(p.deps), c.depsOK, slices.Sorted(maps.Keys(c.notify)), slices.Sorted(maps.Keys(c.votes)))
		}
		list = append(list, what+")")
	}
	for _, id := range slices.Sorted(maps.Keys(s.coords)) {
		list = append(list, fmt.Sprintf("coordinating %s", id))
	}
	for _, v := range slices.Sorted(maps.Keys(s.out)) {
		list = append(list, fmt.Sprintf("replication of %x awaits %v", v, slices.Sorted(maps.Keys(s.out[v].msgs))))
	}
	if n := s.deps.Len(); n > 0 {
		list = append(list, fmt.Sprintf("%d dependency checks outstanding", n))
	}
	for _, dn := range slices.Sorted(maps.Keys(s.waiters)) {
		list = append(list, fmt.Sprintf("DepChecks wait here for %s", dn))
	}
	if len(s.held) > 0 {
		list = append(list, fmt.Sprintf("%d client writes held by backpressure", len(s.held)))
	}
	if len(s.parked) > 0 {
		list = append(list, fmt.Sprintf("%d reads parked", len(s.parked)))
	}
	if len(list) == 0 {
		return nil
	}
	if len(list) > 5 {
		list = append(list[:5], fmt.Sprintf("and %d more", len(list)-5))
	}
	return fmt.Errorf("not quiescent: %s", strings.Join(list, "; "))
}

// CheckQuiescent implements protocol.Quiescer for a session: no operation
// outstanding.
func (c *session) CheckQuiescent() error {
	if c.resume != nil {
		return fmt.Errorf("not quiescent: resumed session waits for %d dependencies", c.resume.Len())
	}
	if c.op != nil {
		return fmt.Errorf("not quiescent: %v operation %d outstanding", c.op.req.Op, c.op.reqID)
	}
	return nil
}
