package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints one row per result: throughput, latencies, local
// fraction, visibility (and the p50 of each write's visibility from issue
// over its bound), metadata bytes per replicated write and the checker's
// verdict.
func WriteTable(w io.Writer, results []*Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "protocol\tclaims\tops/s\tget p50\tget p99\tput p50\tput p99\tlocal\tvis p50\tvis p99\tvis/bound\tmeta/write\terrors\tchecker\t")
	for _, r := range results {
		get, put := r.LatencyMs["get"], r.LatencyMs["put"]
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t\n",
			r.Protocol, r.Guarantee, r.ThroughputOpsS,
			ms(get.P50, r.has("get")), ms(get.P99, r.has("get")), ms(put.P50, r.has("put")), ms(put.P99, r.has("put")),
			frac(r.LocalFraction), visMs(r.VisibilityMs, true), visMs(r.VisibilityMs, false), ratioOf(r.VisibilityRatio, true), bytesOf(r.MetadataBytesPerWrite),
			r.errorCount(), r.Check.Verdict())
	}
	fmt.Fprintln(tw, "\t\t\t(ms)\t(ms)\t(ms)\t(ms)\t\t(ms)\t(ms)\t(p50)\t(bytes)\t\t\t")
	return tw.Flush()
}

// Verdict is "ok" or "FAIL (n violations)".
func (c CheckResult) Verdict() string {
	if c.OK {
		return "ok"
	}
	return fmt.Sprintf("FAIL (%d violations)", c.Total)
}

// FirstViolation returns the first violation's rule and explanation, or "".
func (c CheckResult) FirstViolation() string {
	if len(c.Violations) == 0 {
		return ""
	}
	v := c.Violations[0]
	return fmt.Sprintf("%s: %s", v.Rule, strings.TrimSpace(v.Explanation))
}

func (r *Result) has(op string) bool { _, ok := r.LatencyMs[op]; return ok }

func (r *Result) errorCount() int64 {
	var n int64
	for _, e := range r.Errors {
		n += e
	}
	return n
}

func ms(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func frac(f *float64) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *f)
}

func visMs(p *Percentiles, p50 bool) string {
	if p == nil {
		return "-"
	}
	if p50 {
		return fmt.Sprintf("%.0f", p.P50)
	}
	return fmt.Sprintf("%.0f", p.P99)
}

func bytesOf(b *float64) string {
	if b == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", *b)
}

// ratioOf renders a ratio's p50 (or p99) as "3.2x".
func ratioOf(r *Ratio, p50 bool) string {
	if r == nil {
		return "-"
	}
	if p50 {
		return fmt.Sprintf("%.2fx", r.P50)
	}
	return fmt.Sprintf("%.2fx", r.P99)
}
