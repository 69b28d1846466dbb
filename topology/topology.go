// Package topology describes where Causeway runs: datacenters (DCs), the
// round-trip times between them, the storage servers in each, and where
// each key is placed (Karma rings, K2/RAD replica sets, C3/Saturn
// partitions). Topologies are loaded from YAML or taken from the named
// presets shipped in the binary.
//
// Placement is deterministic: it depends only on the topology and the key,
// through consistent hashing (FNV-1a, 64 virtual points per server).
package topology

import (
	"fmt"
	"time"
)

// DC is one datacenter.
type DC struct {
	Name string `yaml:"name"`
	// Servers is the number of storage servers in the DC.
	Servers int `yaml:"servers"`
}

// Placement holds the protocol-specific placement sections of a topology.
type Placement struct {
	// Rings groups DCs into rings (Karma, COPS-PR); each DC is in at most
	// one ring.
	Rings [][]string `yaml:"rings,omitempty"`
	// ReplicationFactor is the number of DCs that store each key (K2, RAD,
	// PaRiS); 0 means every DC.
	ReplicationFactor int `yaml:"replication_factor,omitempty"`
	// Partitions maps a partition name to the DCs that replicate it (C3,
	// Saturn).
	Partitions map[string][]string `yaml:"partitions,omitempty"`
}

// Topology is a set of datacenters with their latencies and placement.
type Topology struct {
	Name string `yaml:"name"`
	// Source cites where the numbers come from.
	Source      string `yaml:"source,omitempty"`
	Datacenters []DC   `yaml:"datacenters"`
	// RTTms holds symmetric round-trip times in milliseconds keyed "a-b".
	RTTms map[string]float64 `yaml:"rtt_ms"`
	// IntraDCRTTms is the round-trip time between two nodes of the same DC
	// (default 0.5 ms).
	IntraDCRTTms float64 `yaml:"intra_dc_rtt_ms,omitempty"`
	// JitterMs is the default one-way jitter bound (uniform in ±JitterMs).
	JitterMs  float64   `yaml:"jitter_ms,omitempty"`
	Placement Placement `yaml:"placement,omitempty"`

	// Derived by finish(): index of each DC, RTT matrix, ring of each DC
	// and hash rings.
	dcIndex map[string]int
	rtt     [][]time.Duration
	ringOf  map[string]int
	dcRing  map[string]*hashRing // per-DC ring over the DC's servers
	rRing   []*hashRing          // per Karma ring, over all servers of its DCs
	allDCs  *hashRing            // over DC names, for replica sets
}

// DCNames lists the datacenters in declaration order.
func (t *Topology) DCNames() []string {
	out := make([]string, len(t.Datacenters))
	for i, d := range t.Datacenters {
		out[i] = d.Name
	}
	return out
}

// HasDC reports whether name is a datacenter of t.
func (t *Topology) HasDC(name string) bool { _, ok := t.dcIndex[name]; return ok }

// Servers returns the number of storage servers in dc (0 if unknown).
func (t *Topology) Servers(dc string) int {
	if i, ok := t.dcIndex[dc]; ok {
		return t.Datacenters[i].Servers
	}
	return 0
}

// RTT returns the round-trip time between two DCs (the intra-DC RTT when
// a == b).
func (t *Topology) RTT(a, b string) time.Duration {
	i, ok1 := t.dcIndex[a]
	j, ok2 := t.dcIndex[b]
	if !ok1 || !ok2 {
		panic(fmt.Sprintf("topology %s: RTT of unknown DC pair %s-%s", t.Name, a, b))
	}
	return t.rtt[i][j]
}

// OneWay returns the one-way delay between two DCs: RTT/2.
func (t *Topology) OneWay(a, b string) time.Duration { return t.RTT(a, b) / 2 }

// Jitter returns the default one-way jitter bound.
func (t *Topology) Jitter() time.Duration { return msToDuration(t.JitterMs) }

// Nearest returns the DC of among that is closest to from (from itself if
// it is in among); ties go to the earlier-declared DC. It returns "" when
// among is empty.
func (t *Topology) Nearest(from string, among []string) string {
	best, bestRTT := "", time.Duration(-1)
	for _, dc := range t.Datacenters {
		if !contains(among, dc.Name) {
			continue
		}
		r := t.RTT(from, dc.Name)
		if bestRTT < 0 || r < bestRTT {
			best, bestRTT = dc.Name, r
		}
	}
	return best
}

// ServerIndex returns which of dc's servers stores key, by consistent
// hashing over the DC's servers.
func (t *Topology) ServerIndex(dc, key string) int {
	r, ok := t.dcRing[dc]
	if !ok {
		panic(fmt.Sprintf("topology %s: unknown DC %q", t.Name, dc))
	}
	return r.lookup(key).server
}

// Rings returns the rings of DCs (nil when the topology has none).
func (t *Topology) Rings() [][]string { return t.Placement.Rings }

// RingOf returns the index of dc's ring, or -1.
func (t *Topology) RingOf(dc string) int {
	if r, ok := t.ringOf[dc]; ok {
		return r
	}
	return -1
}

// RingReplica returns where ring stores key: one server in one of the
// ring's DCs, by consistent hashing over every server of the ring.
func (t *Topology) RingReplica(ring int, key string) (dc string, server int) {
	p := t.rRing[ring].lookup(key)
	return p.dc, p.server
}

// ReplicaDCs returns the f DCs that store key when each key is stored in f
// DCs (K2, RAD), chosen by consistent hashing over DC names. f <= 0 or f >=
// the number of DCs returns every DC. The result is in ring order: the
// first DC is the key's primary.
func (t *Topology) ReplicaDCs(key string, f int) []string {
	if f <= 0 || f >= len(t.Datacenters) {
		return t.DCNames()
	}
	return t.allDCs.distinctDCs(key, f)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func msToDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
