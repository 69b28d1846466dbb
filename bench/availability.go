package bench

import (
	"slices"
)

// AvailabilityClass is how available a protocol was under one fault, in
// the style of Karma's Table 1 (karma.txt §4.4): available, degraded or
// unavailable, from torture's failed-operation counts.
type AvailabilityClass string

// The availability classes.
const (
	// ClassAvailable: no operation whose client DC and a replica of each
	// key were reachable failed.
	ClassAvailable AvailabilityClass = "available"
	// ClassDegraded: some such operations failed, at most
	// DegradedFraction of them.
	ClassDegraded AvailabilityClass = "degraded"
	// ClassUnavailable: more than DegradedFraction of them failed.
	ClassUnavailable AvailabilityClass = "unavailable"
	// ClassNoData: no run had an eligible operation.
	ClassNoData AvailabilityClass = "no data"
)

// DegradedFraction is the largest share of reachable operations that may
// fail for a protocol to be degraded rather than unavailable under a
// fault: a few operations caught by a fault's edge, not a client cut off
// from data it could reach.
const DegradedFraction = 0.01

// ClassifyAvailability classifies failed of eligible reachable
// operations (summed over a fault's runs).
func ClassifyAvailability(failed, eligible int) AvailabilityClass {
	switch {
	case eligible == 0:
		return ClassNoData
	case failed == 0:
		return ClassAvailable
	case float64(failed) <= DegradedFraction*float64(eligible):
		return ClassDegraded
	}
	return ClassUnavailable
}

// AvailabilityCell is one protocol under one nemesis: its runs, the
// failed and eligible operations summed over them, and the class.
type AvailabilityCell struct {
	Protocol string
	Nemesis  string
	NemesisCount
	Class AvailabilityClass
}

// AvailabilityTable is a campaign's availability per nemesis (rows, in
// catalogue order) and protocol (columns, in report order), from each
// summary's ByNemesis counts.
type AvailabilityTable struct {
	Protocols []string
	Nemeses   []string
	// Cells[i][j] is Nemeses[i] under Protocols[j]; Runs 0 when the
	// nemesis never ran for the protocol.
	Cells [][]AvailabilityCell
}

// NewAvailabilityTable builds the table of rep; nemeses orders its rows
// (the catalogue's names), nemeses of rep not in it come last.
func NewAvailabilityTable(rep *TortureReport, nemeses []string) AvailabilityTable {
	var t AvailabilityTable
	seen := map[string]bool{}
	for _, s := range rep.Summary {
		t.Protocols = append(t.Protocols, s.Protocol)
		for n := range s.ByNemesis {
			seen[n] = true
		}
	}
	for _, n := range nemeses {
		if seen[n] {
			t.Nemeses = append(t.Nemeses, n)
			delete(seen, n)
		}
	}
	var rest []string
	for n := range seen {
		rest = append(rest, n)
	}
	slices.Sort(rest)
	t.Nemeses = append(t.Nemeses, rest...)
	for _, n := range t.Nemeses {
		row := make([]AvailabilityCell, len(rep.Summary))
		for j, s := range rep.Summary {
			c := AvailabilityCell{Protocol: s.Protocol, Nemesis: n, Class: ClassNoData}
			if nc := s.ByNemesis[n]; nc != nil {
				c.NemesisCount = *nc
				c.Class = ClassifyAvailability(nc.FailedOps, nc.EligibleOps)
			}
			row[j] = c
		}
		t.Cells = append(t.Cells, row)
	}
	return t
}
