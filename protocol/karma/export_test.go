package karma

import "github.com/causeway/causeway/protocol"

// WatchNodes returns a copy of p that tells fn of every node it makes.
func WatchNodes(p *Protocol, fn func(protocol.Node)) *Protocol {
	q := *p
	q.created = fn
	return &q
}

// MMEntries reports, for a middle man (nil for any other node), how many
// entries each of its maps keyed by version holds (mapEntries).
func MMEntries(n protocol.Node) map[string]int {
	if c, ok := n.(*checkedMiddleMan); ok {
		n = c.Node
	}
	m, ok := n.(*middleMan)
	if !ok {
		return nil
	}
	return m.mapEntries()
}

// mapEntries counts the entries of the middle man's per-version state
// (and, for comparison, of its per-key state).
func (m *middleMan) mapEntries() map[string]int {
	old, tracked := 0, 0
	for _, h := range m.prune.tracked {
		tracked += h.Len()
	}
	for _, vs := range m.old {
		old += len(vs)
	}
	return map[string]int{
		"committed": len(m.committed), "readyAt": len(m.readyAt), "knownReady": len(m.knownReady),
		"knownWritten": len(m.knownWritten), "knownInstalled": len(m.knownInstalled), "installed": len(m.installed),
		"selfWritten": len(m.selfWritten), "knownSelfWritten": len(m.knownSelfWritten), "keyOf": len(m.keyOf),
		"early": len(m.early), "old": old, "stab": len(m.stab.probes), "cachedAtKnown": len(m.cachedAtKnown),
		"tracked": tracked, "aging": len(m.aging),
		"waiters": len(m.waiters) + len(m.readyWaiters) + len(m.installedWaiters) + len(m.selfWaiters),
	}
}
