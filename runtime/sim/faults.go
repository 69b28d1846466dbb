package sim

import (
	"fmt"
	"time"

	"github.com/causeway/causeway/faults"
)

func msDur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// expandDCs returns the DCs and zones ("DC/front") of a partition group,
// "*" standing for every DC.
func (s *Sim) expandDCs(group []string) []string {
	for _, g := range group {
		if g == "*" {
			return s.topo.DCNames()
		}
	}
	return group
}

func (s *Sim) matching(target string, sessions bool) []*simNode {
	tg, err := faults.ParseTarget(target)
	if err != nil {
		panic(fmt.Sprintf("sim: fault target: %v", err)) // validated by faults.Parse
	}
	var out []*simNode
	for _, n := range s.order {
		if n.session && !sessions {
			continue
		}
		if tg.Matches(n.dc, n.zone, n.id.Name()) {
			out = append(out, n)
		}
	}
	return out
}

func mustTarget(s string) faults.Target {
	tg, err := faults.ParseTarget(s)
	if err != nil {
		panic(fmt.Sprintf("sim: fault target: %v", err))
	}
	return tg
}

func (s *Sim) until(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return s.now + d
}

// doFault carries out one scheduled fault event.
func (s *Sim) doFault(f faults.Event) {
	s.FaultLog = append(s.FaultLog, fmt.Sprintf("%.3fs %s", s.now.Seconds(), f.String()))
	s.net.now = s.Now
	switch {
	case f.Partition != nil:
		for i, g := range f.Partition {
			for j, h := range f.Partition {
				if i == j {
					continue
				}
				for _, a := range s.expandDCs(g) {
					for _, b := range s.expandDCs(h) {
						if a != b {
							s.net.cuts[[2]string{a, b}] = true
						}
					}
				}
			}
		}
	case f.PartitionOneway != nil:
		for _, a := range s.expandDCs(f.PartitionOneway.From) {
			for _, b := range s.expandDCs(f.PartitionOneway.To) {
				if a != b {
					s.net.cuts[[2]string{a, b}] = true
				}
			}
		}
	case f.Heal != "":
		s.heal(f.Heal)
	case f.Crash != "":
		for _, n := range s.matching(f.Crash, false) {
			s.crash(n)
		}
	case f.Restart != "":
		for _, n := range s.matching(f.Restart, false) {
			if !n.up {
				s.startNode(n)
			}
		}
	case f.Delay != nil:
		s.net.delay = append(s.net.delay, timedFault{target: mustTarget(f.Delay.Target), until: s.until(f.Delay.For), add: msDur(f.Delay.AddMs)})
	case f.Loss != nil:
		s.net.loss = append(s.net.loss, timedFault{target: mustTarget(f.Loss.Target), until: s.until(f.Loss.For), prob: f.Loss.Probability})
	case f.Duplicate != nil:
		s.net.dup = append(s.net.dup, timedFault{target: mustTarget(f.Duplicate.Target), until: s.until(f.Duplicate.For), prob: f.Duplicate.Probability})
	case f.Reorder != nil:
		s.net.reorder = append(s.net.reorder, timedFault{target: mustTarget(f.Reorder.Target), until: s.until(f.Reorder.For), prob: f.Reorder.Probability, add: msDur(f.Reorder.MaxMs)})
	case f.ClockSkew != nil:
		for _, n := range s.matching(f.ClockSkew.Target, true) {
			n.skew = msDur(f.ClockSkew.Ms)
		}
	}
}

// heal removes partitions ("partitions"), or every network fault and
// crash ("all": crashed nodes restart).
func (s *Sim) heal(what string) {
	s.net.now = s.Now
	if what == "partitions" {
		s.net.healPartitions()
		return
	}
	s.net.healAll()
	for _, n := range s.order {
		if !n.session && !n.up {
			s.startNode(n)
		}
	}
}

// crash stops a server node: its memory, queued inputs, timers and
// unsynced storage writes are lost.
func (s *Sim) crash(n *simNode) {
	if !n.up {
		return
	}
	n.up = false
	n.inc++
	n.sm, n.recycler = nil, nil
	n.heard = nil // the restarted node's transport has no route back to any session
	n.queue.reset()
	n.engine.Crash(s.faultRg)
}
