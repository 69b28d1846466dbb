package check

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// Rule codes, in the order violations of one operation are listed.
const (
	rThinAir uint8 = iota
	rCyclic
	rStale
	rFractured
	rOrder
)

var ruleNames = []string{RuleThinAir, RuleCyclicCausality, RuleStaleRead, RuleFracturedTransaction, RuleOrderDisagreement, RuleDivergence}

// Node kinds.
const (
	kSkip   uint8 = iota // failed read, or failed write nobody read
	kChain               // successful operation: on its session's chain
	kFailed              // failed write that some read returned
)

// Sources of a read item that are not write nodes.
const (
	srcNull    = -1 // the initial state
	srcThinAir = -2 // no write to this key wrote the value
)

// item is one key read by a read node.
type item struct {
	node int32 // the read
	key  int32
	src  int32 // the write node read from, or srcNull / srcThinAir
	// from is src's cover among key's writes (a sequence number: see
	// pentry), set when clocks visits src; -1 when src is not a chain
	// write.
	from   int32
	broken bool // its reads-from edge closes a co cycle: not checked further
}

// wentry is one write to a key, on a session's chain.
type wentry struct {
	idx  uint32
	node int32
}

// pentry is a chain write to a key in the order clocks visits the key's
// writes (a topological order of co): the q-th write to key k visited
// (its sequence number q, from 0) is in k's ring of the latest ones,
// pw[ring[k]:ring[k+1]], at q modulo the ring's size. cov is the write's
// cover: every write to its key with a sequence number below cov is the
// write itself or in its causal past (a lower bound, found in a bounded
// number of steps).
type pentry struct {
	node int32
	sess int32
	idx  uint32
	cov  int32
}

// kgroup is the writes of one session to one key: went[start:end], at
// positions first to last of the session's chain.
type kgroup struct {
	sess        int32
	start, end  int32
	first, last uint32
}

// fentry is a reader of failed write f, at position idx of session sess.
type fentry struct {
	sess int32
	idx  uint32
	f    int32
}

// cfEdge is a conflict edge from -> to (both writes of key) witnessed by
// the read item it came from.
type cfEdge struct {
	from, to int32
	item     int32
}

// rec is a violation found, explained later if kept.
type rec struct {
	rule uint8
	node int32 // the offending operation (sort key)
	item int32 // read item, or -1
	w2   int32 // stale/fractured: the newer write; cycles: the SCC id
}

type checker struct {
	t *table
	n int

	// per node
	kind    []uint8
	sess    []int32
	idx     []uint32 // chain: 1-based position; failed write: its prefix position
	itemOff []int32  // items of node v: items[itemOff[v]:itemOff[v+1]]
	snapOf  []int32
	topo    []int32 // position in the topological order

	sessNames []string // the table's, as are sess, keyNames, keyID and dels
	chains    [][]int32
	keyNames  []string
	keyID     map[string]int32
	dels      map[string]bool // values (tombstone IDs) written by dels

	items []item

	// per key: writes grouped by session, and failed writes
	kgOff    []int32
	kgroups  []kgroup
	went     []wentry
	failedBy map[int32][]int32
	// per key: the readers of its failed writes (g1's edges out of each),
	// as fents[fOff[k]:fOff[k+1]] sorted by reader session and position,
	// and grouped by session as fgroups[fgOff[k]:fgOff[k+1]] (start and
	// end index fents)
	fOff, fgOff []int32
	fents       []fentry
	fgroups     []kgroup

	// per key: its latest chain writes in visit order, with their
	// covers, in a ring (pentry), and how many were visited (seq)
	ring, seq []int32
	pw        []pentry

	// scratch of read: the failed writes it has to consider, and the
	// chain writes
	cand  []int32
	pcand []pentry
	// scratch of index: a write_txn's covers, by its keys' order
	txCov []int32

	g1 *graph // session order + reads-from (after dropping cycles)

	// vector clocks
	S   int
	cur []uint32 // S×S: current clock of each session
	// snapshots of S entries each, snapChunk of them per chunk (so that
	// a long history's clocks are never copied to grow)
	snapChunks [][]uint32
	nSnaps     int32
	snapShift  uint
	last       []int32 // last snapshot of each session, -1 none
	dirty      []bool
	pre        []uint32 // a read_txn's clock before its reads

	cfs []cfEdge

	comp1, comp2 []int32 // SCC ids of the two cycle searches (-1: none)
	g2           *graph

	recs []rec

	fig *figure // collects the violation being explained, or nil
}

