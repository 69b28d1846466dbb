package bench

import (
	"testing"
	"time"
)

// BenchmarkSimulator reports how many simulated messages (each encoded and
// decoded by the wire codec) the simulator handles per CPU-second, running
// cops on karma-aws8 with ycsb-95-5.
func BenchmarkSimulator(b *testing.B) {
	var msgs, events int64
	start := time.Now()
	for i := 0; i < b.N; i++ {
		spec := smallSpec(b, "cops", "karma-aws8", uint64(i+1), false)
		spec.Duration = 5 * time.Second
		spec.Clients = 64
		res, err := RunSim(spec)
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Messages
		events += res.Ops
	}
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(msgs)/secs, "msgs/s")
	b.ReportMetric(float64(events)/secs, "client-ops/s")
}
