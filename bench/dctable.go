package bench

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
)

// WriteDCTable prints one row per datacenter of r (Result.PerDC, sorted by
// name) and a last row for the whole run: operations, throughput,
// latencies and local fraction of the DC's sessions, and the visibility of
// the writes they issued — from acknowledgement, from issue, the bound
// (one-way delay to the farthest DC each write must reach, plus the least
// processing) and the ratio of visibility from issue to the bound — and
// the p50 of its remote gets beside the p50 round trip to their nearest
// replica and the p99 of each remote get's excess over that round trip.
func WriteDCTable(w io.Writer, r *Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dc\tops\tops/s\tget p50\tget p99\tput p50\tput p99\tlocal\tvis p50\tvis p99\tissue p99\tbound p99\tvis/bound p50\tremote get p50\tnearest rtt p50\texcess p99\terrors\t")
	row := func(name string, d *DCResult) {
		get, okGet := d.LatencyMs["get"]
		put, okPut := d.LatencyMs["put"]
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n",
			name, d.Ops, d.ThroughputOpsS, ms(get.P50, okGet), ms(get.P99, okGet), ms(put.P50, okPut), ms(put.P99, okPut),
			frac(d.LocalFraction), visMs(d.VisibilityMs, true), visMs(d.VisibilityMs, false),
			visMs(d.VisibilityFromIssueMs, false), visMs(d.VisibilityBoundMs, false), ratioOf(d.VisibilityRatio, true),
			visMs(d.RemoteGetMs, true), visMs(d.NearestReplicaRTTMs, true), ms1(d.RemoteGetExcessMs), d.Errors)
	}
	for _, name := range slices.Sorted(maps.Keys(r.PerDC)) {
		row(name, r.PerDC[name])
	}
	row("(all)", &DCResult{Ops: r.Ops, ThroughputOpsS: r.ThroughputOpsS, LatencyMs: r.LatencyMs,
		LocalFraction: r.LocalFraction, VisibilityMs: r.VisibilityMs, VisibilityFromIssueMs: r.VisibilityFromIssueMs,
		VisibilityBoundMs: r.VisibilityBoundMs, VisibilityRatio: r.VisibilityRatio, Errors: r.errorCount()})
	fmt.Fprintln(tw, "\t\t\t(ms)\t(ms)\t(ms)\t(ms)\t\t(ms)\t(ms)\t(ms)\t(ms)\t\t(ms)\t(ms)\t(ms)\t\t")
	return tw.Flush()
}

// ms1 renders a distribution's p99 with one decimal, or "-".
func ms1(p *Percentiles) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", p.P99)
}