func newChecker(t *table) *checker {
	return &checker{t: t, n: t.n, sess: t.sess, sessNames: t.sessNames, keyNames: t.keyNames,
		keyID: t.keyID, dels: t.dels}
}

func (c *checker) run() {
	c.build()
	c.g1 = c.baseGraph()
	if order := c.g1.kahn(nil); len(order) < c.n {
		c.reportCausalCycles()
		c.g1 = c.baseGraph()
	}
	c.clocks()
	c.orderDisagreement()
}

// build interns sessions and keys, resolves every read to the write it
// read from, decides which failed writes count, and lays out the chains.
func (c *checker) build() {
	n := c.n
	t := c.t
	c.kind = make([]uint8, n)
	c.idx = make([]uint32, n)
	c.itemOff = make([]int32, n+1)

	// The first writer of each value and the key it wrote.
	wNode := make([]int32, t.values.len())
	wKey := make([]int32, t.values.len())
	for i := range wNode {
		wNode[i] = -1
	}
	claim := func(v, key, val int32) {
		if val >= 0 && wNode[val] < 0 {
			wNode[val], wKey[val] = v, key
		}
	}
	for i := range int32(n) {
		switch t.op(i) {
		case opPut, opDel:
			claim(i, t.key[i], t.val[i])
		case opWriteTxn:
			for _, e := range t.txOf(i) {
				claim(i, e.key, e.val)
			}
		}
	}
	c.S = len(c.sessNames)

	// Reads, in node order; a read_txn's keys sorted by name.
	readCount := make(map[int32]int32) // failed write -> successful reads of it
	add := func(i, kid, val int32) {
		it := item{node: i, key: kid, src: srcNull, from: -1}
		if val >= 0 {
			if w := wNode[val]; w >= 0 && wKey[val] == kid {
				it.src = w
				if t.failed(w) {
					readCount[w]++
				}
			} else {
				it.src = srcThinAir
			}
		}
		c.items = append(c.items, it)
	}
	nItems := 0
	for i := range int32(n) {
		switch {
		case t.failed(i) || !t.isRead(i):
		case t.op(i) == opGet:
			nItems++
		default:
			nItems += len(t.txOf(i))
		}
	}
	c.items = make([]item, 0, nItems)
	for i := range int32(n) {
		c.itemOff[i] = int32(len(c.items))
		if t.failed(i) || !t.isRead(i) {
			continue
		}
		if t.op(i) == opGet {
			add(i, t.key[i], t.val[i])
			continue
		}
		for _, e := range t.txOf(i) {
			add(i, e.key, e.val)
		}
	}
	c.itemOff[n] = int32(len(c.items))

	// Chains.
	c.chains = make([][]int32, c.S)
	for i := range int32(n) {
		s := c.sess[i]
		switch {
		case !t.failed(i):
			c.kind[i] = kChain
			c.chains[s] = append(c.chains[s], i)
			c.idx[i] = uint32(len(c.chains[s]))
		case t.isWrite(i) && readCount[i] > 0:
			c.kind[i] = kFailed
			c.idx[i] = uint32(len(c.chains[s]))
		}
	}

	// Writes per key, grouped by session (counting sort by key; sessions
	// and positions come out in order because chains are walked in order).
	K := len(c.keyNames)
	cnt := make([]int32, K+1)
	c.failedBy = map[int32][]int32{}
	forWrites := func(v int32, f func(k int32)) {
		if t.op(v) != opWriteTxn {
			f(t.key[v])
			return
		}
		for _, e := range t.txOf(v) {
			f(e.key)
		}
	}
	for i := range int32(n) {
		switch c.kind[i] {
		case kChain:
			if t.isWrite(i) {
				forWrites(i, func(k int32) { cnt[k+1]++ })
			}
		case kFailed:
			forWrites(i, func(k int32) { c.failedBy[k] = append(c.failedBy[k], i) })
		}
	}
	for k := 1; k <= K; k++ {
		cnt[k] += cnt[k-1]
	}
	c.went = make([]wentry, cnt[K])
	c.ring = make([]int32, K+1)
	for k := range K {
		r := int32(1)
		for r < ringMax && r < cnt[k+1]-cnt[k] {
			r *= 2
		}
		c.ring[k+1] = c.ring[k] + r
	}
	fill := slices.Clone(cnt[:K])
	lastSess := make([]int32, K)
	for k := range lastSess {
		lastSess[k] = -1
	}
	groupsPerKey := make([]int32, K+1)
	for s := range c.chains {
		for _, v := range c.chains[s] {
			if !t.isWrite(v) {
				continue
			}
			forWrites(v, func(k int32) {
				c.went[fill[k]] = wentry{idx: c.idx[v], node: v}
				fill[k]++
				if lastSess[k] != int32(s) {
					lastSess[k] = int32(s)
					groupsPerKey[k+1]++
				}
			})
		}
	}
	for k := 1; k <= K; k++ {
		groupsPerKey[k] += groupsPerKey[k-1]
	}
	c.kgOff = groupsPerKey
	c.kgroups = make([]kgroup, groupsPerKey[K])
	for k := range K {
		g := groupsPerKey[k]
		for j := cnt[k]; j < cnt[k+1]; j++ {
			s := c.sess[c.went[j].node]
			if j == cnt[k] || c.kgroups[g-1].sess != s {
				c.kgroups[g] = kgroup{sess: s, start: j, end: j + 1, first: c.went[j].idx, last: c.went[j].idx}
				g++
			} else {
				c.kgroups[g-1].end = j + 1
				c.kgroups[g-1].last = c.went[j].idx
			}
		}
	}
}

