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
