package bench

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/causeway/causeway/protocol"
)

// TimelineBucket is one interval of a run: the time series behind a
// throughput-over-time or latency-over-time plot (karma.txt Fig. 8).
// Throughput counts the operations that completed in the interval;
// latency and failures are those of the operations issued in it, so that
// an operation slowed by a fault that began in the interval counts there
// in full even when it completes later.
type TimelineBucket struct {
	// StartS is the start of the interval, in seconds since the run began.
	StartS float64 `json:"start_s"`
	// Ops is the number of operations that completed without error in the
	// interval.
	Ops int64 `json:"ops"`
	// ThroughputOpsS is Ops divided by the interval's length.
	ThroughputOpsS float64 `json:"throughput_ops_s"`
	// Issued counts by type ("get", "put", ...) the operations issued in
	// the interval that completed without error (whenever they did).
	Issued map[string]int64 `json:"issued"`
	// Failed is the number of operations issued in the interval that
	// completed with an error (whenever they did).
	Failed int64 `json:"failed"`
	// LatencyMs summarises the latencies of those operations by type
	// (percentiles to two significant figures).
	LatencyMs map[string]Latency `json:"latency_ms"`
}

// timeline accumulates per-interval counts and latencies.
type timeline struct {
	width, until time.Duration
	buckets      []*timelineBucket
}

type timelineBucket struct {
	ops, failed int64
	lat         map[protocol.Op]*hdrhistogram.Histogram
}

// RecordTimeline makes the recorder keep a per-interval series of
// throughput and latency over [0, until) with intervals of width (see
// TimelineBucket; the last one is shorter when width does not divide
// until); a run's result then carries it in Result.Timeline. Operations
// that complete at or after until (while a run drains) are left out of the
// throughput, not out of their issue interval's latency and failures. Call
// it before the first operation completes; width and until must be
// positive.
func (r *Recorder) RecordTimeline(width, until time.Duration) {
	if width <= 0 || until <= 0 {
		panic("bench: RecordTimeline: width and until must be positive")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timeline = &timeline{width: width, until: until}
}

// bucket returns the bucket of time at, or nil outside [0, until).
func (t *timeline) bucket(at time.Duration) *timelineBucket {
	if at < 0 || at >= t.until {
		return nil
	}
	i := int(at / t.width)
	for len(t.buckets) <= i {
		t.buckets = append(t.buckets, &timelineBucket{lat: map[protocol.Op]*hdrhistogram.Histogram{}})
	}
	return t.buckets[i]
}

// add records an operation issued at start that completed at end. The
// caller holds the recorder's lock.
func (t *timeline) add(op protocol.Op, failed bool, start, end time.Duration) {
	if b := t.bucket(end); b != nil && !failed {
		b.ops++
	}
	b := t.bucket(start)
	switch {
	case b == nil:
		return
	case failed:
		b.failed++
		return
	}
	h, ok := b.lat[op]
	if !ok {
		// Two significant figures keep a bucket's histograms small (a few
		// KB each) for runs with hundreds of buckets.
		h = hdrhistogram.New(1, 3_600_000_000, 2)
		b.lat[op] = h
	}
	_ = h.RecordValue(max(1, (end - start).Microseconds()))
}

// series returns every bucket of [0, until), empty ones included.
func (t *timeline) series() []TimelineBucket {
	n := int((t.until + t.width - 1) / t.width)
	out := make([]TimelineBucket, n)
	for i := range out {
		start := time.Duration(i) * t.width
		width := min(t.width, t.until-start)
		tb := TimelineBucket{StartS: round3(start.Seconds()), Issued: map[string]int64{}, LatencyMs: map[string]Latency{}}
		if i < len(t.buckets) {
			b := t.buckets[i]
			tb.Ops, tb.Failed = b.ops, b.failed
			for op, h := range b.lat {
				tb.Issued[op.String()] = h.TotalCount()
				tb.LatencyMs[op.String()] = summarize(h)
			}
		}
		tb.ThroughputOpsS = round3(float64(tb.Ops) / width.Seconds())
		out[i] = tb
	}
	return out
}
