package rad

import (
	"slices"
	"time"
)

// gcAfter is how long a superseded version is kept for second-round
// reads (Eiger keeps old versions for the transaction timeout, 5 s; we
// keep twice that).
const gcAfter = 10 * time.Second

// version is one committed version of a key at a server.
type version struct {
	version uint64
	evt     uint64
	value   []byte
	at      time.Duration // when it was committed here (physical, for GC)
}

// chain is a key's multiversion history at a server (Eiger §4.2): every
// committed version with its EVT. The visible version at time t is the
// highest version committed with EVT <= t (last writer wins); floor is
// the earliest time the chain still answers for (versions before it were
// collected or lost in a crash).
type chain struct {
	versions []version // by EVT
	floor    uint64
}

// add inserts a committed version; it reports whether it is now the
// newest visible version (the highest version).
func (c *chain) add(v version, now time.Duration) bool {
	newest := true
	for _, o := range c.versions {
		if o.version >= v.version {
			newest = false
		}
	}
	i, _ := slices.BinarySearchFunc(c.versions, v.evt, func(o version, evt uint64) int {
		switch {
		case o.evt < evt:
			return -1
		case o.evt > evt:
			return 1
		}
		return 0
	})
	c.versions = slices.Insert(c.versions, i, v)
	c.gc(now)
	return newest
}

// at returns the version visible at t, ok false when t is below the floor.
// A zero version is the key's initial state.
func (c *chain) at(t uint64) (version, bool) {
	if t < c.floor {
		return version{}, false
	}
	var best version
	for _, o := range c.versions {
		if o.evt > t {
			break
		}
		if o.version > best.version {
			best = o
		}
	}
	return best, true
}

// newest returns the highest version (zero: none).
func (c *chain) newest() version {
	var best version
	for _, o := range c.versions {
		if o.version > best.version {
			best = o
		}
	}
	return best
}

// gc drops the versions committed more than gcAfter ago except the
// highest of them, which stays visible from the new floor on.
func (c *chain) gc(now time.Duration) {
	n := 0
	for n < len(c.versions) && c.versions[n].at <= now-gcAfter {
		n++
	}
	if n < 2 {
		return
	}
	old := c.versions[:n]
	keep := old[0]
	for _, o := range old {
		if o.version > keep.version {
			keep = o
		}
	}
	c.floor = max(c.floor, old[n-1].evt)
	keep.evt = min(keep.evt, c.floor)
	c.versions = append([]version{keep}, c.versions[n:]...)
}
