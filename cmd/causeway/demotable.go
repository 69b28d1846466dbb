package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// Replication kinds of a demo row: a copy of every key in every DC, or
// not.
const (
	replicationFull    = "full"
	replicationPartial = "partial"
)

// demoRow is one protocol's line of the demo: what it stores (from its
// placement), what it ships between DCs, what it costs clients, and the
// checker's verdict. Figures a run did not produce are nil.
type demoRow struct {
	Protocol string `json:"protocol"`
	Claims   string `json:"claims"`
	// Replication is "full" when every key has a replica in every DC,
	// else "partial".
	Replication string `json:"replication"`
	// ReplicasPerKey is the mean number of server nodes storing a key
	// (protocol.Protocol.Replicas) over the workload's records: the
	// storage cost, in copies of the data set. DCsPerKey is the mean
	// number of distinct DCs among them, out of DCs.
	ReplicasPerKey float64 `json:"replicas_per_key"`
	DCsPerKey      float64 `json:"dcs_per_key"`
	DCs            int     `json:"dcs"`
	// WANBytesPerOp is the payload bytes sent between DCs per completed
	// operation.
	WANBytesPerOp *float64 `json:"wan_bytes_per_op,omitempty"`
	LocalFraction *float64 `json:"local_fraction,omitempty"`
	GetP50Ms      *float64 `json:"get_p50_ms,omitempty"`
	GetP99Ms      *float64 `json:"get_p99_ms,omitempty"`
	PutP50Ms      *float64 `json:"put_p50_ms,omitempty"`
	PutP99Ms      *float64 `json:"put_p99_ms,omitempty"`
	// VisibilityP50Ms is the median time from a write's acknowledgement
	// until every replica that must show it does.
	VisibilityP50Ms *float64 `json:"visibility_p50_ms,omitempty"`
	CheckerOK       bool     `json:"checker_ok"`
	Violations      int      `json:"violations"`
	Operations      int      `json:"operations"`
}

// placementCost returns the mean replicas and distinct DCs per key of p
// on t over w's records, and whether every record has a replica in every
// DC.
func placementCost(p protocol.Protocol, t *topology.Topology, w workload.Workload) (replicas, dcs float64, full bool) {
	n := int64(w.RecordCount)
	if n < 1 {
		n = 1
	}
	full = true
	var sumReplicas, sumDCs int64
	seen := make(map[string]bool, len(t.Datacenters))
	for i := int64(0); i < n; i++ {
		ids := p.Replicas(t, workload.Key(i))
		clear(seen)
		for _, id := range ids {
			seen[id.DC()] = true
		}
		sumReplicas += int64(len(ids))
		sumDCs += int64(len(seen))
		if len(seen) < len(t.Datacenters) {
			full = false
		}
	}
	return float64(sumReplicas) / float64(n), float64(sumDCs) / float64(n), full
}

// newDemoRow builds the row of res, a run of p on t with workload w.
func newDemoRow(res *bench.Result, p protocol.Protocol, t *topology.Topology, w workload.Workload) demoRow {
	r := demoRow{Protocol: res.Protocol, Claims: res.Guarantee, Replication: replicationPartial, DCs: len(t.Datacenters),
		LocalFraction: res.LocalFraction, CheckerOK: res.Check.OK, Violations: res.Check.Total, Operations: res.Check.Operations}
	var full bool
	r.ReplicasPerKey, r.DCsPerKey, full = placementCost(p, t, w)
	if full {
		r.Replication = replicationFull
	}
	if res.WANBytes != nil && res.Ops > 0 {
		v := float64(*res.WANBytes) / float64(res.Ops)
		r.WANBytesPerOp = &v
	}
	if l, ok := res.LatencyMs["get"]; ok {
		r.GetP50Ms, r.GetP99Ms = ptr(l.P50), ptr(l.P99)
	}
	if l, ok := res.LatencyMs["put"]; ok {
		r.PutP50Ms, r.PutP99Ms = ptr(l.P50), ptr(l.P99)
	}
	if res.VisibilityMs != nil {
		r.VisibilityP50Ms = ptr(res.VisibilityMs.P50)
	}
	return r
}

func ptr(v float64) *float64 { return &v }

// verdict is the checker column: "ok" or "FAIL (n)".
func (r demoRow) verdict() string {
	if r.CheckerOK {
		return "ok"
	}
	return fmt.Sprintf("FAIL (%d)", r.Violations)
}

// writeDemoTable prints the rows as a right-aligned table with a line of
// units under it.
func writeDemoTable(w io.Writer, rows []demoRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "protocol\tclaims\treplication\tcopies/key\tWAN/op\tlocal\tget p50\tget p99\tput p50\tput p99\tvis p50\tchecker\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			r.Protocol, r.Claims, r.Replication, num(r.ReplicasPerKey),
			opt(r.WANBytesPerOp, "%.0f"), opt(r.LocalFraction, "%.2f"),
			opt(r.GetP50Ms, "%.1f"), opt(r.GetP99Ms, "%.1f"), opt(r.PutP50Ms, "%.1f"), opt(r.PutP99Ms, "%.1f"),
			opt(r.VisibilityP50Ms, "%.0f"), r.verdict())
	}
	fmt.Fprintln(tw, "\t\t\t(storage)\t(bytes)\t\t(ms)\t(ms)\t(ms)\t(ms)\t(ms)\t\t")
	return tw.Flush()
}

// opt formats v, or "-" when it is absent.
func opt(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

// num formats a count that may be a mean: "8", "2.5".
func num(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}
