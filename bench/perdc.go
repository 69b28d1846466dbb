package bench

import (
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/causeway/causeway/protocol"
)

// DCResult is one datacenter's part of a run (Result.PerDC): the
// operations of the client sessions in that DC, and the visibility of the
// writes they issued. Closed-loop clients in a DC whose reads are all
// local complete most operations and dominate every aggregate; this is
// where that shows. Ops and Errors over all DCs sum to the run's.
type DCResult struct {
	Ops            int64              `json:"ops"`
	ThroughputOpsS float64            `json:"throughput_ops_s"`
	LatencyMs      map[string]Latency `json:"latency_ms"`
	LocalFraction  *float64           `json:"local_fraction,omitempty"`
	// AllLocalFraction is the share of the DC's operations with
	// wan_rounds = 0, over those that report wan_rounds.
	AllLocalFraction      *float64     `json:"all_local_fraction,omitempty"`
	VisibilityMs          *Percentiles `json:"visibility_ms,omitempty"`
	VisibilityFromIssueMs *Percentiles `json:"visibility_from_issue_ms,omitempty"`
	VisibilityBoundMs     *Percentiles `json:"visibility_bound_ms,omitempty"`
	VisibilityRatio       *Ratio       `json:"visibility_ratio,omitempty"`
	// RemoteGetMs is the latency of the DC's successful single-key gets
	// answered from another DC, and NearestReplicaRTTMs, over the same
	// gets, the round trip from the DC to the nearest DC holding the key
	// (Protocol.Replicas): how far a protocol's reads are from reading the
	// nearest replica. Gets under a ring restriction (tag drr), which may
	// not choose, are left out. RemoteGetExcessMs is, per get, its
	// latency beyond that round trip: service time alone for a protocol
	// that reads the nearest replica. Absent when there was no such get.
	RemoteGetMs         *Percentiles `json:"remote_get_ms,omitempty"`
	NearestReplicaRTTMs *Percentiles `json:"nearest_replica_rtt_ms,omitempty"`
	RemoteGetExcessMs   *Percentiles `json:"remote_get_excess_ms,omitempty"`
	Errors              int64        `json:"errors"`
}

// opStats counts the operations of a set of sessions: the whole run, or
// one DC's.
type opStats struct {
	lat   map[protocol.Op]*hdrhistogram.Histogram
	ok    int64
	local int64 // ok operations without WideArea
	// wanOps counts the ok operations that report wan_rounds, allLocal
	// those among them with wan_rounds = 0.
	wanOps, allLocal int64
	errs             int64
}

func newOpStats() *opStats {
	return &opStats{lat: map[protocol.Op]*hdrhistogram.Histogram{}}
}

// done records one completed operation of latency us microseconds.
func (s *opStats) done(op protocol.Op, rep protocol.Reply, us int64) {
	if rep.Err != protocol.OK {
		s.errs++
		return
	}
	s.ok++
	if !rep.WideArea {
		s.local++
	}
	if n, ok := rep.Metrics.Get(protocol.MetricWANRounds); ok {
		s.wanOps++
		if n == 0 {
			s.allLocal++
		}
	}
	h, ok := s.lat[op]
	if !ok {
		h = newLatencyHist()
		s.lat[op] = h
	}
	_ = h.RecordValue(max(1, us))
}

// latency is the latency summary per operation type.
func (s *opStats) latency() map[string]Latency {
	out := map[string]Latency{}
	for op, h := range s.lat {
		out[op.String()] = summarize(h)
	}
	return out
}

func (s *opStats) localFraction() *float64 { return fraction(s.local, s.ok) }

func (s *opStats) allLocalFraction() *float64 { return fraction(s.allLocal, s.wanOps) }

// fraction is n/of rounded, or nil when of is 0 (the metric does not
// apply).
func fraction(n, of int64) *float64 {
	if of == 0 {
		return nil
	}
	f := round3(float64(n) / float64(of))
	return &f
}

// dcStats is one DC's operations, its remote gets beside the round trip
// to their nearest replica, and the visibility of its writes.
type dcStats struct {
	ops                     *opStats
	vis                     *visHists
	remote, nearest, excess *hdrhistogram.Histogram
}

// dc returns the stats of DC name, creating them.
func (r *Recorder) dc(name string) *dcStats {
	d, ok := r.perDC[name]
	if !ok {
		d = &dcStats{ops: newOpStats(), vis: newVisHists(), remote: newLatencyHist(), nearest: newLatencyHist(), excess: newLatencyHist()}
		r.perDC[name] = d
	}
	return d
}

// fillPerDC sets res.PerDC, one entry per DC with a session or a write.
func (r *Recorder) fillPerDC(res *Result, seconds float64) {
	if len(r.perDC) == 0 {
		return
	}
	res.PerDC = map[string]*DCResult{}
	for name, d := range r.perDC {
		out := &DCResult{Ops: d.ops.ok, LatencyMs: d.ops.latency(), LocalFraction: d.ops.localFraction(),
			AllLocalFraction: d.ops.allLocalFraction(), Errors: d.ops.errs}
		if seconds > 0 {
			out.ThroughputOpsS = round3(float64(d.ops.ok) / seconds)
		}
		d.vis.fill(visFields{&out.VisibilityMs, &out.VisibilityFromIssueMs, &out.VisibilityBoundMs, &out.VisibilityRatio})
		if d.remote.TotalCount() > 0 {
			out.RemoteGetMs, out.NearestReplicaRTTMs, out.RemoteGetExcessMs = percentiles(d.remote), percentiles(d.nearest), percentiles(d.excess)
		}
		res.PerDC[name] = out
	}
}

// dropVisibility removes every visibility figure, for a runtime that
// cannot observe it (a live cluster seen from its clients).
func (res *Result) dropVisibility() {
	res.VisibilityMs, res.VisibilityFromIssueMs, res.VisibilityBoundMs, res.VisibilityRatio = nil, nil, nil, nil
	res.VisibilityBoundQueuedMs, res.VisibilityRatioQueued, res.VisibilityBreakdownMs = nil, nil, nil
	for _, d := range res.PerDC {
		d.VisibilityMs, d.VisibilityFromIssueMs, d.VisibilityBoundMs, d.VisibilityRatio = nil, nil, nil, nil
	}
}

// remoteGet records a successful single-key get of key by a session of
// dc, answered from another DC after us microseconds, unless it was under
// a ring restriction.
func (r *Recorder) remoteGet(dc, key string, rep protocol.Reply, us int64) {
	if !rep.WideArea || slices.Contains(rep.Tags, "drr") || !r.topo.HasDC(dc) {
		return
	}
	nearest := time.Duration(-1)
	for _, n := range r.proto.Replicas(r.topo, key) {
		if r.topo.HasDC(n.DC()) {
			if d := r.topo.RTT(dc, n.DC()); nearest < 0 || d < nearest {
				nearest = d
			}
		}
	}
	if nearest < 0 {
		return
	}
	d := r.dc(dc)
	_ = d.remote.RecordValue(max(1, us))
	_ = d.nearest.RecordValue(max(1, nearest.Microseconds()))
	_ = d.excess.RecordValue(max(1, us-nearest.Microseconds()))
}
