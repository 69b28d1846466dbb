package main

import (
	"fmt"
	"math"
	"strings"
)

// The demo's closing lines say what its table shows: what partial
// replication saves and what it costs against full replication, which
// partial design recovers what, and what the checker found. Every word
// that compares is computed from the rows, so the lines stay true when
// the numbers move (a protocol made faster, another topology or seed).

// demoFigure is one figure of a row the summary compares.
type demoFigure struct {
	name        string // as printed: "get p99"
	lowerBetter bool
	get         func(demoRow) *float64
	text        func(float64) string // the value with its unit
	abs         float64              // differences up to this are "the same"
	// complement compares 1-v instead of v (a fraction near 1, where
	// 0.91 against 1.00 is 9% against none, not 9% less).
	complement bool
}

// sameTolerance is the relative difference below which two figures are
// "about the same": simulated runs of a few seconds vary by a few percent.
const sameTolerance = 0.10

var (
	figStorage = demoFigure{name: "storage", lowerBetter: true,
		get:  func(r demoRow) *float64 { return ptr(r.ReplicasPerKey) },
		text: func(v float64) string { return num(v) + " copies of each key" }}
	figWAN = demoFigure{name: "WAN bytes per operation", lowerBetter: true,
		get:  func(r demoRow) *float64 { return r.WANBytesPerOp },
		text: func(v float64) string { return fmt.Sprintf("%.0f B", v) }, abs: 1}
	figLocal = demoFigure{name: "operations answered in the client's DC", lowerBetter: false,
		get:  func(r demoRow) *float64 { return r.LocalFraction },
		text: func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }, abs: 0.005, complement: true}
	figGetP99 = demoFigure{name: "get p99", lowerBetter: true,
		get:  func(r demoRow) *float64 { return r.GetP99Ms },
		text: msText, abs: 0.2}
	figPutP99 = demoFigure{name: "put p99", lowerBetter: true,
		get:  func(r demoRow) *float64 { return r.PutP99Ms },
		text: msText, abs: 0.2}
	figVis = demoFigure{name: "visibility p50", lowerBetter: true,
		get:  func(r demoRow) *float64 { return r.VisibilityP50Ms },
		text: msText, abs: 1}
)

