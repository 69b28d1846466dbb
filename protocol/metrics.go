package protocol

// MetricWANRounds names the wan_rounds per-operation metric: the longest
// chain of sequential cross-DC request→response exchanges on the
// operation's critical path, parallel requests counting once (ARCHITECTURE.md,
// "Metrics"). 0 means the operation was answered within the session's DC.
const MetricWANRounds = "wan_rounds"

// SetMetric records one per-operation metric in r.Metrics.
func (r *Reply) SetMetric(name string, v float64) {
	if r.Metrics == nil {
		r.Metrics = map[string]float64{}
	}
	r.Metrics[name] = v
}

// SetWANRounds records the operation's wan_rounds and sets WideArea to
// match (n > 0), so the two can never disagree.
func (r *Reply) SetWANRounds(n int) {
	r.SetMetric(MetricWANRounds, float64(n))
	r.WideArea = n > 0
}
