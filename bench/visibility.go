package bench

import (
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// Visibility of a write (docs/formats/results.md): the moment
// it is readable at the last node of protocol.VisibleAt for its key (data
// replicas by default; also metadata-only replicas for a protocol that has
// them), measured from its acknowledgement (visibility_ms) and from its
// issue (visibility_from_issue_ms, C3's and Cassandra's definition). Each
// write also records its bound (visibility_bound_ms): the nominal one-way
// delay from the writer's DC to the farthest DC of that set, plus the
// processing the write needs at least (Recorder.SetProcessing: in a
// simulated run, one service time at the node that takes the write and one
// at the replica that stores it) — no protocol can do better from issue,
// jitter aside — and the ratio of its visibility from issue to its bound
// (visibility_ratio): 1 is a protocol at the network's speed.
//
// A write is identified by its value's ID when a report carries the value.
// A metadata-only report carries only the key and the protocol's version;
// the version is tied to the write by the first data report of the same
// key and version, and a metadata-only report that comes before it waits
// for it.

// visState follows one write until every node of its VisibleAt set has it.
type visState struct {
	key      string
	expected []protocol.NodeID // VisibleAt, sorted (vis.nodes)
	vis      *keyVis
	seen     []protocol.NodeID
	last     time.Duration
	version  uint64 // 0 until a report ties one to the write
	acked    bool
	warmup   bool // written during the warm-up: forgotten unrecorded
	ackAt    time.Duration
	issueAt  time.Duration
	dc       string        // the writer's
	ordered  time.Duration // the ordered bound, when the recorder has one (ordered.go)
}

// verKey is one version of one key.
type verKey struct {
	key     string
	version uint64
}

// sighting is a metadata-only report not yet tied to a write.
type sighting struct {
	node protocol.NodeID
	at   time.Duration
}

// visHists are the visibility distributions of a set of writes: three in
// microseconds, and the ratio of visibility from issue to the bound in
// thousandths.
type visHists struct {
	ack, issue, bound, ratio *hdrhistogram.Histogram
}

func newVisHists() *visHists {
	return &visHists{ack: newLatencyHist(), issue: newLatencyHist(), bound: newLatencyHist(), ratio: newLatencyHist()}
}

func (v *visHists) record(ack, issue, bound time.Duration) {
	_ = v.ack.RecordValue(max(1, ack.Microseconds()))
	_ = v.issue.RecordValue(max(1, issue.Microseconds()))
	_ = v.bound.RecordValue(max(1, bound.Microseconds()))
	if bound > 0 {
		_ = v.ratio.RecordValue(max(1, int64(1000*float64(issue)/float64(bound))))
	}
}

// visFields are where a result (or a DC's part of it) keeps visibility.
type visFields struct {
	ack, issue, bound **Percentiles
	ratio             **Ratio
}

// fill sets the visibility fields when any write's visibility was
// recorded (the ratio when some write had a positive bound).
func (v *visHists) fill(f visFields) {
	if v.ack.TotalCount() == 0 {
		return
	}
	*f.ack, *f.issue, *f.bound = percentiles(v.ack), percentiles(v.issue), percentiles(v.bound)
	if v.ratio.TotalCount() > 0 {
		*f.ratio = &Ratio{P50: round3(float64(v.ratio.ValueAtQuantile(50)) / 1000), P99: round3(float64(v.ratio.ValueAtQuantile(99)) / 1000)}
	}
}

func percentiles(h *hdrhistogram.Histogram) *Percentiles {
	return &Percentiles{P50: usToMs(h.ValueAtQuantile(50)), P99: usToMs(h.ValueAtQuantile(99)), Mean: round3(h.Mean() / 1000)}
}

// Visible implements runtime.Observer.
func (r *Recorder) Visible(now time.Duration, node protocol.NodeID, v protocol.Visibility) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vk := verKey{v.Key, v.Version}
	if v.Value == nil {
		if v.Version == 0 {
			return // neither value nor version: nothing to tie it to
		}
		id, ok := r.versions[vk]
		if !ok {
			r.pendingMeta[vk] = append(r.pendingMeta[vk], sighting{node, now})
			return
		}
		st := r.state(id, v.Key)
		st.sight(node, now)
		r.maybeDone(id, st)
		return
	}
	id := workload.ValueID(v.Value)
	st := r.state(id, v.Key)
	if v.Version != 0 && st.version == 0 {
		st.version = v.Version
		r.versions[vk] = id
		for _, s := range r.pendingMeta[vk] {
			st.sight(s.node, s.at)
		}
		delete(r.pendingMeta, vk)
	}
	st.sight(node, now)
	r.maybeDone(id, st)
}

