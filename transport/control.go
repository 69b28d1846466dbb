package transport

import "slices"

// Cut cuts the links from this transport to addrs, one way: until they are
// healed, frames sent to those addresses are dropped (see the package
// documentation, Partitions). Cutting a link that is already cut, or one
// that does not exist yet, is fine: the cut applies to the address.
func (t *Transport) Cut(addrs ...string) {
	t.ctlMu.Lock()
	defer t.ctlMu.Unlock()
	for _, a := range addrs {
		t.cuts[a] = true
	}
}

// Heal heals the links to addrs: frames sent to them from now on go
// through again. Healing a link that is not cut does nothing.
func (t *Transport) Heal(addrs ...string) {
	t.ctlMu.Lock()
	defer t.ctlMu.Unlock()
	for _, a := range addrs {
		delete(t.cuts, a)
	}
}

// HealAll heals every cut link.
func (t *Transport) HealAll() {
	t.ctlMu.Lock()
	defer t.ctlMu.Unlock()
	clear(t.cuts)
}

// IsCut reports whether the link to addr is cut.
func (t *Transport) IsCut(addr string) bool {
	t.ctlMu.RLock()
	defer t.ctlMu.RUnlock()
	return t.cuts[addr]
}

// CutAddrs returns the addresses whose links are cut, sorted.
func (t *Transport) CutAddrs() []string {
	t.ctlMu.RLock()
	out := make([]string, 0, len(t.cuts))
	for a := range t.cuts {
		out = append(out, a)
	}
	t.ctlMu.RUnlock()
	slices.Sort(out)
	return out
}
