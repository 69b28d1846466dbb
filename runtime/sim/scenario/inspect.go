package scenario

import (
	"fmt"
	"sort"
	"strings"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
)

// replicas renders the value of key at each of its replicas.
func (st *state) replicas(key string) string {
	var b strings.Builder
	reps := st.sim.Replicas()
	ids := append([]protocol.NodeID(nil), st.proto.Replicas(st.topo, key)...)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		m, up := reps[id]
		switch v, ok := m[key]; {
		case !up:
			fmt.Fprintf(&b, "%s: down\n", id)
		case !ok:
			fmt.Fprintf(&b, "%s: <none>\n", id)
		default:
			fmt.Fprintf(&b, "%s: %s\n", id, v)
		}
	}
	return b.String()
}

// check runs the causal+ checker on the history so far.
func (st *state) check() string {
	res := check.Check(&history.History{Ops: st.ops}, check.Options{})
	if res.OK {
		return fmt.Sprintf("ok: %d operations, causal+\n", res.Operations)
	}
	var b strings.Builder
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "%s on %s: %s\n", v.Rule, v.Key, v.Explanation)
	}
	return b.String()
}
