package bench

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// Recorder collects the metrics of one run: operation latencies, errors,
// local fraction, visibility and network counters. It is safe for
// concurrent use, so the live runtime can share it between goroutines; it
// implements runtime.Observer.
type Recorder struct {
	mu       sync.Mutex
	proto    protocol.Protocol
	topo     *topology.Topology
	lat      map[protocol.Op]*hdrhistogram.Histogram
	errs     map[string]int64
	tags     map[string]int64
	ok       int64
	local    int64
	messages int64
	wanBytes int64
	vis      *hdrhistogram.Histogram
	writes   map[string]*visState // value ID -> visibility progress
	timeline *timeline            // nil unless RecordTimeline was called
	// gets counts successful single-key gets, getData those that
	// returned data (a loaded or a written value).
	gets, getData int64
}

// visState follows one write until every replica has it.
type visState struct {
	expected int
	seen     []protocol.NodeID
	last     time.Duration
	acked    bool
	ackAt    time.Duration
}

// NewRecorder returns an empty Recorder for a run of p on t.
func NewRecorder(p protocol.Protocol, t *topology.Topology) *Recorder {
	return &Recorder{
		proto:  p,
		topo:   t,
		lat:    map[protocol.Op]*hdrhistogram.Histogram{},
		errs:   map[string]int64{},
		tags:   map[string]int64{},
		vis:    newLatencyHist(),
		writes: map[string]*visState{},
	}
}

// MessageSent implements runtime.Observer.
func (r *Recorder) MessageSent(_ time.Duration, from, to protocol.NodeID, bytes int) {
	r.mu.Lock()
	r.messages++
	if from.DC() != to.DC() {
		r.wanBytes += int64(bytes)
	}
	r.mu.Unlock()
}

// Visible implements runtime.Observer.
func (r *Recorder) Visible(now time.Duration, node protocol.NodeID, key string, value []byte) {
	id := workload.ValueID(value)
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.state(id, key)
	for _, n := range st.seen {
		if n == node {
			return
		}
	}
	st.seen = append(st.seen, node)
	if now > st.last {
		st.last = now
	}
	r.maybeDone(id, st)
}

func (r *Recorder) state(id, key string) *visState {
	st, ok := r.writes[id]
	if !ok {
		st = &visState{expected: len(r.proto.Replicas(r.topo, key))}
		r.writes[id] = st
	}
	return st
}

// maybeDone records the visibility of a write once it is acknowledged and
// visible at every replica.
func (r *Recorder) maybeDone(id string, st *visState) {
	if !st.acked || len(st.seen) < st.expected {
		return
	}
	d := st.last - st.ackAt
	if d < 0 {
		d = 0
	}
	_ = r.vis.RecordValue(max(1, d.Microseconds()))
	delete(r.writes, id)
}

// Done records a completed client operation that started at start and
// ended at end (runtime clock).
func (r *Recorder) Done(req protocol.Request, rep protocol.Reply, start, end time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timeline != nil {
		r.timeline.add(req.Op, rep.Err != protocol.OK, start, end)
	}
	if rep.Err != protocol.OK {
		r.errs[req.Op.String()]++
		return
	}
	r.ok++
	if !rep.WideArea {
		r.local++
	}
	for _, t := range rep.Tags {
		r.tags[t]++
	}
	h, ok := r.lat[req.Op]
	if !ok {
		h = newLatencyHist()
		r.lat[req.Op] = h
	}
	_ = h.RecordValue(max(1, (end - start).Microseconds()))
	if req.Op == protocol.OpGet {
		r.gets++
		if rep.Value != nil {
			r.getData++
		}
	}
	var written []protocol.KV
	switch req.Op {
	case protocol.OpPut:
		written = []protocol.KV{{Key: req.Key, Value: req.Value}}
	case protocol.OpWriteTxn:
		written = req.Writes
	}
	for _, kv := range written {
		id := workload.ValueID(kv.Value)
		st := r.state(id, kv.Key)
		st.acked, st.ackAt = true, end
		r.maybeDone(id, st)
	}
}

// fill copies the recorded metrics into res.
func (r *Recorder) fill(res *Result, duration time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res.Ops = r.ok
	if duration > 0 {
		res.ThroughputOpsS = round3(float64(r.ok) / duration.Seconds())
	}
	res.LatencyMs = map[string]Latency{}
	for op, h := range r.lat {
		res.LatencyMs[op.String()] = summarize(h)
	}
	if r.ok > 0 {
		f := round3(float64(r.local) / float64(r.ok))
		res.LocalFraction = &f
	}
	if r.gets > 0 {
		f := round3(float64(r.getData) / float64(r.gets))
		res.GetDataFraction = &f
	}
	if r.vis.TotalCount() > 0 {
		res.VisibilityMs = &Percentiles{P50: usToMs(r.vis.ValueAtQuantile(50)), P99: usToMs(r.vis.ValueAtQuantile(99))}
	}
	if tg, ok := r.proto.(protocol.Tagger); ok && r.ok > 0 {
		res.ProtocolMetrics = map[string]float64{}
		for _, t := range tg.Tags() {
			res.ProtocolMetrics[t+"_fraction"] = round3(float64(r.tags[t]) / float64(r.ok))
		}
	}
	// Tags a protocol sets only for some operations (e.g. a transaction's
	// second round) are reported when they occurred.
	for t, n := range r.tags {
		if res.ProtocolMetrics == nil {
			res.ProtocolMetrics = map[string]float64{}
		}
		if _, ok := res.ProtocolMetrics[t+"_fraction"]; !ok {
			res.ProtocolMetrics[t+"_fraction"] = round3(float64(n) / float64(max(r.ok, 1)))
		}
	}
	res.Errors = map[string]int64{"get": 0, "put": 0}
	for op, n := range r.errs {
		res.Errors[op] = n
	}
	if r.timeline != nil {
		res.Timeline = r.timeline.series()
	}
}