// baseGraph builds session order + reads-from, leaving out broken items.
func (c *checker) baseGraph() *graph {
	g := &graph{n: c.n, next: make([]int32, c.n)}
	for i := range g.next {
		g.next[i] = -1
	}
	for _, ch := range c.chains {
		for j := 0; j+1 < len(ch); j++ {
			g.next[ch[j]] = ch[j+1]
		}
	}
	var es []edge
	for i := range c.items {
		it := &c.items[i]
		if it.src >= 0 && !it.broken {
			es = append(es, edge{from: it.src, to: it.node, lab: int32(i)})
		}
	}
	for v := range c.n {
		if c.kind[v] == kFailed && c.idx[v] > 0 {
			p := c.chains[c.sess[v]][c.idx[v]-1]
			es = append(es, edge{from: p, to: int32(v), lab: labPrefix})
		}
	}
	g.setEdges(es)
	return g
}

// reportCausalCycles records one cyclic-causality violation per strongly
// connected component of co and breaks the reads-from edges inside it.
func (c *checker) reportCausalCycles() {
	var ncomp int32
	c.comp1, ncomp = c.g1.sccs()
	first := make([]int32, ncomp)
	for i := range first {
		first[i] = -1
	}
	for v := range c.n {
		if k := c.comp1[v]; k >= 0 && first[k] < 0 {
			first[k] = int32(v)
		}
	}
	for k := range ncomp {
		c.recs = append(c.recs, rec{rule: rCyclic, node: first[k], item: -1, w2: k})
	}
	for i := range c.items {
		it := &c.items[i]
		if it.src >= 0 && c.comp1[it.src] >= 0 && c.comp1[it.src] == c.comp1[it.node] {
			it.broken = true
		}
	}
}

// vcAt returns component u of write w's clock (its own session's component
// is its position).
func (c *checker) vcAt(w int32, u int32) uint32 {
	if u == c.sess[w] {
		return c.idx[w]
	}
	return c.snap(c.snapOf[w])[u]
}

// inPast reports whether write x is in the causal past described by the
// clock at(u).
func (c *checker) inPast(x int32, at func(u int32) uint32) bool {
	if c.kind[x] == kChain {
		return at(c.sess[x]) >= c.idx[x]
	}
	// A failed write is in the past exactly when one of its readers is.
	g := c.g1
	for j := g.off[x]; j < g.off[x+1]; j++ {
		r := g.dst[j]
		if at(c.sess[r]) >= c.idx[r] {
			return true
		}
	}
	return false
}

// wBefore reports whether write a is in the causal past of write b.
func (c *checker) wBefore(a, b int32) bool {
	if c.kind[a] == kChain {
		return c.vcAt(b, c.sess[a]) >= c.idx[a]
	}
	return c.inPast(a, func(u int32) uint32 { return c.vcAt(b, u) })
}

