// Package topology describes where Causeway runs: datacenters (DCs), the
// round-trip times between them, the storage servers in each, and where
// each key is placed. Topologies are loaded from YAML or taken from the
// named presets shipped in the binary.
//
// # Placement
//
// Placement is deterministic: it depends only on the topology and the key,
// through one hash (FNV-1a 64 of the key, finished by a splitmix64 step)
// and consistent-hash rings of 64 virtual points per server. The YAML
// section placement: holds each design's parameters, all optional:
//
//   - rings (Karma, COPS-PR): groups of DCs; RingReplica gives the one
//     server of a ring that stores a key, over every server of the ring.
//   - replication_factor (K2's f, RAD, PaRiS): ReplicaDCs(key, f) gives
//     the f DCs that store a key's value, in ring order over DC names (the
//     first is the key's primary); the others hold its metadata only.
//   - partitions (C3, Saturn): partition name -> the DCs that replicate
//     it. PartitionOf(key) is the key's hash modulo the number of
//     partitions, an index into the sorted PartitionNames; PartitionDCs
//     gives the DCs of a key's partition.
//   - dc_replicas (C3's 3 of 4 nodes): DCReplicas(dc, key, n) gives the n
//     distinct servers of dc that store a key, clockwise on dc's ring from
//     the key's point; the first is ServerIndex(dc, key).
//   - chain_length (ChainReaction's R): Chain(dc, key, R) is
//     DCReplicas(dc, key, R) in chain order, head first, tail last.
//
// dc_replicas and chain_length may not exceed the servers of any DC, and
// DCReplicas and Chain panic when asked for more servers than the DC has
// (or fewer than one), rather than return a smaller set. Validation errors
// name the field ("placement.chain_length: …").
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
	// Saturn); keys are spread over the partitions by PartitionOf.
	Partitions map[string][]string `yaml:"partitions,omitempty"`
	// DCReplicas is how many servers of a DC store each key the DC stores
	// (C3: 3 of 4, c3.txt §5.2); 0 means the protocol's default.
	DCReplicas int `yaml:"dc_replicas,omitempty"`
	// ChainLength is ChainReaction's R, the servers of a key's chain in each
	// DC (chainreaction.txt §3.2); 0 means the protocol's default.
	ChainLength int `yaml:"chain_length,omitempty"`
	// CacheFraction is the size of K2's per-DC cache as a share of the
	// keys (k2.txt §VII-B: 5% by default, 1% and 15% in Fig. 9); 0 means
	// the protocol's default.
	CacheFraction float64 `yaml:"cache_fraction,omitempty"`
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
	// (default 0.5 ms in the simulator; a live cluster emulates it only
	// when it is set, see runtime/node).
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
	// partitions lists the partition names sorted (PartitionOf's index).
	partitions []string
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

// KeyHash is where key falls on every consistent-hashing ring: what
// ServerIndex computes first. A caller placing one key in several DCs
// hashes it once (DCRing.ServerAt).
func KeyHash(key string) uint64 { return hash64(key) }

// DCRing is one DC's consistent-hashing ring: ServerIndex for that DC,
// without finding the DC by name at each lookup.
type DCRing struct{ r *hashRing }

// DCRing returns dc's ring; it panics when dc is not a DC of t.
func (t *Topology) DCRing(dc string) DCRing {
	r, ok := t.dcRing[dc]
	if !ok {
		panic(fmt.Sprintf("topology %s: unknown DC %q", t.Name, dc))
	}
	return DCRing{r}
}

// Server returns which of the DC's servers stores key:
// ServerIndex(dc, key).
func (d DCRing) Server(key string) int { return d.ServerAt(hash64(key)) }

// ServerAt returns which of the DC's servers stores a key whose KeyHash
// is h.
func (d DCRing) ServerAt(h uint64) int { return d.r.points[d.r.firstAt(h)].server }

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

// ReplicaGroups splits the DCs into f replica groups, the placement of
// K2 and of its RAD baseline (k2.txt §VII-A: "split data in each replica
// across datacenters, which together form a replica group"): the DC at
// position i of the topology's declared order joins group i mod f, so a
// group of a topology declared region by region spans the regions. Each
// group holds one full copy of the data, split over its DCs (ReplicaDCs).
// On k2-emulab6 (va, ca, sp, ldn, tyo, sg): f = 1 is one group of all six;
// f = 2 is {va, sp, tyo} and {ca, ldn, sg}; f = 3 is {va, ldn}, {ca, tyo}
// and {sp, sg}. When f does not divide the DCs the first groups have one
// DC more, and a DC of a smaller group stores more keys. f <= 0 or f >=
// the number of DCs gives one group per DC.
func (t *Topology) ReplicaGroups(f int) [][]string {
	names := t.DCNames()
	if f <= 0 || f >= len(names) {
		f = len(names)
	}
	groups := make([][]string, f)
	for i, dc := range names {
		groups[i%f] = append(groups[i%f], dc)
	}
	return groups
}

// ReplicaDCs returns the f DCs that store key's value when each key is
// stored in f DCs (K2, RAD): one DC of each replica group (ReplicaGroups),
// the one at position hash(key) mod the group's size, so that a group's
// DCs split its copy evenly and the DC holding a key in one group is the
// "equivalent datacenter" of the DC holding it in another. The groups are
// listed from one chosen by the key's hash, so every DC is some keys'
// first replica. f <= 0 or f >= the number of DCs returns every DC.
func (t *Topology) ReplicaDCs(key string, f int) []string {
	if f <= 0 || f >= len(t.Datacenters) {
		return t.DCNames()
	}
	groups := t.ReplicaGroups(f)
	h := hash64(key)
	first := int((h >> 32) % uint64(f))
	out := make([]string, 0, f)
	for g := 0; g < f; g++ {
		grp := groups[(first+g)%f]
		out = append(out, grp[h%uint64(len(grp))])
	}
	return out
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
