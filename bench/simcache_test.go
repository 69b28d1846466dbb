package bench

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// TestRecorderExpectedCache: the VisibleAt set the recorder caches per key
// is, for every key and whatever order keys come in, the set computed
// afresh (sorted, without duplicates), for protocols with and without
// metadata-only replicas; and so is the farthest one-way delay from each
// DC (and from a DC the topology lacks) that a write's bound adds.
func TestRecorderExpectedCache(t *testing.T) {
	var keys []string
	for i := int64(0); i < 300; i++ {
		keys = append(keys, workload.Key(i))
	}
	keys = append(keys, "", "x", "user", "k@1")
	for _, name := range []string{"cops", "karma", "k2", "chainreaction"} {
		p := lookupProto(t, name)
		for _, topo := range []string{"karma-aws8", "local3"} {
			tp, err := topology.Lookup(topo)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRecorder(p, tp)
			dcs := append(tp.DCNames(), "nowhere")
			check := func(k string) {
				want := slices.Compact(slices.Sorted(slices.Values(protocol.VisibleAt(p, tp, k))))
				kv := r.expectedAt(k)
				if !slices.Equal(kv.nodes, want) {
					t.Fatalf("%s on %s: expectedAt(%q) = %v, want %v", name, topo, k, kv.nodes, want)
				}
				for _, dc := range dcs {
					var far time.Duration
					ok := false
					for _, n := range want {
						if tp.HasDC(dc) && tp.HasDC(n.DC()) {
							far, ok = max(far, tp.OneWay(dc, n.DC())), true
						}
					}
					if gf, gok := kv.farFrom(tp, dc); gf != far || gok != ok {
						t.Fatalf("%s on %s: farFrom(%s) of %q = %v %v, want %v %v", name, topo, dc, k, gf, gok, far, ok)
					}
				}
			}
			for _, k := range keys {
				check(k)
			}
			for i := len(keys) - 1; i >= 0; i-- {
				check(keys[i])
			}
		}
	}
}

// TestServedCache: the sojourns Served counts through its cache by node
// are those counted straight into maps by node and by DC, whether a node
// comes as the same string each time or as an equal copy, with more nodes
// than the cache has slots (so entries are replaced and found again).
func TestServedCache(t *testing.T) {
	r := NewRecorder(lookupProto(t, "cops"), nil)
	r.measureSojourn()
	var ids []protocol.NodeID
	for dc := 0; dc < 9; dc++ {
		for s := 0; s < 30; s++ {
			ids = append(ids, protocol.MakeNodeID(fmt.Sprintf("dc%d", dc), fmt.Sprintf("s%d", s)))
		}
	}
	ids = append(ids, "")
	wantNodes := map[protocol.NodeID]*sojournSeries{}
	wantClient := map[string]*sojournSeries{}
	get := func(m map[protocol.NodeID]*sojournSeries, k protocol.NodeID) *sojournSeries {
		if m[k] == nil {
			m[k] = &sojournSeries{}
		}
		return m[k]
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 50000; i++ {
		id := ids[rng.IntN(len(ids))]
		if rng.IntN(4) == 0 {
			id = protocol.NodeID(strings.Clone(string(id))) // equal, elsewhere
		}
		at := time.Duration(rng.IntN(int(2 * time.Second)))
		wait := time.Duration(rng.IntN(int(time.Millisecond)))
		svc := time.Duration(rng.IntN(200)) * time.Microsecond
		client := rng.IntN(2) == 0
		r.Served(at, id, client, wait, svc)
		get(wantNodes, id).add(at-wait, wait, svc)
		if client {
			c := wantClient[id.DC()]
			if c == nil {
				c = &sojournSeries{}
				wantClient[id.DC()] = c
			}
			c.add(at-wait, wait, svc)
		}
	}
	if !reflect.DeepEqual(r.load.nodes, wantNodes) {
		t.Errorf("sojourns by node differ from a plain count")
	}
	if !reflect.DeepEqual(r.load.client, wantClient) {
		t.Errorf("client sojourns by DC differ from a plain count")
	}
}