// snapshot makes sure session s has a snapshot of its current clock and
// returns it.
func (c *checker) snapshot(s int32) int32 {
	if c.last[s] < 0 || c.dirty[s] {
		id := c.newSnap()
		copy(c.snap(id), c.cur[int(s)*c.S:int(s+1)*c.S])
		c.last[s] = id
		c.dirty[s] = false
	}
	return c.last[s]
}

// maxSnapShift bounds a chunk of snapshots to 4096 of them.
const maxSnapShift = 12

// initSnaps prepares the snapshots for at most most of them (a bound)
// and makes snapshot 0, the empty clock.
func (c *checker) initSnaps(most int) {
	c.snapShift = 0
	for 1<<c.snapShift < most && c.snapShift < maxSnapShift {
		c.snapShift++
	}
	c.newSnap()
}

// newSnap adds a zero snapshot and returns its ID.
func (c *checker) newSnap() int32 {
	id := c.nSnaps
	if int(id>>c.snapShift) == len(c.snapChunks) {
		c.snapChunks = append(c.snapChunks, make([]uint32, c.S<<c.snapShift))
	}
	c.nSnaps++
	return id
}

// snap returns snapshot id.
func (c *checker) snap(id int32) []uint32 {
	ch := c.snapChunks[id>>c.snapShift]
	o := int(id&(1<<c.snapShift-1)) * c.S
	return ch[o : o+c.S : o+c.S]
}

// clocks computes vector clocks in topological order and checks every read.
func (c *checker) clocks() {
	S := c.S
	c.cur = make([]uint32, S*S)
	c.last = make([]int32, S)
	c.dirty = make([]bool, S)
	c.pre = make([]uint32, S)
	c.snapOf = make([]int32, c.n)
	for i := range c.last {
		c.last[i] = -1
	}
	// Snapshot 0: the empty clock, for failed writes before any chain op.
	// Others are taken at writes, chain or failed.
	most := 1
	for v := range int32(c.n) {
		if c.kind[v] == kFailed || c.kind[v] == kChain && c.t.isWrite(v) {
			most++
		}
	}
	c.initSnaps(most)
	c.pw = make([]pentry, c.ring[len(c.keyNames)])
	c.seq = make([]int32, len(c.keyNames))
	c.failedReaders()
	g := c.g1
	c.topo = make([]int32, c.n)
	pos := int32(0)
	g.kahn(func(v int32) {
		c.topo[v] = pos
		pos++
		switch c.kind[v] {
		case kSkip:
			return
		case kFailed:
			if c.idx[v] == 0 {
				c.snapOf[v] = 0
			}
			return
		}
		s := c.sess[v]
		row := c.cur[int(s)*S : int(s+1)*S]
		row[s] = c.idx[v]
		if c.t.isRead(v) {
			c.read(v, row)
		} else {
			c.snapOf[v] = c.snapshot(s)
			c.index(v, row)
		}
		// Failed writes right after v in its session share its clock.
		for j := g.off[v]; j < g.off[v+1]; j++ {
			if t := g.dst[j]; c.kind[t] == kFailed {
				c.snapOf[t] = c.snapshot(s)
			}
		}
	})
}

// read joins the clocks of what read node v read into row (its session's
// clock) and checks each of its reads.
func (c *checker) read(v int32, row []uint32) {
	s := c.sess[v]
	its := c.items[c.itemOff[v]:c.itemOff[v+1]]
	txn := len(its) > 1
	if txn {
		copy(c.pre, row)
	}
	changed := false
	for i := range its {
		it := &its[i]
		if it.src < 0 || it.broken {
			continue
		}
		w := it.src
		snap := c.snap(c.snapOf[w])
		for u, x := range snap {
			if x > row[u] {
				row[u] = x
				changed = true
			}
		}
		if ws := c.sess[w]; c.idx[w] > row[ws] {
			row[ws] = c.idx[w]
			changed = true
		}
	}
	row[s] = c.idx[v]
	if changed {
		c.dirty[s] = true
	}
	for i := range its {
		it := &its[i]
		itemIdx := c.itemOff[v] + int32(i)
		if it.broken {
			continue
		}
		if it.src == srcThinAir {
			c.recs = append(c.recs, rec{rule: rThinAir, node: v, item: itemIdx, w2: -1})
			continue
		}
		w1 := it.src
		stale := int32(-1)
		consider := func(w2 int32) bool {
			if w2 == w1 {
				return false
			}
			if w1 == srcNull {
				stale = w2
				return true
			}
			if c.wBefore(w2, w1) {
				return false // w2 was overwritten by w1
			}
			if c.wBefore(w1, w2) {
				stale = w2
				return true
			}
			// Concurrent: the read ordered w2 before w1.
			c.cfs = append(c.cfs, cfEdge{from: w2, to: w1, item: itemIdx})
			return false
		}
		// The candidates w2: the last write of each session to the key
		// within the read's past that is not w1 nor in w1's past.
		var vc []uint32
		if w1 >= 0 {
			vc = c.snap(c.snapOf[w1])
		}
		for _, e := range c.chainCandidates(it, row, vc) {
			if consider(e.node) {
				break
			}
		}
		if stale < 0 {
			for _, f := range c.failedCandidates(it.key, w1, row) {
				if consider(f) {
					break
				}
			}
		}
		if stale < 0 {
			continue
		}
		rule := rStale
		if txn && !c.inPast(stale, func(u int32) uint32 {
			if u == s {
				return c.idx[v] - 1
			}
			return c.pre[u]
		}) {
			rule = rFractured
		}
		c.recs = append(c.recs, rec{rule: rule, node: v, item: itemIdx, w2: stale})
	}
}

