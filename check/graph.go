package check

// Edge labels: >= 0 is a read item (a reads-from edge); labPrefix is the
// session-order edge into a failed write; <= labCF0 is a conflict edge.
const (
	labChain  int32 = -1 // the implicit session-order edge next[v]
	labPrefix int32 = -2
	labCF0    int32 = -3
)

func cfLab(i int) int32      { return labCF0 - int32(i) }
func cfIndex(lab int32) int  { return int(labCF0 - lab) }
func isCF(lab int32) bool    { return lab <= labCF0 }
func isWeight0(l int32) bool { return l == labChain || l == labPrefix }

type edge struct {
	from, to, lab int32
}

// graph is the event graph: an implicit session-order successor per node
// plus labelled edges in CSR form.
type graph struct {
	n    int
	next []int32 // session-order successor, -1 if none
	off  []int32 // edges of v: dst/lab[off[v]:off[v+1]]
	dst  []int32
	lab  []int32
}

func (g *graph) setEdges(es []edge) {
	g.off = make([]int32, g.n+1)
	for _, e := range es {
		g.off[e.from+1]++
	}
	for i := 1; i <= g.n; i++ {
		g.off[i] += g.off[i-1]
	}
	g.dst = make([]int32, len(es))
	g.lab = make([]int32, len(es))
	fill := make([]int32, g.n)
	copy(fill, g.off[:g.n])
	for _, e := range es {
		j := fill[e.from]
		fill[e.from]++
		g.dst[j], g.lab[j] = e.to, e.lab
	}
}

func (g *graph) edges() []edge {
	es := make([]edge, 0, len(g.dst))
	for v := range g.n {
		for j := g.off[v]; j < g.off[v+1]; j++ {
			es = append(es, edge{from: int32(v), to: g.dst[j], lab: g.lab[j]})
		}
	}
	return es
}

// kahn returns a topological order of the nodes it could order (all of
// them when the graph is acyclic), calling visit (if not nil) on each node
// before its successors are released.
func (g *graph) kahn(visit func(v int32)) []int32 {
	indeg := make([]int32, g.n)
	for v := range g.n {
		if w := g.next[v]; w >= 0 {
			indeg[w]++
		}
	}
	for _, w := range g.dst {
		indeg[w]++
	}
	order := make([]int32, 0, g.n)
	for v := range g.n {
		if indeg[v] == 0 {
			order = append(order, int32(v))
		}
	}
	for head := 0; head < len(order); head++ {
		v := order[head]
		if visit != nil {
			visit(v)
		}
		if w := g.next[v]; w >= 0 {
			if indeg[w]--; indeg[w] == 0 {
				order = append(order, w)
			}
		}
		for j := g.off[v]; j < g.off[v+1]; j++ {
			w := g.dst[j]
			if indeg[w]--; indeg[w] == 0 {
				order = append(order, w)
			}
		}
	}
	return order
}

// succ returns the k-th successor of v (k = 0 is the session-order one,
// which may be absent) and its label; ok is false past the last.
func (g *graph) succ(v int32, k int32) (w, lab int32, ok bool) {
	if k == 0 {
		return g.next[v], labChain, true
	}
	j := g.off[v] + k - 1
	if j >= g.off[v+1] {
		return 0, 0, false
	}
	return g.dst[j], g.lab[j], true
}

// sccs returns, for each node, the id of its strongly connected component
// when that component has more than one node (a cycle), -1 otherwise, and
// the number of such components. Iterative Tarjan.
func (g *graph) sccs() ([]int32, int32) {
	const unvisited = -1
	index := make([]int32, g.n)
	low := make([]int32, g.n)
	onStack := make([]bool, g.n)
	comp := make([]int32, g.n)
	for i := range index {
		index[i] = unvisited
		comp[i] = -1
	}
	var stack []int32
	type frame struct{ v, k int32 }
	var call []frame
	var counter, ncomp int32
	for root := range g.n {
		if index[root] != unvisited {
			continue
		}
		call = append(call[:0], frame{int32(root), 0})
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			w, _, ok := g.succ(v, f.k)
			if ok {
				f.k++
				if w < 0 {
					continue
				}
				if index[w] == unvisited {
					index[w], low[w] = counter, counter
					counter++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				if p := call[len(call)-1].v; low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] == index[v] {
				top := len(stack) - 1
				for stack[top] != v {
					top--
				}
				members := stack[top:]
				if len(members) > 1 {
					for _, m := range members {
						comp[m] = ncomp
					}
					ncomp++
				}
				for _, m := range members {
					onStack[m] = false
				}
				stack = stack[:top]
			}
		}
	}
	return comp, ncomp
}

// step is one edge of a path: into node to, with label lab.
type step struct {
	to, lab int32
}

// path finds a path from a to b through nodes allowed by ok, preferring
// few reads-from/conflict hops (session-order edges are free: 0-1 BFS).
// It returns the steps after a (the last one reaching b), or nil.
func (g *graph) path(a, b int32, ok func(v int32) bool) []step {
	if a == b {
		return []step{}
	}
	dist := map[int32]int32{a: 0}
	parent := map[int32]step{} // node -> (previous node, label)
	deque := []int32{a}
	head := 0
	// Deque as a slice with front insertions handled by a second slice.
	var front []int32
	pop := func() (int32, bool) {
		if n := len(front); n > 0 {
			v := front[n-1]
			front = front[:n-1]
			return v, true
		}
		if head < len(deque) {
			v := deque[head]
			head++
			return v, true
		}
		return 0, false
	}
	done := map[int32]bool{}
	for {
		v, more := pop()
		if !more {
			return nil
		}
		if done[v] {
			continue
		}
		done[v] = true
		if v == b {
			break
		}
		for k := int32(0); ; k++ {
			w, lab, has := g.succ(v, k)
			if !has {
				break
			}
			if w < 0 || !ok(w) {
				continue
			}
			d := dist[v]
			if !isWeight0(lab) {
				d++
			}
			if old, seen := dist[w]; seen && old <= d {
				continue
			}
			dist[w] = d
			parent[w] = step{to: v, lab: lab}
			if isWeight0(lab) {
				front = append(front, w)
			} else {
				deque = append(deque, w)
			}
		}
	}
	var rev []step
	for v := b; v != a; {
		p := parent[v]
		rev = append(rev, step{to: v, lab: p.lab})
		v = p.to
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
