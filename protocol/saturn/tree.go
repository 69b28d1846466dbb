package saturn

import (
	"slices"

	"github.com/causeway/causeway/topology"
)

// tree is Saturn's dissemination tree (c3.txt §2): one FIFO link per tree
// edge, every label relayed hop by hop along it.
//
// The tree is the minimum spanning tree over the topology's RTTs (Prim's
// algorithm from the first declared DC; of equally short edges, the one
// whose inside end was declared first, then whose outside end was). It
// depends on the topology alone, so every serializer builds the same
// tree. c3.txt §5.1's authors hand-built their tree "to minimize the
// overall latency between neighboring datacenters", which an MST does by
// definition.
type tree struct {
	// adj lists each DC's neighbours (indices into the topology's DCs).
	adj [][]int
	// next[a][b] is the neighbour of a on the path to b (-1 when a == b).
	next [][]int
}

// newTree builds the tree of t.
func newTree(t *topology.Topology) *tree {
	dcs := t.DCNames()
	n := len(dcs)
	tr := &tree{adj: make([][]int, n), next: make([][]int, n)}
	in := make([]bool, n)
	if n > 0 {
		in[0] = true
	}
	for added := 1; added < n; added++ {
		bu, bv := -1, -1
		for u := 0; u < n; u++ {
			if !in[u] {
				continue
			}
			for v := 0; v < n; v++ {
				if in[v] {
					continue
				}
				if bu < 0 || t.RTT(dcs[u], dcs[v]) < t.RTT(dcs[bu], dcs[bv]) {
					bu, bv = u, v
				}
			}
		}
		in[bv] = true
		tr.adj[bu] = append(tr.adj[bu], bv)
		tr.adj[bv] = append(tr.adj[bv], bu)
	}
	for a := range n {
		slices.Sort(tr.adj[a])
		tr.next[a] = make([]int, n)
		for b := range tr.next[a] {
			tr.next[a][b] = -1
		}
		// Walk the tree from a: every DC behind neighbour v is reached
		// through v.
		for _, v := range tr.adj[a] {
			stack := []int{v}
			tr.next[a][v] = v
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, w := range tr.adj[u] {
					if w != a && tr.next[a][w] < 0 {
						tr.next[a][w] = v
						stack = append(stack, w)
					}
				}
			}
		}
	}
	return tr
}
