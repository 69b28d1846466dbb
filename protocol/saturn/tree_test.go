package saturn

import (
	"testing"

	"github.com/causeway/causeway/topology"
)

// TestTreeIsTheMST checks the dissemination tree: on local3 (a-b 40 ms,
// b-c 90 ms, a-c 120 ms) the MST is a - b - c, so a's labels reach c
// through b; on c3-azure9 it spans the nine DCs with eight edges, every
// DC reaches every other, and its total RTT is no more than that of the
// star around any DC (a spanning tree the MST must beat or equal).
func TestTreeIsTheMST(t *testing.T) {
	local3, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	tr := newTree(local3)
	if got := tr.next[0][2]; got != 1 {
		t.Errorf("local3: a's next hop to c is %d, want b (1)", got)
	}
	if got := tr.next[2][0]; got != 1 {
		t.Errorf("local3: c's next hop to a is %d, want b (1)", got)
	}
	azure, err := topology.Lookup("c3-azure9")
	if err != nil {
		t.Fatal(err)
	}
	tr = newTree(azure)
	dcs := azure.DCNames()
	edges, total := 0, 0
	for a := range dcs {
		for _, b := range tr.adj[a] {
			if a < b {
				edges++
				total += int(azure.RTT(dcs[a], dcs[b]))
			}
		}
		for b := range dcs {
			if a != b && tr.next[a][b] < 0 {
				t.Errorf("c3-azure9: %s cannot reach %s", dcs[a], dcs[b])
			}
		}
	}
	if edges != len(dcs)-1 {
		t.Errorf("c3-azure9: %d edges, want %d", edges, len(dcs)-1)
	}
	for c := range dcs {
		star := 0
		for b := range dcs {
			star += int(azure.RTT(dcs[c], dcs[b]))
		}
		if total > star {
			t.Errorf("c3-azure9: the tree's %d ns of RTT exceed the star around %s (%d)", total, dcs[c], star)
		}
	}
	t.Logf("c3-azure9 tree: %v", tr.adj)
}
