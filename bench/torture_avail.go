package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// Availability is torture's availability verdict on one run: of the
// operations whose client DC and key replicas were reachable (Eligible,
// defined in the package doc, "Torture"), how many failed.
type Availability struct {
	// Eligible counts the operations the schedule left reachable.
	Eligible int `json:"eligible"`
	// Failed counts the eligible operations that failed (timeout or
	// unavailable; unsupported operations are not failures).
	Failed int `json:"failed"`
	// Examples describes the first few failed eligible operations.
	Examples []string `json:"examples,omitempty"`
}

// OK reports whether no eligible operation failed.
func (a Availability) OK() bool { return a.Failed == 0 }

// maxAvailabilityExamples bounds Availability.Examples.
const maxAvailabilityExamples = 3

// DoneOp is one completed operation as the availability verdict sees it.
type DoneOp struct {
	DC         string
	Op         protocol.Op
	Keys       []string
	Err        protocol.ErrCode
	Start, End time.Duration
}

// doneOp turns a completed request into a DoneOp.
func doneOp(dc string, req protocol.Request, rep protocol.Reply, start, end time.Duration) DoneOp {
	op := DoneOp{DC: dc, Op: req.Op, Err: rep.Err, Start: start, End: end}
	switch {
	case req.Key != "":
		op.Keys = []string{req.Key}
	case len(req.Keys) > 0:
		op.Keys = slices.Clone(req.Keys)
	default:
		for _, kv := range req.Writes {
			op.Keys = append(op.Keys, kv.Key)
		}
	}
	return op
}

// span is a half-open interval of virtual time [from, to).
type span struct{ from, to time.Duration }

func (s span) overlaps(from, to time.Duration) bool { return s.from <= to && from < s.to }

const forever = time.Duration(math.MaxInt64)

// disturbances is what a schedule did, as intervals: when each node was
// down, when each directed link (between DCs or zones) was cut, and when
// loss or congestion touched each node. Every interval is stretched by a
// grace period after it ends, for the protocol to notice and recover.
type disturbances struct {
	down  map[protocol.NodeID][]span
	cut   map[[2]string][]span
	noisy map[protocol.NodeID][]span // loss or added delay on its messages
}

// disturbancesOf replays schedule s over nodes (on t) and returns its
// intervals, each stretched by grace after it ends.
func disturbancesOf(s faults.Schedule, t *topology.Topology, nodes []protocol.NodeSpec, grace time.Duration) disturbances {
	d := disturbances{down: map[protocol.NodeID][]span{}, cut: map[[2]string][]span{}, noisy: map[protocol.NodeID][]span{}}
	downSince := map[protocol.NodeID]time.Duration{}
	cutSince := map[[2]string]time.Duration{}
	type timed struct {
		target faults.Target
		from   time.Duration
		to     time.Duration
	}
	var noisy []timed
	end := func(at time.Duration) time.Duration {
		if at == forever {
			return forever
		}
		return at + grace
	}
	matching := func(target string) []protocol.NodeSpec {
		tg, err := faults.ParseTarget(target)
		if err != nil {
			return nil
		}
		var out []protocol.NodeSpec
		for _, n := range nodes {
			if tg.Matches(n.ID.DC(), n.Zone, n.ID.Name()) {
				out = append(out, n)
			}
		}
		return out
	}
	expand := func(group []string) []string {
		if slices.Contains(group, "*") {
			return t.DCNames()
		}
		return group
	}
	cutLink := func(at time.Duration, from, to []string) {
		for _, a := range expand(from) {
			for _, b := range expand(to) {
				if l := [2]string{a, b}; a != b {
					if _, ok := cutSince[l]; !ok {
						cutSince[l] = at
					}
				}
			}
		}
	}
	healCuts := func(at time.Duration) {
		for l, since := range cutSince {
			d.cut[l] = append(d.cut[l], span{since, end(at)})
		}
		clear(cutSince)
	}
	restart := func(at time.Duration, n protocol.NodeID) {
		if since, ok := downSince[n]; ok {
			d.down[n] = append(d.down[n], span{since, end(at)})
			delete(downSince, n)
		}
	}
	for _, e := range s {
		switch {
		case e.Partition != nil:
			for i, g := range e.Partition {
				for j, h := range e.Partition {
					if i != j {
						cutLink(e.At, g, h)
					}
				}
			}
		case e.PartitionOneway != nil:
			cutLink(e.At, e.PartitionOneway.From, e.PartitionOneway.To)
		case e.Crash != "":
			for _, n := range matching(e.Crash) {
				if _, ok := downSince[n.ID]; !ok {
					downSince[n.ID] = e.At
				}
			}
		case e.Restart != "":
			for _, n := range matching(e.Restart) {
				restart(e.At, n.ID)
			}
		case e.Heal != "":
			healCuts(e.At)
			if e.Heal == "all" {
				for n := range downSince {
					restart(e.At, n)
				}
				for i := range noisy {
					noisy[i].to = min(noisy[i].to, e.At)
				}
			}
		case e.Loss != nil || e.Delay != nil:
			target, dur := "", time.Duration(0)
			if e.Loss != nil {
				target, dur = e.Loss.Target, e.Loss.For
			} else {
				target, dur = e.Delay.Target, e.Delay.For
			}
			tg, err := faults.ParseTarget(target)
			if err != nil {
				continue
			}
			to := forever
			if dur > 0 {
				to = e.At + dur
			}
			noisy = append(noisy, timed{tg, e.At, to})
		}
	}
	healCuts(forever)
	for n, since := range downSince {
		d.down[n] = append(d.down[n], span{since, forever})
	}
	for _, f := range noisy {
		for _, n := range nodes {
			if f.target.Matches(n.ID.DC(), n.Zone, n.ID.Name()) {
				d.noisy[n.ID] = append(d.noisy[n.ID], span{f.from, end(f.to)})
			}
		}
	}
	return d
}