// sight records that node has the write since now; nodes outside the
// write's VisibleAt set do not count.
func (st *visState) sight(node protocol.NodeID, now time.Duration) {
	if _, ok := slices.BinarySearch(st.expected, node); !ok || slices.Contains(st.seen, node) {
		return
	}
	st.seen = append(st.seen, node)
	st.last = max(st.last, now)
}

func (r *Recorder) state(id, key string) *visState {
	st, ok := r.writes[id]
	if !ok {
		kv := r.expectedAt(key)
		st = &visState{key: key, expected: kv.nodes, vis: kv}
		r.writes[id] = st
	}
	return st
}

// keyVis is what the visibility of every write to one key shares,
// computed once per key (Recorder.expected): the nodes it must reach,
// sorted and without duplicates (protocol.VisibleAt), and by writer's DC
// the one-way delay to the farthest of them.
type keyVis struct {
	nodes []protocol.NodeID
	far   []dcFar
}

// dcFar is the nominal one-way delay from DC dc to the farthest node of a
// keyVis (ok is false when dc or none of the nodes' DCs is in the
// topology).
type dcFar struct {
	dc  string
	far time.Duration
	ok  bool
}

// expectedAt returns key's keyVis, made at its first write; its nodes
// are shared by the key's writes, which only read them.
func (r *Recorder) expectedAt(key string) *keyVis {
	e, ok := r.expected[key]
	if !ok {
		e = &keyVis{nodes: slices.Compact(slices.Sorted(slices.Values(protocol.VisibleAt(r.proto, r.topo, key))))}
		r.expected[key] = e
	}
	return e
}

// farFrom returns the one-way delay from dc to the farthest of k's nodes
// (ok false: no node counts, see dcFar), found once per DC.
func (k *keyVis) farFrom(t *topology.Topology, dc string) (time.Duration, bool) {
	for _, f := range k.far {
		if f.dc == dc {
			return f.far, f.ok
		}
	}
	f := dcFar{dc: dc}
	for _, n := range k.nodes {
		if t.HasDC(dc) && t.HasDC(n.DC()) {
			f.far, f.ok = max(f.far, t.OneWay(dc, n.DC())), true
		}
	}
	k.far = append(k.far, f)
	return f.far, f.ok
}

// acked records a write's acknowledgement by the session of dc that issued
// it at start.
func (r *Recorder) acked(dc string, kv protocol.KV, start, end time.Duration) {
	id := workload.ValueID(kv.Value)
	st := r.state(id, kv.Key)
	st.acked, st.ackAt, st.issueAt, st.dc = true, end, start, dc
	if r.ordered != nil {
		st.ordered = r.ordered.bound(sessionOf(id), dc, start, r.boundOf(st), r.processing, st.expected)
	}
	r.maybeDone(id, st)
}

// boundOf is a write's per-write bound: the one-way delay from its
// writer's DC to the farthest node it must reach, plus the processing.
func (r *Recorder) boundOf(st *visState) time.Duration {
	bound := r.processing
	if far, ok := st.vis.farFrom(r.topo, st.dc); ok {
		bound = max(bound, far+r.processing)
	}
	return bound
}

// maybeDone records the visibility of a write once it is acknowledged and
// visible at every node it must reach.
func (r *Recorder) maybeDone(id string, st *visState) {
	if !st.acked || len(st.seen) < len(st.expected) {
		return
	}
	if st.warmup {
		delete(r.writes, id)
		if st.version != 0 {
			delete(r.versions, verKey{st.key, st.version})
		}
		return
	}
	bound := r.boundOf(st)
	ack, issue := max(st.last-st.ackAt, 0), max(st.last-st.issueAt, 0)
	r.vis.record(ack, issue, bound)
	if r.ordered != nil {
		r.ordered.record(st.ordered, issue)
	}
	r.dc(st.dc).vis.record(ack, issue, bound)
	if r.load != nil {
		r.visWrites = append(r.visWrites, visWrite{issueAt: st.issueAt, fromIssue: issue, dc: st.dc, key: st.key})
	}
	delete(r.writes, id)
	if st.version != 0 {
		delete(r.versions, verKey{st.key, st.version})
	}
}
