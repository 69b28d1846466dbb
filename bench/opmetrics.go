package bench

import (
	"maps"
	"math"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Per-operation metrics (protocol.Reply.Metrics) are aggregated into
// protocol_metrics.<name>_p50, _p90, _p99 and _mean over the successful
// operations that carry the metric; a metric no operation carried is absent.
//
// Representation: a metric's values are kept exactly, as a count per
// distinct value, while it has at most exactDistinct distinct values —
// which covers every integer-valued metric such as wan_rounds forever, in a
// few bytes. A metric with more distinct values (a continuous one such as
// staleness_ms) moves to an HDR histogram of its values in thousandths
// (resolution 0.001, up to 1e9) with 3 significant digits: its
// percentiles are then within 0.1% of the exact ones. Percentiles are
// nearest-rank (the smallest recorded value with at least q% of the values
// at or below it); the mean is always exact. Values must be finite and
// non-negative: others are not recorded (and counted in invalid).

// exactDistinct is how many distinct values a metric keeps exactly.
const exactDistinct = 1024

// distScale is the histogram's unit: values are recorded in thousandths.
const distScale = 1000

// distribution is one per-operation metric's recorded values.
type distribution struct {
	n       int64
	sum     float64
	invalid int64
	exact   map[float64]int64       // value -> count, nil once hist is used
	hist    *hdrhistogram.Histogram // values × distScale
}

func newDistribution() *distribution {
	return &distribution{exact: map[float64]int64{}}
}

// add records one value.
func (d *distribution) add(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		d.invalid++
		return
	}
	d.n++
	d.sum += v
	if d.hist == nil {
		d.exact[v]++
		if len(d.exact) <= exactDistinct {
			return
		}
		d.hist = hdrhistogram.New(1, 1e12, 3)
		for _, x := range slices.Sorted(maps.Keys(d.exact)) {
			_ = d.hist.RecordValues(scaled(x), d.exact[x])
		}
		d.exact = nil
		return
	}
	_ = d.hist.RecordValue(scaled(v))
}

func scaled(v float64) int64 {
	return min(int64(math.Round(v*distScale)), 1e12)
}

// quantile is the nearest-rank q-th percentile (0 < q ≤ 100).
func (d *distribution) quantile(q float64) float64 {
	if d.n == 0 {
		return 0
	}
	if d.hist != nil {
		return float64(d.hist.ValueAtQuantile(q)) / distScale
	}
	rank := max(int64(math.Ceil(q/100*float64(d.n))), 1)
	var seen int64
	vals := slices.Sorted(maps.Keys(d.exact))
	for _, v := range vals {
		seen += d.exact[v]
		if seen >= rank {
			return v
		}
	}
	return vals[len(vals)-1]
}

// mean is the exact arithmetic mean.
func (d *distribution) mean() float64 {
	if d.n == 0 {
		return 0
	}
	return d.sum / float64(d.n)
}

// fillMetric adds name's p50, p90, p99 and mean to m, when any value was
// recorded.
func (d *distribution) fillMetric(m map[string]float64, name string) {
	if d.n == 0 {
		return
	}
	m[name+"_p50"] = round3(d.quantile(50))
	m[name+"_p90"] = round3(d.quantile(90))
	m[name+"_p99"] = round3(d.quantile(99))
	m[name+"_mean"] = round3(d.mean())
}
