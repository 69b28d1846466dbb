package topology

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"testing"
)

func mustPreset(t *testing.T, name string) *Topology {
	t.Helper()
	topo, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// TestPresetPlacement: the K2, C3 and ChainReaction presets carry the
// papers' placement parameters.
func TestPresetPlacement(t *testing.T) {
	if got := mustPreset(t, "k2-emulab6").Placement.ReplicationFactor; got != 2 {
		t.Errorf("k2-emulab6: f = %d, want 2 (k2.txt §VII-B)", got)
	}
	c3 := mustPreset(t, "c3-azure9")
	if got := c3.Placement.DCReplicas; got != 3 {
		t.Errorf("c3-azure9: dc_replicas = %d, want 3 (c3.txt §5.2, 3 of 4 nodes)", got)
	}
	if got := len(c3.PartitionNames()); got != 9 {
		t.Errorf("c3-azure9: %d partitions, want 9", got)
	}
	if got := mustPreset(t, "chainreaction-2dc").Placement.ChainLength; got != 4 {
		t.Errorf("chainreaction-2dc: chain_length = %d, want 4 (chainreaction.txt §7.2)", got)
	}
}

// TestDCReplicas: on every DC of every preset and for every n, the replica
// set is n distinct servers of the DC, starts at ServerIndex, grows by
// appending (the first n-1 of n are the set of n-1), and is the same in a
// second load of the topology.
func TestDCReplicas(t *testing.T) {
	for _, name := range Presets() {
		topo, again := mustPreset(t, name), mustPreset(t, name)
		for _, dc := range topo.DCNames() {
			for i := 0; i < 200; i++ {
				key := fmt.Sprintf("user%06d", i)
				var prev []int
				for n := 1; n <= topo.Servers(dc); n++ {
					got := topo.DCReplicas(dc, key, n)
					if len(got) != n {
						t.Fatalf("%s: DCReplicas(%s, %s, %d) = %v", name, dc, key, n, got)
					}
					for j, s := range got {
						if s < 0 || s >= topo.Servers(dc) || slices.Contains(got[:j], s) {
							t.Fatalf("%s: DCReplicas(%s, %s, %d) = %v: not %d distinct servers of the DC", name, dc, key, n, got, n)
						}
					}
					if got[0] != topo.ServerIndex(dc, key) {
						t.Fatalf("%s: DCReplicas(%s, %s, %d) starts at %d, ServerIndex is %d", name, dc, key, n, got[0], topo.ServerIndex(dc, key))
					}
					if !slices.Equal(got[:n-1], prev) {
						t.Fatalf("%s: DCReplicas(%s, %s, %d) = %v does not extend the set of %d, %v", name, dc, key, n, got, n-1, prev)
					}
					if other := again.DCReplicas(dc, key, n); !slices.Equal(got, other) {
						t.Fatalf("%s: DCReplicas(%s, %s, %d) = %v, then %v in a second load", name, dc, key, n, got, other)
					}
					if chain := topo.Chain(dc, key, n); !slices.Equal(chain, got) {
						t.Fatalf("%s: Chain(%s, %s, %d) = %v, DCReplicas %v", name, dc, key, n, chain, got)
					}
					prev = got
				}
			}
		}
	}
}

// TestDCReplicasBalanced: over many keys each server of a DC is in about
// n/servers of the replica sets and heads about 1/servers of the chains.
func TestDCReplicasBalanced(t *testing.T) {
	topo := mustPreset(t, "karma-aws8") // 8 servers per DC
	const keys, n = 16000, 3
	member, head := map[int]int{}, map[int]int{}
	for i := 0; i < keys; i++ {
		set := topo.DCReplicas("tokyo", fmt.Sprintf("user%06d", i), n)
		head[set[0]]++
		for _, s := range set {
			member[s]++
		}
	}
	servers := topo.Servers("tokyo")
	for s := 0; s < servers; s++ {
		// 64 virtual points per server keep each within ±40% of the mean.
		if mean := keys * n / servers; member[s] < mean*6/10 || member[s] > mean*14/10 {
			t.Errorf("server %d is in %d replica sets, mean %d", s, member[s], mean)
		}
		if mean := keys / servers; head[s] < mean*6/10 || head[s] > mean*14/10 {
			t.Errorf("server %d heads %d chains, mean %d", s, head[s], mean)
		}
	}
}

// TestDCReplicasWrapAround: a key hashed past the last point of the DC's
// ring starts at the first point, and its set continues from there.
func TestDCReplicasWrapAround(t *testing.T) {
	topo := mustPreset(t, "chainreaction-2dc")
	ring := topo.dcRing["dc1"]
	last := ring.points[len(ring.points)-1].hash
	key := ""
	for i := 0; key == ""; i++ {
		if k := fmt.Sprint("wrap", i); hash64(k) > last {
			key = k
		}
		if i > 1e6 {
			t.Fatal("no key hashes past the last point")
		}
	}
	got := topo.Chain("dc1", key, 4)
	var want []int
	for _, p := range ring.points {
		if !slices.Contains(want, p.server) {
			want = append(want, p.server)
		}
	}
	if !slices.Equal(got, want[:4]) {
		t.Errorf("Chain(dc1, %s, 4) = %v, want the ring's first servers from point 0, %v", key, got, want[:4])
	}
}

// TestDCReplicasBadCountPanics: asking for more servers than the DC has,
// or for none, is a configuration error, not a smaller set.
func TestDCReplicasBadCountPanics(t *testing.T) {
	topo := mustPreset(t, "local3") // 2 servers per DC
	for _, tc := range []struct {
		dc   string
		n    int
		want string
	}{
		{"a", 3, "3 replicas of a key in a, which has 2 servers"},
		{"a", 0, "0 replicas"},
		{"a", -1, "-1 replicas"},
		{"z", 1, `unknown DC "z"`},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("DCReplicas(%s, k, %d) panicked with %v, want %q", tc.dc, tc.n, r, tc.want)
				}
			}()
			topo.DCReplicas(tc.dc, "k", tc.n)
		}()
	}
}

