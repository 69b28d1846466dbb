package sim

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// sharing is a protocol whose bodies receivers share (protocol.Sharer):
// the first DC's server sends one body to every other DC's server when it
// starts, and someone modifies it as scribble says: "" nobody, "sender"
// the sender 1 ms later (before it arrives), "step" each receiver in its
// Step, "later" each receiver 30 s after its Step.
type sharing struct{ scribble string }

func (p *sharing) Name() string                                          { return "sharing" }
func (p *sharing) Summary() string                                       { return "test protocol" }
func (p *sharing) Guarantee() protocol.Guarantee                         { return protocol.Eventual }
func (p *sharing) Validate(*topology.Topology) error                     { return nil }
func (p *sharing) Replicas(*topology.Topology, string) []protocol.NodeID { return nil }
func (p *sharing) ShareBody(proto.Message) bool                          { return true }
func (p *sharing) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, dc := range t.DCNames() {
		out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(dc, "s0")})
	}
	return out
}
func (p *sharing) NewNode(cfg protocol.NodeConfig) protocol.Node {
	return &sharingNode{p: p, id: cfg.ID, topo: cfg.Topology}
}
func (p *sharing) NewSession(protocol.SessionConfig) protocol.Session { return nil }

type sharingNode struct {
	p    *sharing
	id   protocol.NodeID
	topo *topology.Topology
	kept *wrapperspb.StringValue
}

func (n *sharingNode) Start(time.Duration) protocol.Ready {
	var r protocol.Ready
	if n.id.DC() != n.topo.DCNames()[0] {
		return r
	}
	n.kept = wrapperspb.String("v")
	for _, dc := range n.topo.DCNames()[1:] {
		r.Send(n.id, protocol.MakeNodeID(dc, "s0"), n.kept)
	}
	if n.p.scribble == "sender" {
		r.SetTimer(time.Millisecond, 0)
	}
	return r
}

func (n *sharingNode) Tick(time.Duration, uint64) protocol.Ready {
	n.kept.Value = "changed"
	return protocol.Ready{}
}

func (n *sharingNode) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	n.kept = m.Body.(*wrapperspb.StringValue)
	switch n.p.scribble {
	case "step":
		n.kept.Value = "changed"
	case "later":
		r.SetTimer(30*time.Second, 0) // every copy has arrived by then
	}
	return r
}

// TestCheckSharedCatchesAModifiedBody checks that Config.CheckShared
// catches a shared body modified by its sender before it arrives, by a
// receiver in its Step, and by a receiver later (SharedIntact), and
// passes a protocol that modifies nothing.
func TestCheckSharedCatchesAModifiedBody(t *testing.T) {
	for _, tc := range []struct{ scribble, want string }{
		{"", ""},
		{"sender", "changed before node"},
		{"step", "changed after node"},
		{"later", "changed after it was sent"},
	} {
		got := func() (msg string) {
			defer func() {
				if p := recover(); p != nil {
					msg = p.(string)
				}
			}()
			s, err := New(Config{Topology: local3(t), Protocol: &sharing{scribble: tc.scribble}, Seed: 1, CheckShared: true})
			if err != nil {
				t.Fatal(err)
			}
			s.RunUntil(time.Minute)
			if err := s.SharedIntact(); err != nil {
				return err.Error()
			}
			return ""
		}()
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("scribble %q: got %q, want %q", tc.scribble, got, tc.want)
		}
	}
}
