package topology

import (
	"fmt"
	"sort"
)

// This file answers "who stores key k" for the placements that are not
// Karma rings: K2's f replica DCs (ReplicaDCs, in topology.go), C3's
// partitions (PartitionOf, PartitionDCs), and replica sets and chains on a
// DC's own ring (DCReplicas, Chain).

// PartitionNames returns the names of the topology's partitions, sorted:
// partition index i (PartitionOf) is PartitionNames()[i].
func (t *Topology) PartitionNames() []string {
	out := make([]string, 0, len(t.Placement.Partitions))
	for p := range t.Placement.Partitions {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// PartitionOf returns the index of the partition that holds key, among the
// topology's partitions sorted by name (PartitionNames): the key's hash
// (FNV-1a 64 finished by a splitmix64 step, the hash of the rings) modulo
// the number of partitions, so every partition holds about as many keys
// (C3's "equal partitions"). It returns -1 when the topology has no
// partitions.
func (t *Topology) PartitionOf(key string) int {
	n := len(t.partitions)
	if n == 0 {
		return -1
	}
	return int(hash64(key) % uint64(n))
}

// Partition returns the name of the partition that holds key ("" when the
// topology has no partitions).
func (t *Topology) Partition(key string) string {
	if i := t.PartitionOf(key); i >= 0 {
		return t.partitions[i]
	}
	return ""
}

// PartitionDCs returns the DCs that replicate key's partition, as declared
// (the order of the topology file). With no partitions every DC stores
// every key, and it returns every DC.
func (t *Topology) PartitionDCs(key string) []string {
	p := t.Partition(key)
	if p == "" {
		return t.DCNames()
	}
	return append([]string(nil), t.Placement.Partitions[p]...)
}

// MinServers returns the smallest number of servers of a DC: the largest
// replica set or chain that every DC can hold.
func (t *Topology) MinServers() int {
	m := 0
	for i, d := range t.Datacenters {
		if i == 0 || d.Servers < m {
			m = d.Servers
		}
	}
	return m
}

// DCReplicas returns the n distinct servers of dc that store key inside the
// DC (C3's replica set of a partition's key, §5.2 "3 of 4"): walking dc's
// consistent-hash ring clockwise from the key's position, the first n
// distinct servers met, in that order. The first is ServerIndex(dc, key).
//
// n must be between 1 and the DC's servers: a larger n is a configuration
// error (placement.dc_replicas and placement.chain_length are validated
// against every DC), not something to cap silently — a quorum of 2 out of
// a capped "3" would be a majority of nothing. DCReplicas panics on it, as
// RTT does on an unknown DC.
func (t *Topology) DCReplicas(dc, key string, n int) []int {
	r, ok := t.dcRing[dc]
	if !ok {
		panic(fmt.Sprintf("topology %s: unknown DC %q", t.Name, dc))
	}
	if s := t.Servers(dc); n < 1 || n > s {
		panic(fmt.Sprintf("topology %s: %d replicas of a key in %s, which has %d servers", t.Name, n, dc, s))
	}
	return r.distinctServers(key, n)
}

// Chain returns ChainReaction's chain for key in dc (chainreaction.txt
// §3.2: "a key lives on R consecutive servers" of the DC's one-hop DHT
// ring): R distinct servers in chain order, the head first and the tail
// last. It is DCReplicas(dc, key, R), under the paper's name, and panics
// as DCReplicas does when R is not between 1 and the DC's servers.
func (t *Topology) Chain(dc, key string, R int) []int { return t.DCReplicas(dc, key, R) }

// validatePlacementSizes checks the per-DC sizes of placement: a replica
// set or chain must fit in every DC.
func (t *Topology) validatePlacementSizes(bad func(string, ...any)) {
	minDC, minServers := "", 0
	for i, d := range t.Datacenters {
		if i == 0 || d.Servers < minServers {
			minDC, minServers = d.Name, d.Servers
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"dc_replicas", t.Placement.DCReplicas}, {"chain_length", t.Placement.ChainLength}} {
		switch {
		case f.v < 0:
			bad("placement.%s: must not be negative, got %d", f.name, f.v)
		case f.v > minServers:
			bad("placement.%s: %d is more than the %d servers of %s (every DC holds a replica set of every key)", f.name, f.v, minServers, minDC)
		}
	}
}