// walkSlack is how many more entries than the key has writing sessions
// chainCandidates walks before it looks at the sessions instead.
const walkSlack = 8

// chainCandidates returns, by session, the last chain write of each
// session to it.key within the past described by row that is neither
// it.src (w1) nor in w1's past (vc: w1's clock; nil when w1 is null):
// those a read of it.key that returned w1 has to consider, in the order
// it considers them.
//
// A candidate was visited before the read (it is in its past) and is not
// within w1's cover (which is in w1's past), so it is among the writes to
// the key visited after w1's cover ends: in a causal history a few,
// however long the history. Those are walked when they are still in the
// key's ring and no more than the sessions that wrote the key (plus
// walkSlack); otherwise (groupCandidates) each such session's writes are
// searched.
func (c *checker) chainCandidates(it *item, row, vc []uint32) []pentry {
	k, w1 := it.key, it.src
	from, to := max(it.from, 0), c.seq[k]
	base, size := c.ring[k], c.ring[k+1]-c.ring[k]
	if to-from > size || to-from > c.kgOff[k+1]-c.kgOff[k]+walkSlack {
		return c.groupCandidates(k, w1, row, vc)
	}
	if crossCheckHook != nil {
		defer func() { crossCheckHook(slices.Clone(c.pcand), c.groupCandidates(k, w1, row, vc)) }()
	}
	cand := c.pcand[:0]
	s1, i1 := int32(-1), uint32(0)
	if w1 >= 0 {
		s1, i1 = c.sess[w1], c.idx[w1]
	}
	for q := from; q < to; q++ {
		e := c.pw[base+q&(size-1)]
		if row[e.sess] < e.idx {
			continue // not in the read's past
		}
		if w1 >= 0 {
			at := vc[e.sess]
			if e.sess == s1 {
				at = i1
			}
			if e.idx <= at {
				continue // w1 or in w1's past
			}
		}
		cand = append(cand, e)
	}
	c.pcand = cand
	if len(cand) < 2 {
		return cand
	}
	if w1 < 0 {
		// A null read is stale from the first session's on: only it
		// counts.
		i := 0
		for j, e := range cand {
			if e.sess < cand[i].sess || e.sess == cand[i].sess && e.idx > cand[i].idx {
				i = j
			}
		}
		cand[0] = cand[i]
		c.pcand = cand[:1]
		return c.pcand
	}
	// The last of each session's.
	slices.SortFunc(cand, func(a, b pentry) int {
		if a.sess != b.sess {
			return int(a.sess - b.sess)
		}
		return cmp.Compare(b.idx, a.idx)
	})
	out := cand[:1]
	for _, e := range cand[1:] {
		if e.sess != out[len(out)-1].sess {
			out = append(out, e)
		}
	}
	c.pcand = out
	return out
}

// crossCheckHook, when set (by a test), is handed what chainCandidates
// found by walking the visited writes and what groupCandidates finds
// for the same read, whenever the walk was taken.
var crossCheckHook func(walk, groups []pentry)

