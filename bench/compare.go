package bench

import (
	"maps"
	"slices"
	"strings"
)

// CompareRow is one metric of several runs side by side: Values[i] is
// run i's, nil where the run lacks it (a live run's visibility, a
// protocol metric of another protocol).
type CompareRow struct {
	// Name is the metric, as named in the result JSON (a percentile as
	// "latency_ms.get.p99", a protocol metric as
	// "protocol_metrics.drr_fraction").
	Name string `json:"name"`
	// Unit is "ops/s", "ms", "bytes", "fraction" or "count".
	Unit   string     `json:"unit"`
	Values []*float64 `json:"values"`
}

// Compare returns the key metrics of results side by side, in a fixed
// order: throughput, latency percentiles of each operation type (min to
// p999), local and data fractions, visibility, bytes and messages per
// operation, metadata per write, errors, then every protocol metric any
// run has. A metric no run has is left out.
func Compare(results []*Result) []CompareRow {
	var rows []CompareRow
	add := func(name, unit string, get func(r *Result) *float64) {
		row := CompareRow{Name: name, Unit: unit, Values: make([]*float64, len(results))}
		any := false
		for i, r := range results {
			if v := get(r); v != nil {
				x := round3(*v)
				row.Values[i], any = &x, true
			}
		}
		if any {
			rows = append(rows, row)
		}
	}
	val := func(x float64) *float64 { return &x }
	add("throughput_ops_s", "ops/s", func(r *Result) *float64 { return val(r.ThroughputOpsS) })
	ops := map[string]bool{}
	for _, r := range results {
		for op := range r.LatencyMs {
			ops[op] = true
		}
	}
	for _, op := range sortedOps(ops) {
		for _, q := range []struct {
			name string
			of   func(Latency) float64
		}{
			{"min", func(l Latency) float64 { return l.Min }}, {"p50", func(l Latency) float64 { return l.P50 }},
			{"p99", func(l Latency) float64 { return l.P99 }}, {"p999", func(l Latency) float64 { return l.P999 }},
			{"mean", func(l Latency) float64 { return l.Mean }},
		} {
			add("latency_ms."+op+"."+q.name, "ms", func(r *Result) *float64 {
				l, ok := r.LatencyMs[op]
				if !ok {
					return nil
				}
				return val(q.of(l))
			})
		}
	}
	add("local_fraction", "fraction", func(r *Result) *float64 { return r.LocalFraction })
	add("all_local_fraction", "fraction", func(r *Result) *float64 { return r.AllLocalFraction })
	add("get_data_fraction", "fraction", func(r *Result) *float64 { return r.GetDataFraction })
	for _, v := range []struct {
		name string
		of   func(r *Result) *Percentiles
	}{
		{"visibility_ms", func(r *Result) *Percentiles { return r.VisibilityMs }},
		{"visibility_from_issue_ms", func(r *Result) *Percentiles { return r.VisibilityFromIssueMs }},
		{"visibility_bound_ms", func(r *Result) *Percentiles { return r.VisibilityBoundMs }},
		{"visibility_bound_queued_ms", func(r *Result) *Percentiles { return r.VisibilityBoundQueuedMs }},
		{"visibility_bound_ordered_ms", func(r *Result) *Percentiles { return r.VisibilityBoundOrderedMs }},
	} {
		add(v.name+".p50", "ms", func(r *Result) *float64 {
			if p := v.of(r); p != nil {
				return val(p.P50)
			}
			return nil
		})
		add(v.name+".p99", "ms", func(r *Result) *float64 {
			if p := v.of(r); p != nil {
				return val(p.P99)
			}
			return nil
		})
	}
	add("wan_bytes_per_op", "bytes", func(r *Result) *float64 {
		if r.WANBytes == nil || r.Ops == 0 {
			return nil
		}
		return val(float64(*r.WANBytes) / float64(r.Ops))
	})
	add("messages_per_op", "count", func(r *Result) *float64 {
		if r.Messages == nil || r.Ops == 0 {
			return nil
		}
		return val(float64(*r.Messages) / float64(r.Ops))
	})
	add("metadata_bytes_per_write", "bytes", func(r *Result) *float64 { return r.MetadataBytesPerWrite })
	add("framing_bytes_per_message", "bytes", func(r *Result) *float64 { return r.FramingBytesPerMessage })
	add("ceiling_fraction", "fraction", func(r *Result) *float64 { return r.CeilingFraction })
	add("errors", "count", func(r *Result) *float64 { return val(float64(r.errorCount())) })
	names := map[string]bool{}
	for _, r := range results {
		for n := range r.ProtocolMetrics {
			names[n] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		unit := "count"
		if strings.HasSuffix(n, "_fraction") {
			unit = "fraction"
		}
		add("protocol_metrics."+n, unit, func(r *Result) *float64 {
			if v, ok := r.ProtocolMetrics[n]; ok {
				return val(v)
			}
			return nil
		})
	}
	return rows
}