func anyOverlap(spans []span, from, to time.Duration) bool {
	for _, s := range spans {
		if s.overlaps(from, to) {
			return true
		}
	}
	return false
}

// JudgeAvailability gives the availability verdict on a run of protocol p
// on t under schedule s: the operations of ops that were eligible (see the
// package doc, "Torture") and which of them failed. grace is how long
// after a fault ends it still excuses a failure.
func JudgeAvailability(p protocol.Protocol, t *topology.Topology, s faults.Schedule, ops []DoneOp, grace time.Duration) Availability {
	nodes := p.Nodes(t)
	spec := map[protocol.NodeID]protocol.NodeSpec{}
	byDC := map[string][]protocol.NodeSpec{}
	for _, n := range nodes {
		spec[n.ID] = n
		byDC[n.ID.DC()] = append(byDC[n.ID.DC()], n)
	}
	d := disturbancesOf(s, t, nodes, grace)
	// The names a cut may use for a node's side of a link: its DC and,
	// when it has one, its zone.
	sides := func(n protocol.NodeSpec) []string {
		if n.Zone == "" {
			return []string{n.ID.DC()}
		}
		return []string{n.ID.DC(), n.ID.DC() + "/" + n.Zone}
	}
	dcSides := map[string][]string{}
	for dc, ns := range byDC {
		dcSides[dc] = []string{dc}
		for _, n := range ns {
			if n.Zone != "" && !slices.Contains(dcSides[dc], dc+"/"+n.Zone) {
				dcSides[dc] = append(dcSides[dc], dc+"/"+n.Zone)
			}
		}
	}
	cutBetween := func(a, b []string, from, to time.Duration) bool {
		for _, x := range a {
			for _, y := range b {
				if anyOverlap(d.cut[[2]string{x, y}], from, to) || anyOverlap(d.cut[[2]string{y, x}], from, to) {
					return true
				}
			}
		}
		return false
	}
	var a Availability
	for _, op := range ops {
		if !eligible(op, p, t, byDC, spec, d, dcSides, sides, cutBetween) {
			continue
		}
		a.Eligible++
		if op.Err == protocol.OK || op.Err == protocol.ErrUnsupported {
			continue
		}
		a.Failed++
		if len(a.Examples) < maxAvailabilityExamples {
			a.Examples = append(a.Examples, fmt.Sprintf("%s of %s by a client in %s at %.3fs: %s after %.0fms",
				op.Op, strings.Join(op.Keys, ","), op.DC, op.Start.Seconds(), op.Err, float64(op.End-op.Start)/float64(time.Millisecond)))
		}
	}
	return a
}

// eligible says whether op's client DC and, for each of its keys, at
// least one replica were reachable for its whole life.
func eligible(op DoneOp, p protocol.Protocol, t *topology.Topology, byDC map[string][]protocol.NodeSpec,
	spec map[protocol.NodeID]protocol.NodeSpec, d disturbances, dcSides map[string][]string,
	sides func(protocol.NodeSpec) []string, cutBetween func(a, b []string, from, to time.Duration) bool) bool {
	for _, n := range byDC[op.DC] {
		if anyOverlap(d.down[n.ID], op.Start, op.End) || anyOverlap(d.noisy[n.ID], op.Start, op.End) {
			return false
		}
	}
	for _, k := range op.Keys {
		reachable := false
		for _, r := range p.Replicas(t, k) {
			n, ok := spec[r]
			if !ok {
				n = protocol.NodeSpec{ID: r}
			}
			if anyOverlap(d.down[r], op.Start, op.End) || anyOverlap(d.noisy[r], op.Start, op.End) ||
				cutBetween(dcSides[op.DC], sides(n), op.Start, op.End) {
				continue
			}
			reachable = true
			break
		}
		if !reachable {
			return false
		}
	}
	return true
}
