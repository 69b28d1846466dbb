package bench

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// Recorder collects the metrics of one run: operation latencies, errors,
// local fraction, per-operation metrics, visibility (visibility.go), the
// same broken down per DC (perdc.go) and network counters. It is safe for
// concurrent use, so the live runtime can share it between goroutines; it
// implements runtime.Observer.
type Recorder struct {
	mu      sync.Mutex
	proto   protocol.Protocol
	topo    *topology.Topology
	all     *opStats
	perDC   map[string]*dcStats // the sessions' DCs, and the writers'
	errs    map[string]int64
	tags    map[string]int64
	metrics map[string]*distribution // Reply.Metrics by name
	vis     *visHists
	// ordered is the ordered bound's state, nil for a protocol that does
	// not order writes across a ring (ordered.go).
	ordered *orderedState
	writes  map[string]*visState // value ID -> visibility progress
	// expected caches, by key, the sorted VisibleAt set of a write to it
	// and its farthest delays (keyVis, shared read-only by the key's
	// writes): protocol.VisibleAt is a function of the protocol, the
	// topology and the key, and builds its node IDs anew on each call.
	expected map[string]*keyVis
	// versions ties a reported version to its write's value ID;
	// pendingMeta holds metadata-only reports of versions not tied yet.
	versions    map[verKey]string
	pendingMeta map[verKey][]sighting
	timeline    *timeline // nil unless RecordTimeline was called
	// gets counts successful single-key gets, getData those that
	// returned data (a loaded or a written value, not a tombstone).
	gets, getData int64
	// window collects the operations since the last Progress.Window, once
	// a progress callback has asked (nil until then); windowStart is
	// when it began.
	window      *opStats
	windowStart time.Duration
	// processing is the least processing time a write needs, added to
	// each write's visibility bound (SetProcessing).
	processing time.Duration
	// load counts the inputs' sojourn at each node (nil unless
	// measureSojourn), and visWrites keeps the recorded writes for the
	// queued visibility bound (sojourn.go).
	load      *sojourns
	visWrites []visWrite
	// warmup: operations issued before it are left out (SetWarmup).
	warmup time.Duration
}

// SetWarmup leaves the operations issued before d (runtime clock) out of
// every metric but the timeline: latency, throughput, errors, tags,
// per-operation metrics, per-DC figures and their writes' visibility. A
// cache or a replication pipeline then warms up before it is measured
// (k2.txt §VII-B drops the first minutes of each trial). Those operations
// still run and still enter the history, so they are checked.
func (r *Recorder) SetWarmup(d time.Duration) {
	r.mu.Lock()
	r.warmup = d
	r.mu.Unlock()
}

// SetProcessing sets the least processing time a write needs on its way
// to its farthest replica, which each write's visibility bound adds to the
// one-way delay (visibility.go). RunSim sets two service times: one input
// at the node that takes the write, one at the replica that stores it.
func (r *Recorder) SetProcessing(d time.Duration) {
	r.mu.Lock()
	r.processing = d
	r.mu.Unlock()
}

// NewRecorder returns an empty Recorder for a run of p on t.
func NewRecorder(p protocol.Protocol, t *topology.Topology) *Recorder {
	return &Recorder{
		proto:       p,
		topo:        t,
		all:         newOpStats(),
		perDC:       map[string]*dcStats{},
		errs:        map[string]int64{},
		tags:        map[string]int64{},
		metrics:     map[string]*distribution{},
		vis:         newVisHists(),
		ordered:     newOrderedState(p, t),
		writes:      map[string]*visState{},
		expected:    map[string]*keyVis{},
		versions:    map[verKey]string{},
		pendingMeta: map[verKey][]sighting{},
	}
}

// MessageSent implements runtime.Observer. It records nothing: a run's
// message and byte counts are its runtime's (sim.Stats, live.Stats), which
// RunSim and the live bench copy into the result. (It counted both here
// too, under the lock, for every message, and nothing read them.)
func (r *Recorder) MessageSent(time.Duration, protocol.NodeID, protocol.NodeID, int) {}

// Done records a completed client operation of a session in datacenter
// dc that started at start and ended at end (runtime clock).
func (r *Recorder) Done(dc string, req protocol.Request, rep protocol.Reply, start, end time.Duration) {
	r.DoneIntended(dc, req, rep, start, start, end)
}

