package topology

import (
	"fmt"
	"strings"
	"time"
)

// defaultIntraDCRTTms is the RTT between two nodes of one DC when the
// topology does not say.
const defaultIntraDCRTTms = 0.5

// finish derives the lookup tables from the declared fields. It assumes
// Validate passed.
func (t *Topology) finish() {
	n := len(t.Datacenters)
	t.dcIndex = make(map[string]int, n)
	for i, d := range t.Datacenters {
		t.dcIndex[d.Name] = i
	}
	intra := t.IntraDCRTTms
	if intra == 0 {
		intra = defaultIntraDCRTTms
	}
	t.rtt = make([][]time.Duration, n)
	for i := range t.rtt {
		t.rtt[i] = make([]time.Duration, n)
		t.rtt[i][i] = msToDuration(intra)
	}
	isDC := func(name string) bool { _, ok := t.dcIndex[name]; return ok }
	for k, ms := range t.RTTms {
		a, b, _ := splitPair(k, t.Datacenters, isDC) // Validate checked every key
		i, j := t.dcIndex[a], t.dcIndex[b]
		t.rtt[i][j], t.rtt[j][i] = msToDuration(ms), msToDuration(ms)
	}
	t.ringOf = map[string]int{}
	t.rRing = nil
	for ri, ring := range t.Placement.Rings {
		var servers []serverRef
		for _, dc := range ring {
			t.ringOf[dc] = ri
			for s := 0; s < t.Datacenters[t.dcIndex[dc]].Servers; s++ {
				servers = append(servers, serverRef{dc, s})
			}
		}
		t.rRing = append(t.rRing, newHashRing(servers))
	}
	t.dcRing = map[string]*hashRing{}
	for _, d := range t.Datacenters {
		var servers []serverRef
		for s := 0; s < d.Servers; s++ {
			servers = append(servers, serverRef{d.Name, s})
		}
		t.dcRing[d.Name] = newHashRing(servers)
	}
	t.partitions = t.PartitionNames()
}

// splitPair splits an "a-b" RTT key into the names of two datacenters of
// dcs (isDC tells whether a name is one of them), so that names containing
// '-' (us-west1) parse correctly. A key that reads as two different pairs
// (a-b-c with datacenters a, b-c, a-b and c) is an error.
func splitPair(pair string, dcs []DC, isDC func(string) bool) (string, string, error) {
	var a, b string
	for _, d := range dcs {
		rest, ok := strings.CutPrefix(pair, d.Name+"-")
		if !ok || !isDC(rest) {
			continue
		}
		if a == rest && b == d.Name {
			continue // x-x-x with datacenters x and x-x: one pair either way
		}
		if a != "" {
			return "", "", fmt.Errorf("rtt_ms: %q is ambiguous: it reads as %s and %s, or as %s and %s (rename a datacenter)", pair, a, b, d.Name, rest)
		}
		a, b = d.Name, rest
	}
	if a == "" {
		return "", "", fmt.Errorf("rtt_ms: %q does not name two declared datacenters as \"a-b\"", pair)
	}
	return a, b, nil
}