// groupCandidates is chainCandidates from the writes of each session that
// wrote key k.
func (c *checker) groupCandidates(k, w1 int32, row, vc []uint32) []pentry {
	cand := c.pcand[:0]
	for _, gr := range c.kgroups[c.kgOff[k]:c.kgOff[k+1]] {
		lim := row[gr.sess]
		if lim == 0 || gr.first > lim {
			continue
		}
		at := uint32(0)
		if w1 >= 0 {
			// Every write of gr up to lim is in w1's past when lim
			// or the group's last write is (vcAt, from vc).
			at = vc[gr.sess]
			if gr.sess == c.sess[w1] {
				at = c.idx[w1]
			}
			if lim <= at || gr.last <= at {
				continue
			}
		}
		ws := c.went[gr.start:gr.end]
		// Last write of this session to the key within the past.
		j := sort.Search(len(ws), func(j int) bool { return ws[j].idx > lim }) - 1
		// w2, a chain write of session gr.sess at position ws[j].idx,
		// is w1 itself or in w1's causal past.
		if w1 >= 0 && (ws[j].node == w1 || at >= ws[j].idx) {
			continue
		}
		cand = append(cand, pentry{node: ws[j].node, sess: gr.sess, idx: ws[j].idx})
		if w1 < 0 {
			break // a null read is stale from the first one on
		}
	}
	c.pcand = cand
	return cand
}

// index appends chain write v (visited, with clock row) to the visited
// writes of each key it wrote, with its cover there, and hands the cover
// to the items that read it.
func (c *checker) index(v int32, row []uint32) {
	t := c.t
	if t.op(v) != opWriteTxn {
		cov := c.place(t.key[v], v, row)
		g := c.g1
		for j := g.off[v]; j < g.off[v+1]; j++ {
			if lab := g.lab[j]; lab >= 0 {
				c.items[lab].from = cov
			}
		}
		return
	}
	tx := t.txOf(v)
	covs := c.txCov[:0]
	for _, e := range tx {
		covs = append(covs, c.place(e.key, v, row))
	}
	c.txCov = covs
	g := c.g1
	for j := g.off[v]; j < g.off[v+1]; j++ {
		lab := g.lab[j]
		if lab < 0 {
			continue
		}
		it := &c.items[lab]
		// tx is sorted by key name.
		i, _ := slices.BinarySearchFunc(tx, c.keyNames[it.key], func(e txKV, name string) int {
			return strings.Compare(c.keyNames[e.key], name)
		})
		it.from = covs[i]
	}
}

// ringMax bounds the latest writes kept per key (fewer for a key with
// fewer writes); a power of two. A variable so that tests can make rings
// overflow.
var ringMax int32 = 32

// coverSteps bounds the entries place looks at on either side.
const coverSteps = 32

// place appends chain write v, with clock row, to key k's visited writes
// and returns its cover: the cover of the latest earlier write in v's
// past (within coverSteps of the end, and still in the ring), extended
// over the writes after it that are in v's past too.
func (c *checker) place(k, v int32, row []uint32) int32 {
	p := c.seq[k]
	c.seq[k]++
	base, size := c.ring[k], c.ring[k+1]-c.ring[k]
	mask := size - 1
	oldest := max(p-size, 0) // the ring holds writes oldest to p-1
	cov := int32(0)
	for q := p - 1; q >= oldest && q >= p-coverSteps; q-- {
		if e := &c.pw[base+q&mask]; row[e.sess] >= e.idx {
			cov = e.cov
			break
		}
	}
	for steps := 0; cov >= oldest && cov < p && steps < coverSteps; steps++ {
		if e := &c.pw[base+cov&mask]; row[e.sess] < e.idx {
			break
		}
		cov++
	}
	if cov == p {
		cov = p + 1 // and v itself
	}
	c.pw[base+p&mask] = pentry{node: v, sess: c.sess[v], idx: c.idx[v], cov: cov}
	return cov
}