// TestPartitionOf: keys spread evenly and deterministically over C3's
// partitions, and PartitionDCs is the partition's declared DCs.
func TestPartitionOf(t *testing.T) {
	topo, again := mustPreset(t, "c3-azure9"), mustPreset(t, "c3-azure9")
	names := topo.PartitionNames()
	if got := strings.Join(names, " "); got != "asia australia brazil canada eastus europe india japan westus" {
		t.Fatalf("PartitionNames() = %s", got)
	}
	const keys = 90000
	count := make([]int, len(names))
	for i := 0; i < keys; i++ {
		key := fmt.Sprintf("user%06d", i)
		p := topo.PartitionOf(key)
		if p < 0 || p >= len(names) || p != again.PartitionOf(key) {
			t.Fatalf("PartitionOf(%s) = %d, then %d", key, p, again.PartitionOf(key))
		}
		count[p]++
		if topo.Partition(key) != names[p] {
			t.Fatalf("Partition(%s) = %s, PartitionOf %d (%s)", key, topo.Partition(key), p, names[p])
		}
	}
	for p, n := range count {
		if mean := keys / len(names); n < mean*9/10 || n > mean*11/10 {
			t.Errorf("partition %s holds %d keys, mean %d", names[p], n, mean)
		}
	}
	key := "user000042"
	dcs := topo.PartitionDCs(key)
	if !slices.Equal(dcs, topo.Placement.Partitions[topo.Partition(key)]) {
		t.Fatalf("PartitionDCs(%s) = %v, partition %s has %v", key, dcs, topo.Partition(key), topo.Placement.Partitions[topo.Partition(key)])
	}
	dcs[0] = "mars"
	if topo.PartitionDCs(key)[0] == "mars" {
		t.Error("PartitionDCs returns the topology's own slice")
	}
}

// TestNoPartitions: without partitions no key is in one, and every DC
// stores every key.
func TestNoPartitions(t *testing.T) {
	topo := mustPreset(t, "karma-aws8")
	if p := topo.PartitionOf("k"); p != -1 {
		t.Errorf("PartitionOf = %d, want -1", p)
	}
	if p := topo.Partition("k"); p != "" {
		t.Errorf("Partition = %q, want none", p)
	}
	if got := topo.PartitionDCs("k"); !slices.Equal(got, topo.DCNames()) {
		t.Errorf("PartitionDCs = %v, want every DC", got)
	}
}

// TestReplicaDCsBalanced: with K2's f = 2 of 6 DCs, each DC stores about a
// third of the keys' values.
func TestReplicaDCsBalanced(t *testing.T) {
	topo := mustPreset(t, "k2-emulab6")
	const keys, f = 12000, 2
	stores := map[string]int{}
	for i := 0; i < keys; i++ {
		for _, dc := range topo.ReplicaDCs(fmt.Sprintf("user%06d", i), f) {
			stores[dc]++
		}
	}
	for _, dc := range topo.DCNames() {
		if mean := keys * f / 6; stores[dc] < mean*6/10 || stores[dc] > mean*14/10 {
			t.Errorf("%s stores %d keys, mean %d", dc, stores[dc], mean)
		}
	}
}

