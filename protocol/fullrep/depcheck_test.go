package fullrep

import (
	"fmt"
	"slices"
	"testing"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

// TestCheckBatchGroupsByOwner: one DepCheck per owner, owners in the
// order they first appear, each listing its dependencies in the order
// they were added, every list with no room to grow into another's, and
// the batch's array handed back cleared — with few and with many owners
// and dependencies (past the stack arrays of send).
func TestCheckBatchGroupsByOwner(t *testing.T) {
	for _, tc := range []struct{ owners, deps int }{{1, 1}, {3, 7}, {8, 19}, {20, 100}} {
		var pairs []checkPair
		for round := 0; round < 2; round++ { // the second reuses the array
			b := checkBatch{pairs: pairs}
			want := map[protocol.NodeID][]*pb.Dep{}
			var order []protocol.NodeID
			for i := 0; i < tc.deps; i++ {
				owner := protocol.NodeID(fmt.Sprintf("a/s%d", (i*7+round)%tc.owners))
				d := &pb.Dep{Key: fmt.Sprintf("k%d", i), Version: uint64(i + 1)}
				if want[owner] == nil {
					order = append(order, owner)
				}
				want[owner] = append(want[owner], d)
				b.add(owner, d)
			}
			var r protocol.Ready
			b.send("a/s9", &r)
			var got []protocol.NodeID
			for _, m := range r.After.Messages {
				c := m.Body.(*pb.DepCheck)
				got = append(got, m.To)
				if !slices.Equal(c.Deps, want[m.To]) {
					t.Fatalf("%+v: DepCheck to %s lists %v, want %v", tc, m.To, c.Deps, want[m.To])
				}
				if cap(c.Deps) != len(c.Deps) {
					t.Fatalf("%+v: DepCheck to %s has room for %d more", tc, m.To, cap(c.Deps)-len(c.Deps))
				}
			}
			if !slices.Equal(got, order) {
				t.Fatalf("%+v: DepChecks to %v, want %v", tc, got, order)
			}
			pairs = b.done()
			if len(pairs) != 0 || slices.ContainsFunc(pairs[:cap(pairs)], func(p checkPair) bool { return p.dep != nil }) {
				t.Fatalf("%+v: the array came back holding dependencies", tc)
			}
		}
	}
}
