package chain_test

import (
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// TestClientAnnouncesOncePerIncarnation checks that a client announces
// itself to the node that answers its puts once, not to the node it sends
// the put to, and again once a newer view shows that node restarted (a
// new incarnation has forgotten it).
func TestClientAnnouncesOncePerIncarnation(t *testing.T) {
	tp, err := topology.Lookup("chainreaction-1dc")
	if err != nil {
		t.Fatal(err)
	}
	l := chain.NewLayout(tp, 3)
	c := chain.NewClient("dc1/alice", l)
	head, k := c.PutTargets("X")
	if head == k {
		t.Fatalf("head %s answers puts itself", head)
	}
	announces := func() int {
		var r protocol.Ready
		c.Announce(k, head, &r)
		n := 0
		for _, m := range r.After.Messages {
			if _, ok := m.Body.(*pb.Announce); ok && m.To == k {
				n++
			}
		}
		return n
	}
	if n := announces(); n != 1 {
		t.Fatalf("first put: %d Announces to %s, want 1", n, k)
	}
	if n := announces(); n != 0 {
		t.Fatalf("second put: %d Announces to %s, want 0", n, k)
	}
	var r protocol.Ready
	c.Announce(head, head, &r)
	if len(r.After.Messages) != 0 {
		t.Fatalf("announced to the node the request goes to: %v", r.After.Messages)
	}
	// A newer view in which only another node restarted changes nothing.
	v := c.View.Clone()
	v.Epoch++
	v.Members[head] = chain.MemberState{Incarnation: 2}
	c.OnView(protocol.Message{Body: v.ToWire()})
	if n := announces(); n != 0 {
		t.Fatalf("after %s restarted: %d Announces to %s, want 0", head, n, k)
	}
	v = c.View.Clone()
	v.Epoch++
	v.Members[k] = chain.MemberState{Incarnation: 2}
	c.OnView(protocol.Message{Body: v.ToWire()})
	if n := announces(); n != 1 {
		t.Fatalf("after %s restarted: %d Announces to it, want 1", k, n)
	}
}
