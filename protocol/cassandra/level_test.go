package cassandra

import (
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// TestLevelCounts checks how many acknowledgements each level needs, on
// c3-azure9 (RF 3 per DC) and on a single site of 6 servers (the
// single-site presets' RF 6).
func TestLevelCounts(t *testing.T) {
	azure, err := topology.Lookup("c3-azure9")
	if err != nil {
		t.Fatal(err)
	}
	single, err := topology.Parse([]byte("name: site6\ndatacenters:\n  - {name: s, servers: 6}\n"))
	if err != nil {
		t.Fatal(err)
	}
	key := "user00000001"
	p := LQ.placement(azure, key)
	home := p.dcs[0]
	// ack adds the first n replicas of dc to got.
	ack := func(got map[protocol.NodeID]bool, p placementOf, dc string, n int) {
		for _, id := range p.replicas[dc][:n] {
			got[id] = true
		}
	}
	for _, tc := range []struct {
		level Level
		want  func(p placementOf) map[protocol.NodeID]bool // the smallest set that satisfies
	}{
		{LocalQuorum, func(p placementOf) map[protocol.NodeID]bool {
			got := map[protocol.NodeID]bool{}
			ack(got, p, home, 2)
			return got
		}},
		{EachQuorum, func(p placementOf) map[protocol.NodeID]bool {
			got := map[protocol.NodeID]bool{}
			for _, dc := range p.dcs {
				ack(got, p, dc, 2)
			}
			return got
		}},
		{Two, func(p placementOf) map[protocol.NodeID]bool {
			got := map[protocol.NodeID]bool{}
			ack(got, p, p.dcs[len(p.dcs)-1], 2)
			return got
		}},
	} {
		got := tc.want(p)
		if !p.satisfied(tc.level, home, got) {
			t.Errorf("%v: %d acks %v do not satisfy it", tc.level, len(got), got)
		}
		for id := range got { // one fewer never does
			delete(got, id)
			if p.satisfied(tc.level, home, got) {
				t.Errorf("%v: satisfied by %d acks %v", tc.level, len(got), got)
			}
			got[id] = true
		}
	}
	// QUORUM: a majority of all replicas of the key (3 per replica DC).
	n := len(p.all())
	got := map[protocol.NodeID]bool{}
	for _, id := range p.all()[:quorum(n)-1] {
		got[id] = true
	}
	if p.satisfied(Quorum, home, got) {
		t.Errorf("QUORUM of %d satisfied by %d", n, len(got))
	}
	got[p.all()[quorum(n)-1]] = true
	if !p.satisfied(Quorum, home, got) {
		t.Errorf("QUORUM of %d not satisfied by %d", n, len(got))
	}

	// Single site: cassandra-e writes THREE of 6 and reads ONE;
	// cassandra-l reads and writes QUORUM, 4 of 6.
	for _, tc := range []struct {
		preset      Preset
		rf          int
		read, write Level
		writeAcks   int
	}{{E, 6, One, Three, 3}, {L, 6, Quorum, Quorum, 4}} {
		if rf := tc.preset.RF(single); rf != tc.rf {
			t.Errorf("%s: RF %d on one site, want %d", tc.preset.Name, rf, tc.rf)
		}
		r, w := tc.preset.Levels(single, "s", key)
		if r != tc.read || w != tc.write {
			t.Errorf("%s: levels %v/%v, want %v/%v", tc.preset.Name, r, w, tc.read, tc.write)
		}
		sp := tc.preset.placement(single, key)
		got := map[protocol.NodeID]bool{}
		ack(got, sp, "s", tc.writeAcks-1)
		if sp.satisfied(w, "s", got) {
			t.Errorf("%s: write satisfied by %d acks", tc.preset.Name, tc.writeAcks-1)
		}
		ack(got, sp, "s", tc.writeAcks)
		if !sp.satisfied(w, "s", got) {
			t.Errorf("%s: write not satisfied by %d acks", tc.preset.Name, tc.writeAcks)
		}
	}
}
