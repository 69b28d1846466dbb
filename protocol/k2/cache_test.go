package k2

import (
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// TestCacheCapacityFollowsTheTopology: a server's share of the DC cache
// is placement.cache_fraction of the keys (5% without it) over the DC's
// servers, as Fig. 9's 1% and 15% columns need, and none for PaRiS*.
func TestCacheCapacityFollowsTheTopology(t *testing.T) {
	topo, err := topology.Preset("k2-emulab6")
	if err != nil {
		t.Fatal(err)
	}
	d := &protocol.Dataset{Records: 100_000}
	id := protocol.NodeID("va/s0")
	for _, tt := range []struct {
		frac float64
		want int
	}{{0, 1250}, {0.01, 250}, {0.15, 3750}} {
		topo.Placement.CacheFraction = tt.frac
		s := &server{topo: topo, dc: id.DC()}
		if got := s.cacheCapacity(d); got != tt.want {
			t.Errorf("cache_fraction %v: %d keys per server, want %d", tt.frac, got, tt.want)
		}
	}
	p := &server{topo: topo, dc: id.DC(), mode: Mode{Paris: true}}
	if got := p.cacheCapacity(d); got != 0 {
		t.Errorf("PaRiS*: %d keys cached per server, want none", got)
	}
}

// TestPrewarmHoldsTheLastReadNonReplicaKeys: a server given a warm-up
// (Dataset.Warm) starts its cache with the loaded values (version 0) of
// the most recently read keys it owns and its DC does not replicate, up
// to its capacity, least recently read next to go; a replica key is never
// cached, nor anything on a restart or in PaRiS*.
func TestPrewarmHoldsTheLastReadNonReplicaKeys(t *testing.T) {
	topo, err := topology.Preset("k2-emulab6")
	if err != nil {
		t.Fatal(err)
	}
	d := &protocol.Dataset{Records: 2000, KeyPrefix: "user", KeyDigits: 8, ValueSize: 32}
	for i := int64(0); i < d.Records; i++ {
		d.Warm = append(d.Warm, i) // key i read i-th: the last keys are the most recent
	}
	id := protocol.NodeID("va/s0")
	s := newServer(Mode{}, protocol.NodeConfig{ID: id, Incarnation: 1, Topology: topo, Loaded: d})
	if s.cache.cap != 25 {
		t.Fatalf("capacity %d, want 25 (5%% of 2000 keys over 4 servers)", s.cache.cap)
	}
	var want []string // eligible keys, most recent first
	for i := d.Records - 1; i >= 0 && len(want) < s.cache.cap; i-- {
		key := d.Key(i)
		if !isReplica(topo, "va", key) && owner(topo, "va", key) == id {
			want = append(want, key)
		}
	}
	if len(s.cache.items) != len(want) {
		t.Fatalf("%d keys cached, want %d", len(s.cache.items), len(want))
	}
	i := 0
	for el := s.cache.order.Front(); el != nil; el = el.Next() {
		if got := el.Value.(*cacheItem).k.key; got != want[i] {
			t.Errorf("LRU position %d holds %s, want %s (the most recently read first)", i, got, want[i])
		}
		i++
	}
	for _, key := range want {
		v, ok := s.cache.get(key, 0)
		if !ok || string(v) != string(d.Value(key)) {
			t.Errorf("%s: cached %q, %v; want its loaded value", key, v, ok)
		}
	}
	// The gets above touched want from most to least recent, so the most
	// recent is now the least recently used, and the next put evicts it.
	s.cache.put("other", 1, []byte("x"))
	if _, ok := s.cache.items[want[0]]; ok {
		t.Errorf("%s still cached after one more put: not LRU order", want[0])
	}
	for key := range s.cache.items {
		if isReplica(topo, "va", key) {
			t.Errorf("replica key %s cached", key)
		}
	}
	if r := newServer(Mode{}, protocol.NodeConfig{ID: id, Incarnation: 2, Topology: topo, Loaded: d}); len(r.cache.items) != 0 {
		t.Errorf("a restarted server starts with %d keys cached, want none", len(r.cache.items))
	}
	if p := newServer(Mode{Paris: true}, protocol.NodeConfig{ID: id, Incarnation: 1, Topology: topo, Loaded: d}); len(p.cache.items) != 0 {
		t.Errorf("PaRiS* starts with %d keys cached, want none", len(p.cache.items))
	}
}
