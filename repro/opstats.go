package repro

import (
	"math"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
)

// opStats keeps what a report needs of each operation a run measures
// (those its clients issued after bench.SimSpec.Warmup, which OnDone
// alone sees): the latencies by operation kind and the protocol's
// per-operation metrics and tags, which a bench.Result summarises but
// does not list. Papers that drop their first minutes (k2.txt §VII-B
// drops 9 of 12) are compared with these.
type opStats struct {
	// lat holds the latencies in ms of the successful operations by kind.
	lat map[protocol.Op][]float64
	// failed counts the operations that failed, by kind.
	failed map[protocol.Op]int
	// metrics holds each metric's values by kind (operations that carry
	// it only).
	metrics map[protocol.Op]map[string][]float64
	// tags counts the successful operations carrying each tag, by kind.
	tags map[protocol.Op]map[string]int
}

func newOpStats() *opStats {
	return &opStats{lat: map[protocol.Op][]float64{}, failed: map[protocol.Op]int{},
		metrics: map[protocol.Op]map[string][]float64{}, tags: map[protocol.Op]map[string]int{}}
}

// add is a bench.SimSpec.OnDone.
func (s *opStats) add(_ string, req protocol.Request, rep protocol.Reply, start, end time.Duration) {
	if rep.Err != protocol.OK {
		s.failed[req.Op]++
		return
	}
	s.lat[req.Op] = append(s.lat[req.Op], float64(end-start)/float64(time.Millisecond))
	for _, m := range rep.Metrics {
		if s.metrics[req.Op] == nil {
			s.metrics[req.Op] = map[string][]float64{}
		}
		s.metrics[req.Op][m.Name] = append(s.metrics[req.Op][m.Name], m.Value)
	}
	for _, t := range rep.Tags {
		if s.tags[req.Op] == nil {
			s.tags[req.Op] = map[string]int{}
		}
		s.tags[req.Op][t]++
	}
}

// count is the number of successful operations of kind op.
func (s *opStats) count(op protocol.Op) int { return len(s.lat[op]) }

// share is the fraction of op's values of metric that satisfy ok (NaN
// when none carries it).
func (s *opStats) share(op protocol.Op, metric string, ok func(float64) bool) float64 {
	vs := s.metrics[op][metric]
	if len(vs) == 0 {
		return math.NaN()
	}
	n := 0
	for _, v := range vs {
		if ok(v) {
			n++
		}
	}
	return float64(n) / float64(len(vs))
}

// sum adds op's values of metric.
func (s *opStats) sum(op protocol.Op, metric string) float64 {
	t := 0.0
	for _, v := range s.metrics[op][metric] {
		t += v
	}
	return t
}

// tagShare is the fraction of op's successful operations carrying tag.
func (s *opStats) tagShare(op protocol.Op, tag string) float64 {
	if n := s.count(op); n > 0 {
		return float64(s.tags[op][tag]) / float64(n)
	}
	return math.NaN()
}

// mean of xs (NaN when empty).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// percentile returns the q-th percentile (0–100) of xs by the nearest
// rank (NaN when empty).
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	i := int(math.Ceil(q/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// cdf returns at most points (x, fraction ≤ x) pairs of xs's empirical
// distribution, evenly spaced in rank, for a plot.
func cdf(xs []float64, points int) (px, py []float64) {
	if len(xs) == 0 {
		return nil, nil
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	step := max(1, n/points)
	for i := 0; i < n; i += step {
		px, py = append(px, s[i]), append(py, float64(i+1)/float64(n))
	}
	if px[len(px)-1] != s[n-1] || py[len(py)-1] != 1 {
		px, py = append(px, s[n-1]), append(py, 1)
	}
	return px, py
}