// DoneIntended records an operation of an open-loop client that was due
// at intended but issued at start (later, when the session's previous
// operation was still outstanding): its latency and timeline interval
// count from intended, so that a slow system's queueing shows (YCSB's
// "intended" latency, without coordinated omission); the visibility of
// its write counts from start.
func (r *Recorder) DoneIntended(dc string, req protocol.Request, rep protocol.Reply, intended, start, end time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timeline != nil {
		r.timeline.add(req.Op, rep.Err != protocol.OK, intended, end)
	}
	if start < r.warmup {
		r.warmedUp(req, rep)
		return
	}
	us := (end - intended).Microseconds()
	r.all.done(req.Op, rep, us)
	if r.window != nil {
		r.window.done(req.Op, rep, us)
	}
	r.dc(dc).ops.done(req.Op, rep, us)
	if rep.Err != protocol.OK {
		r.errs[req.Op.String()]++
		return
	}
	for _, t := range rep.Tags {
		r.tags[t]++
	}
	for _, m := range rep.Metrics {
		d, ok := r.metrics[m.Name]
		if !ok {
			d = newDistribution()
			r.metrics[m.Name] = d
		}
		d.add(m.Value)
	}
	if req.Op == protocol.OpGet {
		r.remoteGet(dc, req.Key, rep, us)
		r.gets++
		if rep.Value != nil && !protocol.IsTombstone(rep.Value) {
			r.getData++
		}
	}
	for _, kv := range writtenKVs(req) {
		r.acked(dc, kv, start, end)
	}
}

// writtenKVs lists what a successful put or write_txn wrote.
func writtenKVs(req protocol.Request) []protocol.KV {
	switch req.Op {
	case protocol.OpPut:
		return []protocol.KV{{Key: req.Key, Value: req.Value}}
	case protocol.OpWriteTxn:
		return req.Writes
	}
	return nil
}

// warmedUp forgets an operation issued during the warm-up: its writes'
// visibility is tracked no further. The caller holds the lock.
func (r *Recorder) warmedUp(req protocol.Request, rep protocol.Reply) {
	if rep.Err != protocol.OK {
		return
	}
	for _, kv := range writtenKVs(req) {
		id := workload.ValueID(kv.Value)
		st := r.state(id, kv.Key)
		st.acked, st.warmup = true, true
		r.maybeDone(id, st)
	}
}

// fill copies the recorded metrics into res.
func (r *Recorder) fill(res *Result, duration time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ok := r.all.ok
	res.Ops = ok
	if duration > 0 {
		res.ThroughputOpsS = round3(float64(ok) / duration.Seconds())
	}
	res.LatencyMs = r.all.latency()
	res.LocalFraction = r.all.localFraction()
	res.AllLocalFraction = r.all.allLocalFraction()
	r.vis.fill(visFields{&res.VisibilityMs, &res.VisibilityFromIssueMs, &res.VisibilityBoundMs, &res.VisibilityRatio})
	r.fillQueued(res)
	r.ordered.fill(res)
	if r.gets > 0 {
		f := round3(float64(r.getData) / float64(r.gets))
		res.GetDataFraction = &f
	}
	if tg, isTagger := r.proto.(protocol.Tagger); isTagger && ok > 0 {
		res.ProtocolMetrics = map[string]float64{}
		for _, t := range tg.Tags() {
			res.ProtocolMetrics[t+"_fraction"] = round3(float64(r.tags[t]) / float64(ok))
		}
	}
	// Tags a protocol sets only for some operations (e.g. a transaction's
	// second round) are reported when they occurred.
	for t, n := range r.tags {
		if res.ProtocolMetrics == nil {
			res.ProtocolMetrics = map[string]float64{}
		}
		if _, seen := res.ProtocolMetrics[t+"_fraction"]; !seen {
			res.ProtocolMetrics[t+"_fraction"] = round3(float64(n) / float64(max(ok, 1)))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.metrics)) {
		if res.ProtocolMetrics == nil {
			res.ProtocolMetrics = map[string]float64{}
		}
		r.metrics[name].fillMetric(res.ProtocolMetrics, name)
	}
	res.Errors = map[string]int64{"get": 0, "put": 0}
	for op, n := range r.errs {
		res.Errors[op] = n
	}
	r.fillPerDC(res, duration.Seconds())
	if r.timeline != nil {
		res.Timeline = r.timeline.series()
	}
}