// failedReaders lays out, per key, the readers of its failed writes
// (fents), which failedCandidates searches.
func (c *checker) failedReaders() {
	K := len(c.keyNames)
	c.fOff = make([]int32, K+1)
	g := c.g1
	for k, fs := range c.failedBy {
		for _, f := range fs {
			c.fOff[k+1] += g.off[f+1] - g.off[f]
		}
	}
	for k := 1; k <= K; k++ {
		c.fOff[k] += c.fOff[k-1]
	}
	c.fents = make([]fentry, c.fOff[K])
	fill := slices.Clone(c.fOff[:K])
	for k, fs := range c.failedBy {
		for _, f := range fs {
			for j := g.off[f]; j < g.off[f+1]; j++ {
				r := g.dst[j]
				c.fents[fill[k]] = fentry{sess: c.sess[r], idx: c.idx[r], f: f}
				fill[k]++
			}
		}
		slices.SortFunc(c.fents[c.fOff[k]:c.fOff[k+1]], cmpFentry)
	}
	c.fgOff = make([]int32, K+1)
	for k := range int32(K) {
		for j := c.fOff[k]; j < c.fOff[k+1]; j++ {
			e := c.fents[j]
			if j == c.fOff[k] || c.fgroups[len(c.fgroups)-1].sess != e.sess {
				c.fgroups = append(c.fgroups, kgroup{sess: e.sess, start: j, end: j + 1, first: e.idx, last: e.idx})
			} else {
				c.fgroups[len(c.fgroups)-1].end = j + 1
				c.fgroups[len(c.fgroups)-1].last = e.idx
			}
		}
		c.fgOff[k+1] = int32(len(c.fgroups))
	}
}

// failedCandidates returns, in node order, the failed writes to key k
// other than w1 that are in the past described by row (a failed write is
// there when one of its readers is) and, when w1 is a write, not in w1's
// past: those a read of k that returned w1 has to consider. (The others
// it would skip: a failed write in w1's past was overwritten by it.)
func (c *checker) failedCandidates(k, w1 int32, row []uint32) []int32 {
	cand := c.cand[:0]
	for _, gr := range c.fgroups[c.fgOff[k]:c.fgOff[k+1]] {
		// The readers of session gr.sess at positions in (lo, hi].
		lo, hi := uint32(0), row[gr.sess]
		if w1 >= 0 {
			lo = c.vcAt(w1, gr.sess)
		}
		if hi <= lo || gr.first > hi || gr.last <= lo {
			continue
		}
		ents := c.fents[gr.start:gr.end]
		i, _ := slices.BinarySearchFunc(ents, lo+1, func(e fentry, idx uint32) int { return cmp.Compare(e.idx, idx) })
		for ; i < len(ents) && ents[i].idx <= hi; i++ {
			if f := ents[i].f; f != w1 {
				cand = append(cand, f)
			}
		}
	}
	c.cand = cand
	if w1 < 0 && len(cand) > 1 {
		// A null read is stale from the first one on: only it counts.
		cand = cand[:1]
		cand[0] = slices.Min(c.cand)
		return cand
	}
	slices.Sort(cand)
	return slices.Compact(cand)
}

// cmpFentry orders fentries by session, then position.
func cmpFentry(a, b fentry) int {
	if a.sess != b.sess {
		return int(a.sess - b.sess)
	}
	return cmp.Compare(a.idx, b.idx)
}

// orderDisagreement looks for cycles in co ∪ conflict edges and records
// one violation per strongly connected component.
func (c *checker) orderDisagreement() {
	if len(c.cfs) == 0 {
		return
	}
	// Deduplicate conflict edges (keep the first witness of each).
	slices.SortStableFunc(c.cfs, func(a, b cfEdge) int {
		if a.from != b.from {
			return int(a.from - b.from)
		}
		return int(a.to - b.to)
	})
	uniq := c.cfs[:1]
	for _, e := range c.cfs[1:] {
		if l := uniq[len(uniq)-1]; l.from != e.from || l.to != e.to {
			uniq = append(uniq, e)
		}
	}
	c.cfs = uniq
	es := c.g1.edges()
	for i, e := range c.cfs {
		es = append(es, edge{from: e.from, to: e.to, lab: cfLab(i)})
	}
	g := &graph{n: c.n, next: c.g1.next}
	g.setEdges(es)
	c.g2 = g
	if len(g.kahn(nil)) == c.n {
		return
	}
	var ncomp int32
	c.comp2, ncomp = g.sccs()
	// Each SCC is listed at the first read that witnessed one of its
	// conflict edges (every cycle has one: co alone is acyclic here).
	first := make([]int32, ncomp)
	for i := range first {
		first[i] = -1
	}
	for _, e := range c.cfs {
		if k := c.comp2[e.from]; k >= 0 && k == c.comp2[e.to] {
			if r := c.items[e.item].node; first[k] < 0 || r < first[k] {
				first[k] = r
			}
		}
	}
	for k := range ncomp {
		c.recs = append(c.recs, rec{rule: rOrder, node: first[k], item: -1, w2: k})
	}
}
