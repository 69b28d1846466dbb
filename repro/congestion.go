package repro

import (
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/workload"
)

// congestionProtos are the protocols of §6.2: dynamic ring binding
// without caches against static binding.
var congestionProtos = []string{"karma-nc", "cops-pr"}

// congestion holds the runs of Figs. 8 and 9 (karma.txt §6.2): each
// protocol without congestion and with each added delay on every message
// into or out of Europe during the middle third of the run.
type congestion struct {
	duration, from, to, bucket time.Duration
	// base is each protocol's uncongested run; runs its congested runs in
	// the order of Options.CongestionDelays.
	base map[string]*run
	runs map[string][]*run
}

// congestion runs Figs. 8 and 9.
func (k *karmaRunner) congestion() error {
	d := k.opts.CongestionDuration
	c := &congestion{duration: d, from: d / 3, to: 2 * d / 3, bucket: max(time.Millisecond, (d / timelineBuckets).Truncate(time.Millisecond)),
		base: map[string]*run{}, runs: map[string][]*run{}}
	w, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		return err
	}
	for _, p := range congestionProtos {
		s := spec{protocol: p, workload: w, threads: k.opts.CongestionThreads, duration: d, timeline: c.bucket,
			rate: k.opts.CongestionRate}
		r, err := k.sim(s)
		if err != nil {
			return err
		}
		c.base[p] = r
		for _, delay := range k.opts.CongestionDelays {
			s.delay = delay
			s.faults = faults.Schedule{{At: c.from, Delay: &faults.Delay{Target: "dc:" + congestedDC,
				AddMs: float64(delay) / float64(time.Millisecond), For: c.to - c.from}}}
			r, err := k.sim(s)
			if err != nil {
				return err
			}
			c.runs[p] = append(c.runs[p], r)
		}
	}
	k.cong = c
	return nil
}

// phase is what a run's clients did in one time window.
type phase struct {
	// opsS is the operations completed per second.
	opsS float64
	// getMs is the mean latency of the gets issued that succeeded.
	getMs float64
	// failed is the number of operations issued that failed (timed out,
	// mostly).
	failed int64
}

// window averages a run's timeline over the buckets that start in
// [from, to).
func window(r *run, from, to time.Duration) phase {
	var ops, gets, failed int64
	var span, getSum float64
	for i, b := range r.res.Timeline {
		start := time.Duration(b.StartS * float64(time.Second))
		if start < from || start >= to {
			continue
		}
		end := time.Duration(r.res.DurationS * float64(time.Second))
		if i+1 < len(r.res.Timeline) {
			end = time.Duration(r.res.Timeline[i+1].StartS * float64(time.Second))
		}
		span += (end - start).Seconds()
		ops += b.Ops
		failed += b.Failed
		n := b.Issued["get"]
		gets += n
		getSum += float64(n) * b.LatencyMs["get"].Mean
	}
	p := phase{failed: failed}
	if span > 0 {
		p.opsS = float64(ops) / span
	}
	if gets > 0 {
		p.getMs = getSum / float64(gets)
	}
	return p
}

// before, during and after are a run's three phases: before the
// congestion, while congested, after it.
func (c *congestion) before(r *run) phase { return window(r, 0, c.from) }
func (c *congestion) during(r *run) phase { return window(r, c.from, c.to) }
func (c *congestion) after(r *run) phase  { return window(r, c.to, c.duration) }

// degradation is Fig. 9's measure for a congested run: the throughput
// lost and the get latency gained while congested, relative to the same
// window of the protocol's uncongested run, in percent.
func (c *congestion) degradation(r *run) (throughputPct, latencyPct float64) {
	base, got := c.during(c.base[r.protocol]), c.during(r)
	if base.opsS > 0 {
		throughputPct = 100 * (1 - got.opsS/base.opsS)
	}
	if base.getMs > 0 {
		latencyPct = 100 * (got.getMs/base.getMs - 1)
	}
	return throughputPct, latencyPct
}

// worst is a protocol's run with the largest delay (Fig. 8).
func (c *congestion) worst(proto string) *run {
	var w *run
	for _, r := range c.runs[proto] {
		if w == nil || r.delay > w.delay {
			w = r
		}
	}
	return w
}

// getMean is the mean get latency of a timeline bucket (0 when none
// completed).
func getMean(b bench.TimelineBucket) float64 { return b.LatencyMs["get"].Mean }