// TestPlacementSizesValidated: dc_replicas and chain_length must fit in
// every DC, and the error names the field and the DC.
func TestPlacementSizesValidated(t *testing.T) {
	base := "name: t\ndatacenters: [{name: a, servers: 4}, {name: b, servers: 2}]\nrtt_ms: {a-b: 10}\n"
	for _, tc := range []struct{ placement, want string }{
		{"{chain_length: 3}", "placement.chain_length: 3 is more than the 2 servers of b"},
		{"{dc_replicas: 5}", "placement.dc_replicas: 5 is more than the 2 servers of b"},
		{"{dc_replicas: -1}", "placement.dc_replicas: must not be negative, got -1"},
		{"{chain_length: -2}", "placement.chain_length: must not be negative, got -2"},
	} {
		_, err := Parse([]byte(base + "placement: " + tc.placement + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("placement %s: error %v, want %q", tc.placement, err, tc.want)
		}
	}
	topo, err := Parse([]byte(base + "placement: {chain_length: 2, dc_replicas: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if topo.MinServers() != 2 || !strings.Contains(topo.Describe(), "2 replicas per DC; chains of 2") {
		t.Errorf("MinServers %d, Describe %q", topo.MinServers(), topo.Describe())
	}
}

// TestHash64IsFNV1aThenSplitmix pins the placement hash: keys must land
// where they always did (hash64 computes FNV-1a inline, without hash/fnv).
func TestHash64IsFNV1aThenSplitmix(t *testing.T) {
	for _, s := range []string{"", "k", "user00000042", "a/3#63", "tokyo/10#0"} {
		h := fnv.New64a()
		_, _ = h.Write([]byte(s))
		if got, want := hash64(s), mix64(h.Sum64()); got != want {
			t.Errorf("hash64(%q) = %#x, want FNV-1a then splitmix64 = %#x", s, got, want)
		}
	}
}

// TestReplicaGroups: K2's placement on k2-emulab6 as its doc comment
// documents it for f = 1, 2, 3, and every key's f replica DCs lie one in
// each group, so the DC holding a key in one group has an equivalent DC
// holding it in every other (RAD's replication, k2.txt §VII-A).
func TestReplicaGroups(t *testing.T) {
	topo := mustPreset(t, "k2-emulab6")
	want := map[int][][]string{
		1: {{"va", "ca", "sp", "ldn", "tyo", "sg"}},
		2: {{"va", "sp", "tyo"}, {"ca", "ldn", "sg"}},
		3: {{"va", "ldn"}, {"ca", "tyo"}, {"sp", "sg"}},
	}
	for f, w := range want {
		got := topo.ReplicaGroups(f)
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("ReplicaGroups(%d) = %v, want %v", f, got, w)
		}
	}
	for _, f := range []int{2, 3} {
		groups := topo.ReplicaGroups(f)
		for i := 0; i < 1000; i++ {
			key := fmt.Sprintf("user%06d", i)
			dcs := topo.ReplicaDCs(key, f)
			for _, grp := range groups {
				n := 0
				for _, dc := range dcs {
					if slices.Contains(grp, dc) {
						n++
					}
				}
				if n != 1 {
					t.Fatalf("ReplicaDCs(%s, %d) = %v: %d DCs in group %v, want 1", key, f, dcs, n, grp)
				}
			}
		}
	}
}

// TestDCRingIsServerIndex: a DC's ring answers as ServerIndex does, by
// key and by KeyHash, and its search finds the first point at or after
// a hash as a scan of the points does (points' own hashes, their
// neighbours, and both ends wrapping around).
func TestDCRingIsServerIndex(t *testing.T) {
	for _, name := range []string{"karma-aws8", "local3", "c3-azure9"} {
		topo := mustPreset(t, name)
		for _, d := range topo.Datacenters {
			ring := topo.DCRing(d.Name)
			for i := 0; i < 2000; i++ {
				key := fmt.Sprintf("user%d", i*7919)
				want := topo.ServerIndex(d.Name, key)
				if got := ring.Server(key); got != want {
					t.Fatalf("%s/%s: DCRing.Server(%q) = %d, ServerIndex %d", name, d.Name, key, got, want)
				}
				if got := ring.ServerAt(KeyHash(key)); got != want {
					t.Fatalf("%s/%s: ServerAt(KeyHash(%q)) = %d, ServerIndex %d", name, d.Name, key, got, want)
				}
			}
			scan := func(h uint64) int {
				for _, p := range ring.r.points {
					if p.hash >= h {
						return p.server
					}
				}
				return ring.r.points[0].server
			}
			hs := []uint64{0, 1, math.MaxUint64}
			for _, p := range ring.r.points {
				hs = append(hs, p.hash-1, p.hash, p.hash+1)
			}
			for b := range ring.r.start { // each bucket's edges (firstAt's start)
				low := uint64(b) << ring.r.shift
				hs = append(hs, low-1, low, low+1, low+1<<ring.r.shift/2)
			}
			for _, h := range hs {
				if got, want := ring.ServerAt(h), scan(h); got != want {
					t.Fatalf("%s/%s: ServerAt(%#x) = %d, a scan finds %d", name, d.Name, h, got, want)
				}
			}
		}
	}
}
