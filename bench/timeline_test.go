package bench

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// TestTimelineBuckets feeds a recorder operations at known times and
// checks each interval's throughput (by completion), latency and failures
// (by issue), the shorter last interval, and that operations completing
// after the end count in their issue interval's latency but not in the
// throughput.
func TestTimelineBuckets(t *testing.T) {
	p, err := protocol.Lookup("cops")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder(p, tp)
	rec.RecordTimeline(100*time.Millisecond, 250*time.Millisecond)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	get := protocol.Request{Op: protocol.OpGet, Key: "k"}
	ok := protocol.Reply{Op: protocol.OpGet}
	timeout := protocol.Reply{Op: protocol.OpGet, Err: protocol.ErrTimeout}
	rec.Done("a", get, ok, ms(0), ms(10))       // issued and completed in bucket 0
	rec.Done("a", get, ok, ms(50), ms(80))      // issued and completed in bucket 0
	rec.Done("a", get, ok, ms(100), ms(220))    // issued in bucket 1, completed in 2
	rec.Done("a", get, timeout, ms(0), ms(230)) // failed, issued in bucket 0
	rec.Done("a", get, ok, ms(240), ms(260))    // issued in bucket 2, completed after the end
	var res Result
	rec.fill(&res, ms(250))
	if len(res.Timeline) != 3 {
		t.Fatalf("%d buckets, want 3: %+v", len(res.Timeline), res.Timeline)
	}
	b0, b1, b2 := res.Timeline[0], res.Timeline[1], res.Timeline[2]
	if b0.StartS != 0 || b0.Ops != 2 || b0.ThroughputOpsS != 20 || b0.Issued["get"] != 2 || b0.Failed != 1 ||
		math.Abs(b0.LatencyMs["get"].Mean-20) > 0.2 { // two significant figures
		t.Errorf("bucket 0 = %+v", b0)
	}
	if b1.StartS != 0.1 || b1.Ops != 0 || b1.ThroughputOpsS != 0 || b1.Issued["get"] != 1 || b1.LatencyMs["get"].P50 < 119 {
		t.Errorf("bucket 1 = %+v", b1)
	}
	// The last bucket is 50 ms long.
	if b2.StartS != 0.2 || b2.Ops != 1 || b2.ThroughputOpsS != 20 || b2.Failed != 0 || b2.Issued["get"] != 1 ||
		math.Abs(b2.LatencyMs["get"].Mean-20) > 0.2 {
		t.Errorf("bucket 2 = %+v", b2)
	}
	if res.Ops != 4 {
		t.Errorf("ops %d, want 4 (the timeline does not change the totals)", res.Ops)
	}
}

// TestSimTimeline runs cops on local3 with 300 ms added to every message
// of DC b in the middle third of the run: every interval has operations and
// their sum is at most the run's; a run without a timeline has none in its
// JSON. (repro's test checks that congestion shows in the latencies.)
func TestSimTimeline(t *testing.T) {
	spec := smallSpec(t, "cops", "local3", 1, false)
	spec.Duration = 3 * time.Second
	spec.Timeline = 250 * time.Millisecond
	spec.Faults = faults.Schedule{{At: time.Second, Delay: &faults.Delay{Target: "dc:b", AddMs: 300, For: time.Second}}}
	res, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Timeline) != 12 {
		t.Fatalf("%d buckets, want 12", len(res.Timeline))
	}
	var sum int64
	for _, b := range res.Timeline {
		sum += b.Ops
	}
	if sum == 0 || sum > res.Ops {
		t.Errorf("timeline ops %d, run ops %d", sum, res.Ops)
	}
	for i, b := range res.Timeline {
		if b.Ops == 0 {
			t.Errorf("bucket %d has no operations", i)
		}
	}
	var buf bytes.Buffer
	spec.Timeline = 0
	res, err = RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("timeline")) {
		t.Errorf("result JSON has a timeline it was not asked for")
	}
}
