package bench

import (
	"sort"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// maxDivergenceReports bounds how many divergent keys are explained.
const maxDivergenceReports = 10

// Divergence compares, after a run has quiesced, the replicas of every key
// that some node stores: all of protocol.Replicas(key) must hold the same
// value. It returns one "divergence" violation per disagreeing key (at most
// maxDivergenceReports). quiet says whether the network went quiet; when it
// did not, the explanation says so.
func Divergence(p protocol.Protocol, t *topology.Topology, replicas map[protocol.NodeID]map[string][]byte, quiet bool) []check.Violation {
	keySet := map[string]bool{}
	for _, m := range replicas {
		for k := range m {
			keySet[k] = true
		}
	}
	keys := make([]string, 0, len(keySet))
	for k := range keySet {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []check.Violation
	for _, k := range keys {
		nodes := p.Replicas(t, k)
		vals := map[string]*string{}
		var first *string
		agree := true
		for i, n := range nodes {
			var v *string
			if m, ok := replicas[n]; ok {
				if b, ok := m[k]; ok && b != nil {
					id := workload.ValueID(b)
					v = &id
				}
			}
			vals[string(n)] = v
			if i == 0 {
				first = v
			} else if !sameValue(first, v) {
				agree = false
			}
		}
		if agree {
			continue
		}
		viol := check.Divergence(k, vals)
		if !quiet {
			viol.Explanation += " (the network had not gone quiet when replicas were compared)"
		}
		out = append(out, viol)
		if len(out) == maxDivergenceReports {
			break
		}
	}
	return out
}

func sameValue(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
