package protocol

// MetricWANRounds names the wan_rounds per-operation metric: the longest
// chain of sequential cross-DC request→response exchanges on the
// operation's critical path, parallel requests counting once (ARCHITECTURE.md,
// "Metrics"). 0 means the operation was answered within the session's DC.
const MetricWANRounds = "wan_rounds"

// Metric is one numeric fact about an operation (Reply.Metrics).
type Metric struct {
	Name  string
	Value float64
}

// Metrics are a reply's metrics, each name at most once, in the order
// they were first set: a slice rather than a map, since a reply carries
// one or a few (a map per reply was 7% of the simulator's allocation).
type Metrics []Metric

// Get returns the metric called name and whether the reply carries it.
func (ms Metrics) Get(name string) (float64, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

// Value returns the metric called name, 0 when the reply does not carry
// it.
func (ms Metrics) Value(name string) float64 {
	v, _ := ms.Get(name)
	return v
}

// SetMetric records one per-operation metric in r.Metrics, replacing the
// value of one set before under the same name.
func (r *Reply) SetMetric(name string, v float64) {
	for i := range r.Metrics {
		if r.Metrics[i].Name == name {
			r.Metrics[i].Value = v
			return
		}
	}
	r.Metrics = append(r.Metrics, Metric{Name: name, Value: v})
}

// SetWANRounds records the operation's wan_rounds and sets WideArea to
// match (n > 0), so the two can never disagree.
func (r *Reply) SetWANRounds(n int) {
	r.SetMetric(MetricWANRounds, float64(n))
	r.WideArea = n > 0
}
