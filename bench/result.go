// Package bench drives a workload against a runtime, collects the metrics
// defined in docs/formats/results.md, records the history, runs the
// causal+ checker on it and produces the result JSON and a readable table.
//
// # Torture
//
// Torture (torture.go; causeway torture) runs every protocol of a
// campaign over many seeds. Each run gets a fault schedule drawn by one
// nemesis of the catalogue (faults.Nemeses: partitions of every shape,
// crashes of nodes of every role, of zones and DCs, restart loops, clock
// skew and jumps, lossy links, congestion), the nemesis and its schedule
// drawn from the seed (PickNemesis), as is its workload when the campaign
// has several (TortureSpec.Workloads), so a run depends only on its
// protocol and seed, never on how many run at once. Every schedule is
// healed by 70% of the run (faults.HealedBy). Each run gets three
// verdicts:
//
//   - Checker: the checker's findings on the history (divergence and
//     quiescence aside): "pass"; "violation" for a protocol that claims
//     causal+; "caught" for one that does not (eventual), which is the
//     checker working, not a failure.
//   - Convergence: after the heal, replicas agree (Divergence) and every
//     node's invariants at quiescence hold (Quiescence).
//   - Availability (JudgeAvailability): an operation is eligible when,
//     for its whole life (issue to reply) and the grace after any fault
//     that touched what it needs (the operation timeout plus a second),
//     (1) no node of its client's DC was crashed or under loss or added
//     delay, and (2) for each key it names, at least one replica of the
//     key (Protocol.Replicas) was up, under neither loss nor added delay,
//     and not cut off, in either direction, from the client's DC or any of
//     its zones, by a partition naming the replica's DC or zone. Clock
//     skew, duplication and reordering do not make an operation
//     ineligible: they stop no message. The verdict counts the eligible
//     operations and those of them that failed (a timeout or unavailable;
//     unsupported is not a failure). "A replica" is deliberately weak: a
//     protocol that needs one particular replica (COPS-PR's own ring) is
//     unavailable where one that switches (Karma) is not, which is the
//     claim the papers compare.
//
// A run fails when a protocol violates a guarantee it claims or does not
// converge; a failed run is shrunk (Shrink) and its smallest failing
// schedule saved beside the command that replays it. Unavailability is
// reported, not failed: which faults a protocol must survive is its
// paper's claim, judged per protocol: AvailabilityClaims lists the claims
// (full replication, karma.txt §4.4 Claims 1 and 2, COPS-PR's static
// binding), each with the fault class it covers, computed from a run's
// schedule; CheckAvailabilityClaims judges them on a campaign's runs and
// WriteAvailabilityPage writes docs/availability.md, the per-nemesis table
// (ClassifyAvailability: available when no eligible operation failed,
// degraded up to DegradedFraction of them, unavailable beyond) and the
// claims' verdicts.
package bench

import (
	"encoding/json"
	"io"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/faults"
)

// Latency summarises one latency distribution, in milliseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Mean float64 `json:"mean"`
	// Min and P999 bound the distribution: the fastest operation and the
	// 99.9th percentile (go-ycsb's Min and 99.9th).
	Min  float64 `json:"min"`
	P999 float64 `json:"p999"`
}

// Percentiles is a shorter summary, in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	// Mean is set for visibility (c3.txt's Table 3 gives means); absent
	// elsewhere.
	Mean float64 `json:"mean,omitempty"`
}

// Ratio summarises a distribution of ratios (visibility over its bound).
type Ratio struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

// CheckResult is the checker's verdict on the run's history, plus the
// runtime's own convergence check.
type CheckResult struct {
	OK         bool              `json:"ok"`
	Operations int               `json:"operations"`
	Total      int               `json:"violations_total"`
	Violations []check.Violation `json:"violations"`
	// Converged is false when replicas disagreed after quiescence
	// (reported as "divergence" violations); absent when the runtime could
	// not compare replicas (a live cluster seen from its clients).
	Converged *bool `json:"converged,omitempty"`
	// Quiescent is false when a protocol's invariants at quiescence
	// (protocol.Quiescer) did not hold after the run healed and went quiet
	// (reported as "quiescence" violations); absent when the runtime did
	// not check them (live runs).
	Quiescent *bool `json:"quiescent,omitempty"`
}

