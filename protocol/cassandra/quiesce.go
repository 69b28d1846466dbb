package cassandra

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CheckQuiescent implements protocol.Quiescer: once faults heal and the
// network is quiet, every hint has been acknowledged by every replica, no
// client operation is in progress and no gated write waits for its data
// or its ExecuteWrite.
func (s *Server) CheckQuiescent() error {
	var list []string
	for _, id := range slices.Sorted(maps.Keys(s.hints)) {
		h := s.hints[id]
		list = append(list, fmt.Sprintf("write %s@%d awaits %v", h.mut.Key, h.mut.Version, slices.Sorted(maps.Keys(h.unacked))))
	}
	for _, id := range slices.Sorted(maps.Keys(s.ops)) {
		if o := s.ops[id]; !o.done {
			list = append(list, fmt.Sprintf("operation %d on %s in progress", id, o.key))
		}
	}
	if s.gated != nil {
		for _, k := range slices.Sorted(maps.Keys(s.gated.data)) {
			list = append(list, "gated write "+k+" waits for its ExecuteWrite")
		}
		for _, k := range slices.Sorted(maps.Keys(s.gated.order)) {
			list = append(list, "ExecuteWrite "+k+" waits for its data")
		}
	}
	if len(list) == 0 {
		return nil
	}
	if len(list) > 5 {
		list = append(list[:5], fmt.Sprintf("and %d more", len(list)-5))
	}
	return fmt.Errorf("not quiescent: %s", strings.Join(list, "; "))
}
