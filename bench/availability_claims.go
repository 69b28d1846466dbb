package bench

import (
	"slices"
	"strings"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/topology"
)

// AvailabilityClaim is what a paper claims about a protocol's
// availability under a class of faults, as a check on torture's runs:
// the runs it covers (Covers, from each run's schedule and nemesis) must
// classify, summed, as one of Allows.
type AvailabilityClaim struct {
	// Protocols the claim is about.
	Protocols []string
	// Fault names the class of faults, Source where the paper says it.
	Fault  string
	Source string
	// Allows are the classes that agree with the claim.
	Allows []AvailabilityClass
	// Covers says whether a run's faults fall in the claim's class (t is
	// the campaign's topology).
	Covers func(r TortureRun, t *topology.Topology) bool
}

// AvailabilityClaims are the papers' availability claims Causeway checks:
//
//   - Full replication (cops, and eventual): every DC holds every key, so
//     a client whose DC is up is answered whatever else fails (COPS's
//     ALPS availability; the "Full Replication" column of karma.txt
//     Table 1). Every run.
//   - Karma Claim 1 (karma.txt §4.4): available under the failure of any
//     number of AZs of one type (front or back) in one ring. Runs whose
//     only faults are such zone crashes.
//   - Karma Claim 2 (1) and (2): available under a partition within one
//     ring, or between one pair of rings. Runs whose only faults are such
//     partitions (of DCs or zones).
//   - COPS-PR's static binding (karma.txt §4.4, Table 1: Karma "better"
//     than COPS-PR under a single AZ failure and partitions): a client
//     bound to its DC's ring cannot read a key whose replica in that ring
//     is down or cut off, though another ring's is reachable. Runs of the
//     DC and node crash and DC partition nemeses must fail some reachable
//     operations.
//
// Karma under a node crash (Table 1: chain replication within a DC, not
// built), a whole DC's crash or an AZ-F cut-off (Table 1: not available)
// is not claimed.
func AvailabilityClaims() []AvailabilityClaim {
	up := []AvailabilityClass{ClassAvailable}
	karma := []string{"karma", "karma-nc"}
	return []AvailabilityClaim{
		{Protocols: []string{"cops", "eventual"}, Fault: "any fault that leaves the client's DC up",
			Source: "full replication: COPS §2 (ALPS availability); karma.txt Table 1", Allows: up,
			Covers: func(TortureRun, *topology.Topology) bool { return true }},
		{Protocols: karma, Fault: "failure of AZs of one type (all front or all back) in one ring",
			Source: "karma.txt §4.4 Claim 1; Table 1 Single AZ", Allows: up, Covers: zoneCrashesOneTypeOneRing},
		{Protocols: karma, Fault: "partition within one ring",
			Source: "karma.txt §4.4 Claim 2 (1); Table 1 Partition", Allows: up, Covers: intraRingPartition},
		{Protocols: karma, Fault: "partition between one pair of rings",
			Source: "karma.txt §4.4 Claim 2 (2); Table 1 Partition", Allows: up, Covers: interRingPartition},
		{Protocols: []string{"cops-pr"}, Fault: "a DC or node crashed, or DCs partitioned (static ring binding)",
			Source: "karma.txt §4.4 and Table 1 (Karma better than COPS-PR)",
			Allows: []AvailabilityClass{ClassDegraded, ClassUnavailable},
			Covers: func(r TortureRun, _ *topology.Topology) bool {
				return slices.Contains([]string{"isolate-dc", "majority", "ring-split", "crash-node", "crash-dc"}, r.Nemesis)
			}},
	}
}

// ClaimCheck is one claim judged on one protocol's runs.
type ClaimCheck struct {
	Claim    AvailabilityClaim
	Protocol string
	// Runs it covered and their failed and eligible operations.
	Runs, FailedOps, EligibleOps int
	Class                        AvailabilityClass
	// Holds: the class is one the claim allows, or no run was covered.
	Holds bool
}

