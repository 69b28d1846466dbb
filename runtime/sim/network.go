package sim

import (
	"math/rand/v2"
	"time"

	"github.com/causeway/causeway/faults"
)

// timedFault is a network fault active until `until` (0: until healed).
type timedFault struct {
	target faults.Target
	until  time.Duration
	prob   float64
	add    time.Duration // delay, or the reorder bound
}

// netState is the network's current fault state.
type netState struct {
	cuts    map[[2]string]bool // directed links that are cut, between DCs or zones ("DC/front")
	loss    []timedFault
	dup     []timedFault
	delay   []timedFault
	reorder []timedFault
	now     func() time.Duration
}

func newNetState() netState {
	return netState{cuts: map[[2]string]bool{}}
}

// cut reports whether the link from a to b is cut, between their DCs or
// their zones. Sessions belong to no zone: only DC cuts stop them.
func (ns *netState) cut(a, b *simNode) bool {
	if len(ns.cuts) == 0 {
		return false
	}
	from, to := []string{a.dc}, []string{b.dc}
	if a.zone != "" {
		from = append(from, a.dc+"/"+a.zone)
	}
	if b.zone != "" {
		to = append(to, b.dc+"/"+b.zone)
	}
	for _, f := range from {
		for _, t := range to {
			if ns.cuts[[2]string{f, t}] {
				return true
			}
		}
	}
	return false
}

// active filters out expired faults and returns those touching the link.
func (ns *netState) touching(list *[]timedFault, from, to *simNode) []timedFault {
	if len(*list) == 0 {
		return nil // no such fault: the common case, four times per WAN message
	}
	now := ns.now()
	kept := (*list)[:0]
	var hit []timedFault
	for _, f := range *list {
		if f.until != 0 && now >= f.until {
			continue
		}
		kept = append(kept, f)
		if f.target.Matches(from.dc, from.zone, from.id.Name()) || f.target.Matches(to.dc, to.zone, to.id.Name()) {
			hit = append(hit, f)
		}
	}
	*list = kept
	return hit
}

func (ns *netState) lost(rng *rand.Rand, from, to *simNode) bool {
	for _, f := range ns.touching(&ns.loss, from, to) {
		if rng.Float64() < f.prob {
			return true
		}
	}
	return false
}

func (ns *netState) duplicated(rng *rand.Rand, from, to *simNode) bool {
	for _, f := range ns.touching(&ns.dup, from, to) {
		if rng.Float64() < f.prob {
			return true
		}
	}
	return false
}

func (ns *netState) extraDelay(rng *rand.Rand, from, to *simNode) time.Duration {
	var d time.Duration
	for _, f := range ns.touching(&ns.delay, from, to) {
		d += f.add
	}
	for _, f := range ns.touching(&ns.reorder, from, to) {
		if rng.Float64() < f.prob {
			d += time.Duration(rng.Int64N(int64(f.add) + 1))
		}
	}
	return d
}

func (ns *netState) healPartitions() { ns.cuts = map[[2]string]bool{} }

func (ns *netState) healAll() {
	ns.healPartitions()
	ns.loss, ns.dup, ns.delay, ns.reorder = nil, nil, nil, nil
}