func msText(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

// compare says whether a is better (+1), worse (-1) or about the same (0)
// as b on f.
func (f demoFigure) compare(a, b float64) int {
	d := a - b
	ra, rb := a, b
	if f.complement {
		ra, rb = 1-a, 1-b
	}
	if math.Abs(d) <= f.abs || math.Abs(d) <= sameTolerance*math.Max(math.Abs(ra), math.Abs(rb)) {
		return 0
	}
	if (d < 0) == f.lowerBetter {
		return 1
	}
	return -1
}

// change describes a against b: "75% less", "56× more", "2.0× more".
func change(a, b float64) string {
	switch {
	case b == 0:
		return "more"
	case a < b:
		return fmt.Sprintf("%.0f%% less", 100*(1-a/b))
	case a >= 2*b:
		return fmt.Sprintf("%.0f× as much", a/b)
	default:
		return fmt.Sprintf("%.0f%% more", 100*(a/b-1))
	}
}

// demoSummary returns the demo's closing lines for rows.
func demoSummary(rows []demoRow) []string {
	var full, partial []demoRow
	for _, r := range rows {
		if r.Replication == replicationFull {
			full = append(full, r)
		} else {
			partial = append(partial, r)
		}
	}
	var lines []string
	switch {
	case len(full) == 0 && len(partial) > 0:
		lines = append(lines, "No full-replication protocol ran: add cops to --protocols to see what partial replication saves and costs.")
	case len(partial) == 0 && len(full) > 0:
		lines = append(lines, "No partial-replication protocol ran: add cops-pr or karma to --protocols to see what partial replication saves and costs.")
	case len(full) > 0:
		ref := referenceFull(full)
		for _, p := range partial {
			lines = append(lines, tradeOff(p, ref))
		}
		lines = append(lines, recoveries(partial, ref)...)
	}
	return append(lines, checkerLine(rows))
}

// referenceFull is the full-replication row partial designs are measured
// against: the first that claims causal+ consistency and passed the
// checker (what a partial causal+ design must match), else the first.
func referenceFull(full []demoRow) demoRow {
	for _, r := range full {
		if r.Claims == "causal+" && r.CheckerOK {
			return r
		}
	}
	return full[0]
}

// tradeOff is one line: what partial design p saves and costs against
// full-replication design ref.
func tradeOff(p, ref demoRow) string {
	var saves, costs, same []string
	for _, f := range []demoFigure{figStorage, figWAN, figLocal, figGetP99, figPutP99, figVis} {
		a, b := f.get(p), f.get(ref)
		if a == nil || b == nil {
			continue
		}
		item := fmt.Sprintf("%s %s vs %s", f.name, f.text(*a), f.text(*b))
		switch f.name {
		case figStorage.name:
			item = fmt.Sprintf("storage (%s instead of %s: %s)", f.text(*a), num(*b), change(*a, *b))
		case figWAN.name:
			item = fmt.Sprintf("WAN bytes per operation (%s vs %s: %s)", f.text(*a), f.text(*b), change(*a, *b))
		}
		switch f.compare(*a, *b) {
		case 1:
			saves = append(saves, item)
		case -1:
			costs = append(costs, item)
		default:
			same = append(same, f.name)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (partial: a key in %s of %d DCs) against %s (full): ", p.Protocol, num(p.DCsPerKey), p.DCs, ref.Protocol)
	parts := []string{}
	if len(saves) > 0 {
		parts = append(parts, "saves "+strings.Join(saves, ", "))
	}
	if len(costs) > 0 {
		parts = append(parts, "costs "+strings.Join(costs, ", "))
	}
	if len(same) > 0 {
		parts = append(parts, "about the same "+strings.Join(same, ", "))
	}
	b.WriteString(strings.Join(parts, "; "))
	b.WriteString(".")
	return b.String()
}

// recoveries says, for each figure partial replication makes worse, which
// partial design recovers most of what the worst one loses against full
// replication (ref). Nothing when fewer than two partial designs ran.
func recoveries(partial []demoRow, ref demoRow) []string {
	if len(partial) < 2 {
		return nil
	}
	var lines []string
	for _, f := range []demoFigure{figLocal, figGetP99, figVis} {
		b := f.get(ref)
		if b == nil {
			continue
		}
		var worst, best *demoRow
		for i := range partial {
			r := &partial[i]
			v := f.get(*r)
			if v == nil {
				continue
			}
			if worst == nil || better(f, *f.get(*worst), *v) {
				worst = r
			}
			if best == nil || better(f, *v, *f.get(*best)) {
				best = r
			}
		}
		if worst == nil {
			continue
		}
		w, bv := *f.get(*worst), *f.get(*best)
		if f.compare(w, *b) >= 0 {
			continue // partial replication loses nothing here
		}
		if f.compare(bv, w) <= 0 {
			lines = append(lines, fmt.Sprintf("No partial design here recovers %s: %s to %s (%s: %s).",
				f.name, f.text(math.Min(w, bv)), f.text(math.Max(w, bv)), ref.Protocol, f.text(*b)))
			continue
		}
		what := fmt.Sprintf("closes %.0f%% of the gap", 100*(bv-w)/(*b-w))
		if f.compare(bv, *b) >= 0 {
			what = "closes all of the gap"
		}
		lines = append(lines, fmt.Sprintf("On %s, %s %s between %s and full replication: %s against %s (%s: %s).",
			f.name, best.Protocol, what, worst.Protocol, f.text(bv), f.text(w), ref.Protocol, f.text(*b)))
	}
	return lines
}

// better reports whether a is strictly better than b on f.
func better(f demoFigure, a, b float64) bool {
	if f.lowerBetter {
		return a < b
	}
	return a > b
}

// checkerLine says which protocols the checker caught and which passed.
func checkerLine(rows []demoRow) string {
	var passed, caughtWeak, caughtClaim []string
	for _, r := range rows {
		switch {
		case r.CheckerOK:
			passed = append(passed, r.Protocol)
		case r.Claims == "causal+":
			caughtClaim = append(caughtClaim, fmt.Sprintf("%s (%d violations)", r.Protocol, r.Violations))
		default:
			caughtWeak = append(caughtWeak, fmt.Sprintf("%s (claims %s; %d violations in %d operations)", r.Protocol, r.Claims, r.Violations, r.Operations))
		}
	}
	var parts []string
	if len(caughtClaim) > 0 {
		parts = append(parts, "BROKEN: "+strings.Join(caughtClaim, ", ")+" "+claimVerb(len(caughtClaim))+" causal+ consistency and failed the checker")
	}
	if len(caughtWeak) > 0 {
		parts = append(parts, "caught breaking causality: "+strings.Join(caughtWeak, ", "))
	}
	if len(passed) > 0 {
		parts = append(parts, "causal+ in every checked history: "+strings.Join(passed, ", "))
	}
	return "Checker: " + strings.Join(parts, "; ") + "."
}

// claimVerb is "claims" for one protocol, "claim" for more.
func claimVerb(n int) string {
	if n == 1 {
		return "claims"
	}
	return "claim"
}