// CheckAvailabilityClaims judges every claim of claims on rep's runs (of
// a campaign on t), for each protocol of rep a claim is about.
func CheckAvailabilityClaims(rep *TortureReport, t *topology.Topology, claims []AvailabilityClaim) []ClaimCheck {
	var out []ClaimCheck
	for _, c := range claims {
		for _, s := range rep.Summary {
			if !slices.Contains(c.Protocols, s.Protocol) {
				continue
			}
			cc := ClaimCheck{Claim: c, Protocol: s.Protocol}
			for _, r := range rep.Runs {
				if r.Protocol != s.Protocol || r.Err != "" || !c.Covers(r, t) {
					continue
				}
				cc.Runs++
				cc.FailedOps += r.Availability.Failed
				cc.EligibleOps += r.Availability.Eligible
			}
			cc.Class = ClassifyAvailability(cc.FailedOps, cc.EligibleOps)
			cc.Holds = cc.Class == ClassNoData || slices.Contains(c.Allows, cc.Class)
			out = append(out, cc)
		}
	}
	return out
}

// faultEvents are the events of s that fault something: heals and the
// clock resets that end a nemesis schedule are left out.
func faultEvents(s faults.Schedule) []faults.Event {
	var out []faults.Event
	for _, e := range s {
		if faults.KindOf(e) == faults.KindHeal || (e.ClockSkew != nil && e.ClockSkew.Ms == 0) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// zoneCrashesOneTypeOneRing: the run's faults are crashes and restarts of
// zones, all front or all back, all in DCs of one ring (Claim 1).
func zoneCrashesOneTypeOneRing(r TortureRun, t *topology.Topology) bool {
	es := faultEvents(r.Faults)
	ring, zone := -1, ""
	for _, e := range es {
		target := e.Crash + e.Restart
		tg, err := faults.ParseTarget(target)
		if err != nil || tg.Kind != "zone" || tg.Name == "*" || tg.DC == "*" {
			return false
		}
		rg := t.RingOf(tg.DC)
		if (ring >= 0 && rg != ring) || (zone != "" && tg.Name != zone) {
			return false
		}
		ring, zone = rg, tg.Name
	}
	return len(es) > 0
}

// partitionRings returns, for a run whose every fault is a two-sided
// partition (of DCs or zones), the rings of each event's two sides; ok
// is false for any other run, or a side spanning rings.
func partitionRings(r TortureRun, t *topology.Topology) (sides [][2]int, ok bool) {
	es := faultEvents(r.Faults)
	for _, e := range es {
		if e.Partition == nil || len(e.Partition) != 2 {
			return nil, false
		}
		var side [2]int
		for i, g := range e.Partition {
			side[i] = -1
			for _, name := range g {
				dc, _, _ := strings.Cut(name, "/")
				rg := t.RingOf(dc)
				if rg < 0 || (side[i] >= 0 && rg != side[i]) {
					return nil, false
				}
				side[i] = rg
			}
		}
		sides = append(sides, side)
	}
	return sides, len(sides) > 0
}

// intraRingPartition: every partition of the run is inside one and the
// same ring (Claim 2 (1)).
func intraRingPartition(r TortureRun, t *topology.Topology) bool {
	sides, ok := partitionRings(r, t)
	if !ok {
		return false
	}
	for _, s := range sides {
		if s[0] != s[1] || s[0] != sides[0][0] {
			return false
		}
	}
	return true
}

// interRingPartition: every partition of the run is between the same two
// rings (Claim 2 (2)).
func interRingPartition(r TortureRun, t *topology.Topology) bool {
	sides, ok := partitionRings(r, t)
	if !ok {
		return false
	}
	pair := func(s [2]int) [2]int { return [2]int{min(s[0], s[1]), max(s[0], s[1])} }
	for _, s := range sides {
		if s[0] == s[1] || pair(s) != pair(sides[0]) {
			return false
		}
	}
	return true
}
