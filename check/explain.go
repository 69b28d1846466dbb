package check

import (
	"fmt"
	"sort"
	"strings"
)

// Explanations name sessions, keys, values and 1-based line numbers, and
// describe causal chains run by run: "session a put x=1 (line 1), then put
// y=2 (line 2); session b read y=2 (line 5), later read x=null (line 9)".
// Consecutive operations of one session are joined by session order, and
// "; session b read ..." is a reads-from hop.

func (c *checker) line(v int32) int { return c.t.line(v) }

func val(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// valText is val, with a del's tombstone ID shown as "deleted(ID)".
func (c *checker) valText(p *string) string {
	if p != nil && c.dels[*p] {
		return "deleted(" + *p + ")"
	}
	return val(p)
}

// valueOf returns the value node v read or wrote for key k.
func (c *checker) valueOf(v int32, k int32) *string {
	t := c.t
	if !t.isTxn(v) {
		return t.value(t.val[v])
	}
	for _, e := range t.txOf(v) {
		if e.key == k {
			return t.value(e.val)
		}
	}
	return nil
}

func (c *checker) kv(v int32, k int32) string {
	return c.keyNames[k] + "=" + c.valText(c.valueOf(v, k))
}

// lineNote is " (line N)" or " (line N, failed)".
func (c *checker) lineNote(v int32) string {
	if c.t.failed(v) {
		return fmt.Sprintf(" (line %d, failed)", c.line(v))
	}
	return fmt.Sprintf(" (line %d)", c.line(v))
}

// opText describes what node v did, focused on key k when k >= 0:
// "put x=1 (line 3)", "read x=1 (line 4)", "read x=1 in a read_txn (line
// 5)", "wrote x=1 in a write_txn (line 6)", or the whole transaction when
// k < 0.
func (c *checker) opText(v int32, k int32) string {
	return c.opVerb(v, k) + c.lineNote(v)
}

// opVerb is opText without the line.
func (c *checker) opVerb(v int32, k int32) string {
	t := c.t
	var s string
	switch t.op(v) {
	case opGet:
		s = "read " + c.keyNames[t.key[v]] + "=" + c.valText(t.value(t.val[v]))
	case opPut:
		s = "put " + c.keyNames[t.key[v]] + "=" + val(t.value(t.val[v]))
	case opDel:
		s = "deleted " + c.keyNames[t.key[v]] + " (tombstone " + val(t.value(t.val[v])) + ")"
	case opReadTxn:
		if k >= 0 {
			s = "read " + c.kv(v, k) + " in a read_txn"
		} else {
			s = "ran read_txn " + t.txText(v, c.valText)
		}
	case opWriteTxn:
		if k >= 0 {
			s = "wrote " + c.kv(v, k) + " in a write_txn"
		} else {
			s = "ran write_txn " + t.txText(v, val)
		}
	}
	return s
}

// writeText describes a write of key k: "x=1 (put by session a, line 3)".
func (c *checker) writeText(w int32, k int32) string {
	how := "put"
	switch c.t.op(w) {
	case opWriteTxn:
		how = "written in a write_txn"
	case opDel:
		how = "deleted"
	}
	failed := ""
	if c.t.failed(w) {
		failed = ", failed"
	}
	return fmt.Sprintf("%s (%s by session %s, line %d%s)", c.kv(w, k), how, c.sessNames[c.sess[w]], c.line(w), failed)
}

// labKey returns the key an edge label concerns, or -1.
func (c *checker) labKey(lab int32) int32 {
	switch {
	case lab >= 0:
		return c.items[lab].key
	case isCF(lab):
		return c.items[c.cfs[cfIndex(lab)].item].key
	}
	return -1
}

// chain renders the path start, steps... as runs of one session each.
// pins forces nodes to be shown (with the key to focus on); the others
// inside a run are elided. used collects the nodes shown, and c.fig (when
// collecting) the nodes and the edges between them.
func (c *checker) chain(start int32, steps []step, pins map[int32]int32, used map[int32]bool) string {
	nodes := make([]int32, 0, len(steps)+1)
	labs := make([]int32, 0, len(steps)+1) // labs[i]: edge into nodes[i]
	nodes = append(nodes, start)
	labs = append(labs, labChain)
	for _, s := range steps {
		nodes = append(nodes, s.to)
		labs = append(labs, s.lab)
	}
	focus := func(i int) int32 {
		v := nodes[i]
		if k, ok := pins[v]; ok && (i == 0 || i == len(nodes)-1 || !c.t.isRead(v) || !(labs[i] >= 0)) {
			return k
		}
		if c.t.isRead(v) {
			if labs[i] >= 0 {
				return c.items[labs[i]].key
			}
		} else if i+1 < len(nodes) {
			if k := c.labKey(labs[i+1]); k >= 0 {
				return k
			}
		}
		if k, ok := pins[v]; ok {
			return k
		}
		return -1
	}
	var runs []string
	var b strings.Builder
	prevShown := -1
	for i := range nodes {
		newRun := i == 0 || !isWeight0(labs[i])
		lastOfRun := i == len(nodes)-1 || !isWeight0(labs[i+1])
		_, pinned := pins[nodes[i]]
		if !newRun && !lastOfRun && !pinned {
			continue
		}
		c.fig.event(nodes[i], focus(i))
		if i > 0 {
			c.fig.stepEdge(nodes[max(prevShown, 0)], nodes[i], labs[i], !newRun && prevShown != i-1)
		}
		if newRun {
			if i > 0 {
				runs = append(runs, b.String())
				b.Reset()
			}
			fmt.Fprintf(&b, "session %s ", c.sessNames[c.sess[nodes[i]]])
		} else if prevShown == i-1 {
			b.WriteString(", then ")
		} else {
			b.WriteString(", later ")
		}
		b.WriteString(c.opText(nodes[i], focus(i)))
		used[nodes[i]] = true
		prevShown = i
	}
	runs = append(runs, b.String())
	return strings.Join(runs, "; ")
}

// window allows the nodes between a and b in topological order.
func (c *checker) window(a, b int32) func(v int32) bool {
	lo, hi := c.topo[a], c.topo[b]
	return func(v int32) bool { return c.topo[v] >= lo && c.topo[v] <= hi }
}

func linesOf(c *checker, used map[int32]bool) []int {
	ls := make([]int, 0, len(used))
	for v := range used {
		ls = append(ls, c.line(v))
	}
	sort.Ints(ls)
	return ls
}

func (c *checker) explain(r *rec) Violation {
	c.fig = newFigure(c)
	defer func() { c.fig = nil }()
	var v Violation
	switch r.rule {
	case rThinAir:
		v = c.explainThinAir(r)
	case rCyclic:
		v = c.explainCycle(r)
	case rStale, rFractured:
		v = c.explainStale(r)
	default:
		v = c.explainOrder(r)
	}
	c.fig.finish(&v)
	return v
}

func (c *checker) explainThinAir(r *rec) Violation {
	it := &c.items[r.item]
	v := it.node
	value := val(c.valueOf(v, it.key))
	why := "no operation in the history wrote that value"
	used := map[int32]bool{v: true}
	c.fig.event(v, it.key)
	c.fig.violating(v)
	// Was it written to another key?
	t := c.t
	vid, read := t.values.lookup(value)
	for i := range int32(t.n) {
		if !read {
			break
		}
		if !t.isWrite(i) {
			continue
		}
		if !t.isTxn(i) && t.val[i] == vid {
			verb := "put to"
			if t.op(i) == opDel {
				verb = "a tombstone of"
			}
			why = fmt.Sprintf("that value was %s key %s, not %s (line %d)", verb, c.keyNames[t.key[i]], c.keyNames[it.key], c.line(i))
			used[i] = true
			c.fig.note(i, -1, "wrote it to another key")
			break
		}
		if t.op(i) == opWriteTxn {
			found := false
			for _, e := range t.txOf(i) {
				if e.val == vid {
					why = fmt.Sprintf("that value was written to key %s, not %s (write_txn, line %d)", c.keyNames[e.key], c.keyNames[it.key], c.line(i))
					used[i] = true
					c.fig.note(i, e.key, "wrote it to another key")
					found = true
				}
			}
			if found {
				break
			}
		}
	}
	return Violation{
		Rule: RuleThinAir,
		Key:  c.keyNames[it.key],
		Explanation: fmt.Sprintf("session %s %s, but %s: thin-air read",
			c.sessNames[c.sess[v]], c.opText(v, it.key), why),
		Ops: linesOf(c, used),
	}
}

func (c *checker) explainCycle(r *rec) Violation {
	k := r.w2
	used := map[int32]bool{}
	g := c.baseGraphAll()
	in := func(v int32) bool { return c.comp1[v] == k }
	for i := range c.items {
		it := &c.items[i]
		if it.src < 0 || !in(it.src) || !in(it.node) {
			continue
		}
		steps := g.path(it.node, it.src, in)
		if steps == nil {
			continue
		}
		steps = append(steps, step{to: it.node, lab: int32(i)})
		pins := map[int32]int32{it.node: it.key}
		txt := c.chain(it.node, steps, pins, used)
		c.fig.violating(it.node)
		c.fig.edge(it.src, it.node, EdgeReadsFrom, it.key, false, true)
		return Violation{
			Rule: RuleCyclicCausality,
			Key:  c.keyNames[it.key],
			Explanation: fmt.Sprintf("%s: the read at line %d returned %s, a write that is causally after the read itself (session order and reads-from form a cycle): cyclic causality",
				txt, c.line(it.node), c.kv(it.node, it.key)),
			Ops: linesOf(c, used),
		}
	}
	return Violation{Rule: RuleCyclicCausality, Explanation: fmt.Sprintf("the operation at line %d is in its own causal past", c.line(r.node)), Ops: []int{c.line(r.node)}}
}

// baseGraphAll is the session order + reads-from graph including the
// edges dropped because they closed cycles.
func (c *checker) baseGraphAll() *graph {
	var broken []int
	for i := range c.items {
		if c.items[i].broken {
			broken = append(broken, i)
			c.items[i].broken = false
		}
	}
	g := c.baseGraph()
	for _, i := range broken {
		c.items[i].broken = true
	}
	return g
}

func (c *checker) explainStale(r *rec) Violation {
	it := &c.items[r.item]
	v, key, w1, w2 := it.node, it.key, it.src, r.w2
	used := map[int32]bool{}
	pins := map[int32]int32{v: key, w2: key}
	keyName := c.keyNames[key]
	var steps []step
	start := w2
	if w1 >= 0 {
		pins[w1] = key
		start = w1
		p1 := c.g1.path(w1, w2, c.window(w1, w2))
		steps = append(steps, p1...)
	}
	rule := RuleStaleRead
	via := int32(-1) // fractured: the item of v that brought w2 in
	if r.rule == rFractured {
		rule = RuleFracturedTransaction
		for j := c.itemOff[v]; j < c.itemOff[v+1]; j++ {
			o := &c.items[j]
			if j == r.item || o.src < 0 || o.broken {
				continue
			}
			if o.src == w2 || c.wBefore(w2, o.src) {
				via = j
				break
			}
		}
	}
	switch {
	case via >= 0:
		// Through the read_txn's own read of another key; show it whole.
		src := c.items[via].src
		steps = append(steps, c.g1.path(w2, src, c.window(w2, src))...)
		steps = append(steps, step{to: v, lab: via})
		pins[v] = -1
	case c.idx[v] >= 2:
		// Known before the read: through the session's previous operation.
		prev := c.chains[c.sess[v]][c.idx[v]-2]
		steps = append(steps, c.g1.path(w2, prev, c.window(w2, prev))...)
		steps = append(steps, step{to: v, lab: labChain})
	default:
		steps = append(steps, c.g1.path(w2, v, c.window(w2, v))...)
	}
	txt := c.chain(start, steps, pins, used)
	used[v], used[w2] = true, true
	c.fig.violating(v)
	c.fig.note(w2, key, "should have been seen")
	if w1 >= 0 {
		c.fig.note(w1, key, "returned instead")
		c.fig.edge(w1, v, EdgeReadsFrom, key, false, true)
	}
	got := keyName + "=null (the initial state)"
	if w1 >= 0 {
		got = "the older " + c.kv(w1, key)
		used[w1] = true
	}
	var expl string
	switch {
	case via >= 0 && c.items[via].src == w2:
		expl = fmt.Sprintf("%s: session %s's read_txn at line %d read %s from a write_txn that also wrote %s, yet for %s it returned %s: fractured transaction (it saw only part of that write_txn)",
			txt, c.sessNames[c.sess[v]], c.line(v), c.kv(v, c.items[via].key), c.kv(w2, key), keyName, got)
	case via >= 0:
		expl = fmt.Sprintf("%s: %s is in the causal past of %s, which the read_txn at line %d returned, yet for %s it returned %s: its reads are not one causal snapshot (fractured transaction)",
			txt, c.writeText(w2, key), c.kv(v, c.items[via].key), c.line(v), keyName, got)
	default:
		after := ""
		if w1 >= 0 {
			after = fmt.Sprintf(", causally after %s,", c.kv(w1, key))
		}
		expl = fmt.Sprintf("%s: %s%s was in the causal past of session %s's read at line %d, yet it returned %s: stale read",
			txt, c.writeText(w2, key), after, c.sessNames[c.sess[v]], c.line(v), got)
	}
	return Violation{Rule: rule, Key: keyName, Explanation: expl, Ops: linesOf(c, used)}
}

func (c *checker) explainOrder(r *rec) Violation {
	k := r.w2
	used := map[int32]bool{}
	in := func(v int32) bool { return c.comp2[v] == k }
	for i, e := range c.cfs {
		if !in(e.from) || !in(e.to) {
			continue
		}
		steps := c.g2.path(e.to, e.from, in)
		if steps == nil {
			continue
		}
		steps = append(steps, step{to: e.to, lab: cfLab(i)})
		var parts []string
		keys := map[int32]bool{}
		segStart := e.to
		var seg []step
		for _, s := range steps {
			if !isCF(s.lab) {
				seg = append(seg, s)
				continue
			}
			cf := c.cfs[cfIndex(s.lab)]
			ck := c.items[cf.item].key
			keys[ck] = true
			if len(seg) > 0 {
				last := seg[len(seg)-1].to
				pins := map[int32]int32{segStart: c.labKey(prevCF(steps, segStart, c)), last: ck}
				if pins[segStart] < 0 {
					delete(pins, segStart)
				}
				parts = append(parts, fmt.Sprintf("%s is causally before %s: %s",
					c.kvOr(segStart, pins), c.kv(last, ck), c.chain(segStart, seg, pins, used)))
			}
			rd := c.items[cf.item].node
			used[cf.from], used[cf.to], used[rd] = true, true, true
			c.figureConflict(cf, ck)
			parts = append(parts, fmt.Sprintf("%s was in the causal past of session %s's read at line %d, which returned %s instead, so %s must be ordered before %s",
				c.writeText(cf.from, ck), c.sessNames[c.sess[rd]], c.line(rd), c.kv(cf.to, ck), c.kv(cf.from, ck), c.kv(cf.to, ck)))
			segStart, seg = s.to, nil
		}
		keyName := ""
		if len(keys) == 1 {
			for kk := range keys {
				keyName = c.keyNames[kk]
			}
		}
		return Violation{
			Rule: RuleOrderDisagreement,
			Key:  keyName,
			Explanation: strings.Join(parts, "; ") +
				"; so no single order of these writes explains every read (observers disagree on the order of concurrent writes, and replicas cannot converge): order disagreement",
			Ops: linesOf(c, used),
		}
	}
	return Violation{Rule: RuleOrderDisagreement, Explanation: fmt.Sprintf("conflicting writes are ordered inconsistently around line %d", c.line(r.node)), Ops: []int{c.line(r.node)}}
}

// prevCF returns the label of the conflict edge that enters node v in
// steps (the key the segment starting at v is about), or labChain.
func prevCF(steps []step, v int32, _ *checker) int32 {
	for _, s := range steps {
		if s.to == v && isCF(s.lab) {
			return s.lab
		}
	}
	return labChain
}

// kvOr describes node v with its pinned key, or the whole op.
func (c *checker) kvOr(v int32, pins map[int32]int32) string {
	if k, ok := pins[v]; ok {
		return c.kv(v, k)
	}
	return c.opText(v, -1)
}

// figureConflict adds to the figure the conflict edge cf (of key k) with
// its reason: the read that returned cf.to although cf.from was in its
// causal past, and the path that put it there.
func (c *checker) figureConflict(cf cfEdge, k int32) {
	if c.fig == nil {
		return
	}
	rd := c.items[cf.item].node
	c.fig.event(cf.from, k)
	c.fig.event(cf.to, k)
	if steps := c.g1.path(cf.from, rd, c.window(cf.from, rd)); steps != nil {
		c.chain(cf.from, steps, map[int32]int32{cf.from: k, rd: k}, map[int32]bool{})
	}
	c.fig.note(rd, k, fmt.Sprintf("puts line %d before line %d", c.line(cf.from), c.line(cf.to)))
	c.fig.edge(cf.to, rd, EdgeReadsFrom, k, false, false)
	c.fig.edge(cf.from, cf.to, EdgeConflict, k, false, true)
}
