package repro

import (
	"math"
	"time"

	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// inFlightModel estimates how often a Karma get finds its key in flight,
// whatever the implementation: if key k is written as a Poisson process at
// rate putShare·T·p_k and each write keeps it in flight for at least
// window W at the replica read, a get of k finds it in flight with
// probability at least 1 − exp(−putShare·T·p_k·W). Summed over keys
// weighted by how often they are read:
//
//	q(T, W) = Σ_k p_k · (1 − exp(−putShare·T·p_k·W))
//
// Every get that reads an in-flight value restricts its thread until that
// write completes everywhere (§4.2), so the fraction of accesses under a
// DRR cannot be much below q.
type inFlightModel struct {
	head    []float64 // popularity of the keys the most popular items reduce to
	tail    float64   // popularity of all other items, spread over every key
	records int
}

// inFlightHead is how many of the most popular zipfian items the model
// sums exactly (the rest count as spread evenly over the keys, which
// only lowers q).
const inFlightHead = 1 << 20

// newInFlightModel builds the model for YCSB's scrambled zipfian over
// records keys.
func newInFlightModel(records int) *inFlightModel {
	p, tail := workload.NewScrambledZipfian(0, int64(records)-1).Popularity(min(inFlightHead, 100*records))
	m := &inFlightModel{tail: tail, records: records}
	for _, v := range p {
		m.head = append(m.head, v)
	}
	return m
}

// q is the model's in-flight read fraction with putShare of the
// operations writes, at throughput T (operations per second, all DCs) and
// in-flight window w.
func (m *inFlightModel) q(putShare, throughput float64, w time.Duration) float64 {
	rate := putShare * throughput * w.Seconds()
	spread := m.tail / float64(m.records)
	f := func(p float64) float64 { return p * -math.Expm1(-rate*p) }
	sum := 0.0
	for _, p := range m.head {
		sum += f(p+spread) - f(spread)
	}
	return sum + float64(m.records)*f(spread)
}

// maxThroughput is the largest throughput at which q stays at or below
// target (bisection; q grows with throughput).
func (m *inFlightModel) maxThroughput(putShare, target float64, w time.Duration) float64 {
	lo, hi := 0.0, 1.0
	for m.q(putShare, hi, w) <= target && hi < 1e12 {
		hi *= 2
	}
	for range 60 {
		mid := (lo + hi) / 2
		if m.q(putShare, mid, w) <= target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// minInFlightWindow is a lower bound on how long a write stays in flight
// at any replica, from the topology alone: a write from DC d is complete
// only when every ring has acknowledged it, so the replica in the ring
// whose nearest replica is farthest from d stores it at least one way
// from d and learns it is stable at least one more way later — at least
// max over rings of min over the ring's DCs of RTT(d, ·), and the other
// replicas store it earlier. The bound is the least of that over writer
// DCs (processing time and queueing only lengthen it).
func minInFlightWindow(t *topology.Topology) time.Duration {
	best := time.Duration(math.MaxInt64)
	for _, d := range t.DCNames() {
		var worst time.Duration
		for _, ring := range t.Rings() {
			near := time.Duration(math.MaxInt64)
			for _, e := range ring {
				near = min(near, t.RTT(d, e))
			}
			worst = max(worst, near)
		}
		best = min(best, worst)
	}
	return best
}
