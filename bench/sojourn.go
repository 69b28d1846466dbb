package bench

import (
	"slices"
	"time"
	"unsafe"

	"github.com/causeway/causeway/protocol"
)

// The queued visibility bound (visibility_bound_queued_ms) counts
// processing as the run measured it: where visibility_bound_ms adds one
// service time at the node that takes a write and one at the replica that
// stores it, this bound adds those nodes' sojourn (queue wait + service)
// at the time: the mean over the inputs that arrived at the node within
// sojournWindow around the write.
//
//   - The node that takes the write is not known per write, so it is the
//     writer's DC's: the inputs from client sessions at that DC's server
//     nodes (COPS's local storage nodes, Karma's coordinators), around the
//     write's issue.
//   - The replica that stores it is each node r of the write's VisibleAt
//     set: its inputs (all of them: a replicated write waits in the same
//     queue), around the time the write would reach it with no protocol
//     wait, issue + taker's sojourn + one-way delay.
//
// The bound is the largest over r of one-way(writer, r) + taker's sojourn
// + r's sojourn. A node that received nothing in the window was idle: its
// sojourn is its mean service time over the run (half the least processing
// if it served nothing at all).
//
// The same terms break each write's visibility from issue down
// (visibility_breakdown_ms): network (the one-way delay to the bound's
// replica), queue (the taker's and that replica's mean queue wait), service
// (their mean service) and protocol, the rest: dependency checks, program
// order, extra hops and retransmissions, less any gain from jitter.
// It is an accounting by node means, not a trace of the write's messages.

// sojournBucket is the width of the time buckets inputs are counted in,
// and sojournWindow (an odd multiple of it) the window around a write.
const (
	sojournBucket = 20 * time.Millisecond
	sojournWindow = 5 * sojournBucket
)

// sojournSum sums the inputs of a bucket: count, wait and service.
type sojournSum struct {
	n             int64
	wait, service time.Duration
}

func (s *sojournSum) add(o sojournSum) {
	s.n += o.n
	s.wait += o.wait
	s.service += o.service
}

// sojournSeries is one node's (or one DC's client) inputs by the bucket
// of their arrival.
type sojournSeries struct {
	buckets []sojournSum
	total   sojournSum
}

func (s *sojournSeries) add(arrived, wait, service time.Duration) {
	b := int(max(arrived, 0) / sojournBucket)
	if b >= len(s.buckets) {
		s.buckets = slices.Grow(s.buckets, b+1-len(s.buckets))[:b+1]
	}
	one := sojournSum{1, wait, service}
	s.buckets[b].add(one)
	s.total.add(one)
}

// around returns the mean wait and service of the inputs that arrived
// within sojournWindow around t; an idle window waits nothing and serves
// at the series' mean, or idle when the series is empty.
func (s *sojournSeries) around(t, idle time.Duration) (wait, service time.Duration) {
	if s == nil {
		return 0, idle
	}
	half := int(sojournWindow / sojournBucket / 2)
	c := int(max(t, 0) / sojournBucket)
	var sum sojournSum
	for b := max(c-half, 0); b <= c+half && b < len(s.buckets); b++ {
		sum.add(s.buckets[b])
	}
	if sum.n == 0 {
		if s.total.n == 0 {
			return 0, idle
		}
		return 0, s.total.service / time.Duration(s.total.n)
	}
	return sum.wait / time.Duration(sum.n), sum.service / time.Duration(sum.n)
}

// sojourns are a run's inputs by node and, from client sessions, by DC.
type sojourns struct {
	nodes  map[protocol.NodeID]*sojournSeries
	client map[string]*sojournSeries
	// byAddr caches, by the address of a node ID's bytes, the node's
	// series and its DC's client series (series): Served runs for every
	// input of every server, and the simulator names a node by the same
	// string each time.
	byAddr [servedCache]servedRef
}

// servedRef is a node, its series and (once a client input came) its
// DC's client series; the entry keeps id alive, so an equal address and
// length is the same string.
type servedRef struct {
	id           protocol.NodeID
	node, client *sojournSeries
}

// servedCache is the number of sojourns.byAddr slots (a power of two).
const servedCache = 128

// series returns node's entry: its series, made if it has none yet.
func (l *sojourns) series(node protocol.NodeID) *servedRef {
	if len(node) == 0 {
		return &servedRef{id: node, node: l.nodeSeries(node)}
	}
	p := unsafe.StringData(string(node))
	e := &l.byAddr[(uintptr(unsafe.Pointer(p))>>4)&(servedCache-1)]
	if e.node != nil && len(e.id) == len(node) && unsafe.StringData(string(e.id)) == p {
		return e
	}
	*e = servedRef{id: node, node: l.nodeSeries(node)}
	return e
}