// Result is one run: the result JSON, whose every field docs/formats/results.md
// defines (a test fails when one is missing there). Metrics that do not
// apply are absent, never zero.
type Result struct {
	Protocol       string             `json:"protocol"`
	Guarantee      string             `json:"guarantee"`
	Topology       string             `json:"topology"`
	Workload       string             `json:"workload"`
	Seed           uint64             `json:"seed"`
	Runtime        string             `json:"runtime"`
	DurationS      float64            `json:"duration_s"`
	WarmupS        float64            `json:"warmup_s,omitempty"` // SimSpec.Warmup; absent without one
	Clients        int                `json:"clients"`
	Ops            int64              `json:"ops"`
	ThroughputOpsS float64            `json:"throughput_ops_s"`
	LatencyMs      map[string]Latency `json:"latency_ms"`
	LocalFraction  *float64           `json:"local_fraction,omitempty"`
	// GetDataFraction is the share of successful single-key gets that
	// returned data (a loaded or a written value) rather than nothing or
	// a delete's tombstone; read_txn reads are not counted. Absent when no
	// get succeeded.
	GetDataFraction *float64 `json:"get_data_fraction,omitempty"`
	// AllLocalFraction is the share of operations with wan_rounds = 0,
	// over those that report wan_rounds (absent when none does).
	AllLocalFraction *float64     `json:"all_local_fraction,omitempty"`
	VisibilityMs     *Percentiles `json:"visibility_ms,omitempty"`
	// VisibilityFromIssueMs is visibility measured from the write's issue
	// rather than its acknowledgement; VisibilityBoundMs is, over the same
	// writes, the one-way delay from the writer's DC to the farthest DC the
	// write must reach plus the least processing, and VisibilityRatio each
	// write's visibility from issue over its bound (bench/visibility.go).
	VisibilityFromIssueMs *Percentiles `json:"visibility_from_issue_ms,omitempty"`
	VisibilityBoundMs     *Percentiles `json:"visibility_bound_ms,omitempty"`
	VisibilityRatio       *Ratio       `json:"visibility_ratio,omitempty"`
	// VisibilityBoundQueuedMs (simulations with a service time) is the
	// bound with processing as the run measured it: the sojourn (queue
	// wait + service) at the node taking the write and at the storing
	// replica around the write, instead of one service time each;
	// VisibilityRatioQueued is visibility from issue over it, and
	// VisibilityBreakdownMs splits visibility from issue into network,
	// queue, service and protocol (bench/sojourn.go).
	VisibilityBoundQueuedMs *Percentiles         `json:"visibility_bound_queued_ms,omitempty"`
	VisibilityRatioQueued   *Ratio               `json:"visibility_ratio_queued,omitempty"`
	VisibilityBreakdownMs   *VisibilityBreakdown `json:"visibility_breakdown_ms,omitempty"`
	// VisibilityBoundOrderedMs (protocols that order a session's writes
	// across a ring, RingOrdered) is the least visibility from issue of
	// any implementation of that order on this topology, and
	// VisibilityRatioOrdered visibility from issue over it (ordered.go).
	VisibilityBoundOrderedMs *Percentiles       `json:"visibility_bound_ordered_ms,omitempty"`
	VisibilityRatioOrdered   *Ratio             `json:"visibility_ratio_ordered,omitempty"`
	ProtocolMetrics          map[string]float64 `json:"protocol_metrics,omitempty"`
	WANBytes                 *int64             `json:"wan_bytes,omitempty"`
	Messages                 *int64             `json:"messages,omitempty"`
	// UnroutedReplies (simulations only) counts the messages a server node
	// sent to a session that had sent that node nothing since it started:
	// the live runtime has no route back to such a session and drops them
	// (sim.Stats.NoRoute). A protocol that relies on them stalls live.
	UnroutedReplies *int64 `json:"unrouted_replies,omitempty"`
	// MetadataBytesPerWrite is the mean payload bytes, minus the value, of
	// the replicated-write messages that crossed between DCs (see
	// metadata.go); absent when the protocol sent none.
	MetadataBytesPerWrite *float64 `json:"metadata_bytes_per_write,omitempty"`
	// WANFrameBytes (simulations only) is WANBytes plus the wire codec's
	// framing of each message (its kind): the payload bytes of the frames
	// the live transport would carry between DCs. FramingBytesPerMessage is
	// their difference per WAN message (see metadata.go).
	WANFrameBytes          *int64   `json:"wan_frame_bytes,omitempty"`
	FramingBytesPerMessage *float64 `json:"framing_bytes_per_message,omitempty"`
	// WANByKind (simulations with SimSpec.WANByKind only) breaks the
	// delivered WAN traffic down by message kind.
	WANByKind *WANByKind `json:"wan_by_kind,omitempty"`
	// CeilingOpsS is the no-op round trips per second the same clients
	// completed over the same transport in the same live run; absent in
	// simulations.
	CeilingOpsS *float64 `json:"ceiling_ops_s,omitempty"`
	// CeilingFraction is ThroughputOpsS / CeilingOpsS.
	CeilingFraction *float64         `json:"ceiling_fraction,omitempty"`
	Errors          map[string]int64 `json:"errors"`
	Faults          []string         `json:"faults,omitempty"`
	// FaultSchedule is the run's fault schedule (drawn by --faults random,
	// or read from a file) in the faults-file format: saved as a file, it
	// replays the run with --faults.
	FaultSchedule faults.Schedule `json:"fault_schedule,omitempty"`
	// Timeline is the run's per-interval throughput and latency; absent
	// unless asked for (SimSpec.Timeline).
	Timeline []TimelineBucket `json:"timeline,omitempty"`
	// PerDC breaks the run down by the DC of the client sessions (for
	// visibility: of the writer), keyed by DC name (bench/perdc.go).
	PerDC map[string]*DCResult `json:"per_dc,omitempty"`
	// Interrupted is true when the run was stopped before its duration
	// (SimSpec.Context, LiveSpec.Context: Ctrl-C): DurationS is the time it
	// ran, and the history and checker cover the operations until then.
	Interrupted bool        `json:"interrupted,omitempty"`
	Check       CheckResult `json:"check"`
}

// WriteJSON writes r as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// newLatencyHist records microseconds from 1µs to 1h with 3 significant
// figures.
func newLatencyHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, 3_600_000_000, 3)
}

func usToMs(us int64) float64 { return round3(float64(us) / 1000) }

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func summarize(h *hdrhistogram.Histogram) Latency {
	return Latency{
		P50:  usToMs(h.ValueAtQuantile(50)),
		P90:  usToMs(h.ValueAtQuantile(90)),
		P99:  usToMs(h.ValueAtQuantile(99)),
		Mean: round3(h.Mean() / 1000),
		Min:  usToMs(h.Min()),
		P999: usToMs(h.ValueAtQuantile(99.9)),
	}
}
