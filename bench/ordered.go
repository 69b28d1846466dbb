package bench

import (
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// RingOrdered is implemented by a protocol that installs a session's
// writes in program order across the DCs of a ring (Karma §4.1.2): a
// write becomes visible at a ring's node only once the session's earlier
// writes are stored in that ring, wherever in the ring their keys live.
// For such a protocol the recorder also reports the ordered bound.
type RingOrdered interface {
	RingOrdered() bool
}

// The ordered bound of a write (visibility_bound_ordered_ms,
// docs/formats/results.md) is the least visibility from issue of any
// implementation of that rule, messages taking their nominal one-way
// delays and nothing else taking time beyond the processing of the
// per-write bound. At a node X of its VisibleAt set the write is visible
// no earlier than its per-write bound allows, and no earlier than X can
// know that each earlier write of its session is stored at that write's
// node Y in X's ring: that write's issue, plus the one-way delay from the
// writer's DC to Y's and the processing, plus the shortest one-way path
// from Y's DC to X's. The writes of one write-only transaction are not
// ordered among themselves, and put-after dependencies on other
// sessions' writes are left out: both omissions only lower the bound.

// orderedState is what the ordered bound needs across writes: the
// topology's shortest one-way paths between DCs and, per session, the
// frontier its earlier writes set at each DC.
type orderedState struct {
	dcs      map[string]int
	ring     []int // by DC index: its ring, or -1
	shortest [][]time.Duration
	sessions map[string]*sessionFrontier
	hist     *hdrhistogram.Histogram // ordered bounds, µs
	ratio    *hdrhistogram.Histogram // visibility from issue / ordered bound, thousandths
}

// sessionFrontier holds, by DC index, the earliest moment a node of that
// DC can know that the session's earlier writes are stored in its ring:
// before is over the operations before the one issued at curAt, after
// includes that operation's writes.
type sessionFrontier struct {
	curAt         time.Duration
	before, after []time.Duration
}

// newOrderedState returns the state for protocol p on t, or nil when p
// does not order writes across a ring.
func newOrderedState(p protocol.Protocol, t *topology.Topology) *orderedState {
	ro, ok := p.(RingOrdered)
	if !ok || !ro.RingOrdered() || t == nil {
		return nil
	}
	names := t.DCNames()
	o := &orderedState{dcs: map[string]int{}, ring: make([]int, len(names)), sessions: map[string]*sessionFrontier{},
		hist: newLatencyHist(), ratio: newLatencyHist()}
	o.shortest = make([][]time.Duration, len(names))
	for i, a := range names {
		o.dcs[a], o.ring[i] = i, t.RingOf(a)
		o.shortest[i] = make([]time.Duration, len(names))
		for j, b := range names {
			o.shortest[i][j] = t.OneWay(a, b)
		}
	}
	for k := range names { // Floyd–Warshall: a relay may be faster
		for i := range names {
			for j := range names {
				if via := o.shortest[i][k] + o.shortest[k][j]; via < o.shortest[i][j] {
					o.shortest[i][j] = via
				}
			}
		}
	}
	return o
}

// sessionOf is the session that wrote the value with ID id
// (workload.Client's IDs are "<session>-<seq>").
func sessionOf(id string) string {
	if i := strings.LastIndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

// bound returns the ordered bound of a write by session (issued at issue
// from DC dc) to nodes, whose per-write bound is perWrite, and adds the
// write to the session's frontier.
func (o *orderedState) bound(session, dc string, issue, perWrite, processing time.Duration, nodes []protocol.NodeID) time.Duration {
	w, ok := o.dcs[dc]
	if !ok {
		return perWrite
	}
	s := o.sessions[session]
	if s == nil {
		s = &sessionFrontier{curAt: -1, before: make([]time.Duration, len(o.dcs)), after: make([]time.Duration, len(o.dcs))}
		o.sessions[session] = s
	}
	if issue != s.curAt { // a new operation: it follows every earlier one
		copy(s.before, s.after)
		s.curAt = issue
	}
	worst := perWrite
	for _, n := range nodes {
		y, ok := o.dcs[n.DC()]
		if !ok {
			continue
		}
		worst = max(worst, s.before[y]-issue)
		stored := issue + o.shortest[w][y] + processing
		for x := range s.after {
			if x == y || (o.ring[y] >= 0 && o.ring[x] == o.ring[y]) {
				s.after[x] = max(s.after[x], stored+o.shortest[y][x])
			}
		}
	}
	return worst
}

// record adds a write's ordered bound and its visibility from issue.
func (o *orderedState) record(bound, issue time.Duration) {
	_ = o.hist.RecordValue(max(1, bound.Microseconds()))
	if bound > 0 {
		_ = o.ratio.RecordValue(max(1, int64(1000*float64(issue)/float64(bound))))
	}
}

// fill sets the result's ordered bound and ratio when any was recorded.
func (o *orderedState) fill(res *Result) {
	if o == nil || o.hist.TotalCount() == 0 {
		return
	}
	res.VisibilityBoundOrderedMs = percentiles(o.hist)
	if o.ratio.TotalCount() > 0 {
		res.VisibilityRatioOrdered = &Ratio{P50: round3(float64(o.ratio.ValueAtQuantile(50)) / 1000), P99: round3(float64(o.ratio.ValueAtQuantile(99)) / 1000)}
	}
}
