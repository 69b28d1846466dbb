package bench

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
)

// opOrder is the order of operation types in tables; others follow,
// sorted.
var opOrder = []string{"get", "put", "read_txn", "write_txn"}

// sortedOps returns the operation types of m in table order.
func sortedOps[V any](m map[string]V) []string {
	var out []string
	for _, op := range opOrder {
		if _, ok := m[op]; ok {
			out = append(out, op)
		}
	}
	for _, op := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(opOrder, op) {
			out = append(out, op)
		}
	}
	return out
}

// WriteLatencyTable prints one row per result and operation type with the
// whole latency distribution in milliseconds: min, p50, p90, p99, p999
// and mean (go-ycsb's summary), and the operations' errors.
func WriteLatencyTable(w io.Writer, results []*Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "protocol\top\tmin\tp50\tp90\tp99\tp999\tmean\terrors\t")
	for _, r := range results {
		for _, op := range sortedOps(r.LatencyMs) {
			l := r.LatencyMs[op]
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t\n",
				r.Protocol, op, l.Min, l.P50, l.P90, l.P99, l.P999, l.Mean, r.Errors[op])
		}
	}
	fmt.Fprintln(tw, "\t\t(ms)\t(ms)\t(ms)\t(ms)\t(ms)\t(ms)\t\t")
	return tw.Flush()
}

// WriteMetricsTable prints the protocols' own metrics (protocol_metrics:
// drr_fraction, cache_hit_fraction, wan_rounds_p99, …) with one row per
// metric and one column per result, "-" where a result lacks it. It
// prints nothing when no result has any.
func WriteMetricsTable(w io.Writer, results []*Result) error {
	names := map[string]bool{}
	for _, r := range results {
		for n := range r.ProtocolMetrics {
			names[n] = true
		}
	}
	if len(names) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "protocol metric\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t", r.Protocol)
	}
	fmt.Fprintln(tw)
	for _, n := range slices.Sorted(maps.Keys(names)) {
		fmt.Fprintf(tw, "%s\t", n)
		for _, r := range results {
			if v, ok := r.ProtocolMetrics[n]; ok {
				fmt.Fprintf(tw, "%.3f\t", v)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