// nodeSeries returns node's series, made if it has none yet.
func (l *sojourns) nodeSeries(node protocol.NodeID) *sojournSeries {
	s := l.nodes[node]
	if s == nil {
		s = &sojournSeries{}
		l.nodes[node] = s
	}
	return s
}

// clientSeries returns the client series of dc, made if it has none yet.
func (l *sojourns) clientSeries(dc string) *sojournSeries {
	c := l.client[dc]
	if c == nil {
		c = &sojournSeries{}
		l.client[dc] = c
	}
	return c
}

// measureSojourn makes the Recorder count sojourns (Served) and keep its
// writes' visibility for the queued bound: RunSim with a service time.
func (r *Recorder) measureSojourn() {
	r.mu.Lock()
	r.load = &sojourns{nodes: map[protocol.NodeID]*sojournSeries{}, client: map[string]*sojournSeries{}}
	r.mu.Unlock()
}

// Served is the simulator's hook (sim.Config.Served) that RunSim sets: it
// counts the input towards its node's sojourn, and the client's DC's.
func (r *Recorder) Served(at time.Duration, node protocol.NodeID, client bool, wait, service time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.load == nil {
		return
	}
	arrived := at - wait
	e := r.load.series(node)
	e.node.add(arrived, wait, service)
	if client {
		if e.client == nil {
			e.client = r.load.clientSeries(node.DC())
		}
		e.client.add(arrived, wait, service)
	}
}

// visWrite is a recorded write's visibility, kept until the end of the
// run for its queued bound (whose windows may end after the write is
// visible).
type visWrite struct {
	issueAt, fromIssue time.Duration
	dc, key            string
}

// VisibilityBreakdown is where writes' visibility from issue goes
// (bench/sojourn.go): each part's distribution over the writes, in ms.
// The means add up to visibility_from_issue_ms's mean.
type VisibilityBreakdown struct {
	Network  *Percentiles `json:"network"`
	Queue    *Percentiles `json:"queue"`
	Service  *Percentiles `json:"service"`
	Protocol *Percentiles `json:"protocol"`
}

// fillQueued sets the queued bound, its ratio and the breakdown from the
// recorded writes and sojourns. The caller holds the lock.
func (r *Recorder) fillQueued(res *Result) {
	if r.load == nil || len(r.visWrites) == 0 {
		return
	}
	idle := r.processing / 2
	sets := map[string][]protocol.NodeID{}
	bound, ratio := newLatencyHist(), newLatencyHist()
	var net, queue, service, proto []time.Duration
	for _, w := range r.visWrites {
		set, ok := sets[w.key]
		if !ok {
			set = protocol.VisibleAt(r.proto, r.topo, w.key)
			sets[w.key] = set
		}
		tWait, tService := r.load.client[w.dc].around(w.issueAt, idle)
		taker := tWait + tService
		var best, bNet, bWait, bService time.Duration
		found := false
		for _, n := range set {
			if !r.topo.HasDC(w.dc) || !r.topo.HasDC(n.DC()) {
				continue
			}
			ow := r.topo.OneWay(w.dc, n.DC())
			wait, svc := r.load.nodes[n].around(w.issueAt+taker+ow, idle)
			if b := ow + taker + wait + svc; !found || b > best {
				best, bNet, bWait, bService, found = b, ow, tWait+wait, tService+svc, true
			}
		}
		if !found {
			continue
		}
		_ = bound.RecordValue(max(1, best.Microseconds()))
		if best > 0 {
			_ = ratio.RecordValue(max(1, int64(1000*float64(w.fromIssue)/float64(best))))
		}
		net, queue, service = append(net, bNet), append(queue, bWait), append(service, bService)
		proto = append(proto, w.fromIssue-bNet-bWait-bService)
	}
	if bound.TotalCount() == 0 {
		return
	}
	res.VisibilityBoundQueuedMs = percentiles(bound)
	if ratio.TotalCount() > 0 {
		res.VisibilityRatioQueued = &Ratio{P50: round3(float64(ratio.ValueAtQuantile(50)) / 1000), P99: round3(float64(ratio.ValueAtQuantile(99)) / 1000)}
	}
	res.VisibilityBreakdownMs = &VisibilityBreakdown{Network: durPercentiles(net), Queue: durPercentiles(queue),
		Service: durPercentiles(service), Protocol: durPercentiles(proto)}
}

// durPercentiles is the p50, p99 and mean of ds in ms (exact, and any
// sign: the protocol part of a breakdown may be negative).
func durPercentiles(ds []time.Duration) *Percentiles {
	s := slices.Sorted(slices.Values(ds))
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	at := func(q float64) float64 {
		i := min(len(s)-1, int(q*float64(len(s))))
		return round3(float64(s[i]) / float64(time.Millisecond))
	}
	return &Percentiles{P50: at(0.5), P99: at(0.99), Mean: round3(float64(sum) / float64(len(s)) / float64(time.Millisecond))}
}
