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
		for j := range t.rtt[i] {
			if i == j {
				t.rtt[i][j] = msToDuration(intra)
				continue
			}
			ms, _ := t.lookupRTT(t.Datacenters[i].Name, t.Datacenters[j].Name)
			t.rtt[i][j] = msToDuration(ms)
		}
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
	var dcs []serverRef
	for _, d := range t.Datacenters {
		var servers []serverRef
		for s := 0; s < d.Servers; s++ {
			servers = append(servers, serverRef{d.Name, s})
		}
		t.dcRing[d.Name] = newHashRing(servers)
		dcs = append(dcs, serverRef{d.Name, 0})
	}
	t.allDCs = newHashRing(dcs)
}

// lookupRTT finds the RTT of a pair written either "a-b" or "b-a".
func (t *Topology) lookupRTT(a, b string) (float64, bool) {
	if v, ok := t.RTTms[a+"-"+b]; ok {
		return v, true
	}
	v, ok := t.RTTms[b+"-"+a]
	return v, ok
}

// splitPair splits an "a-b" RTT key into its two DC names, using the known
// DC names so that names containing '-' (us-west1) parse correctly.
func (t *Topology) splitPair(pair string) (string, string, error) {
	for _, d := range t.Datacenters {
		if strings.HasPrefix(pair, d.Name+"-") {
			rest := strings.TrimPrefix(pair, d.Name+"-")
			for _, e := range t.Datacenters {
				if rest == e.Name {
					return d.Name, e.Name, nil
				}
			}
		}
	}
	return "", "", fmt.Errorf("rtt_ms: %q does not name two declared datacenters as \"a-b\"", pair)
}
