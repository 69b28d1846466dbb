package chain

import (
	"maps"
	"slices"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// RoleMaster is the role of the simulated membership master of a chain
// domain (chain replication's "master", van Renesse & Schneider, OSDI 2004
// §3; chainreaction.txt §3.7 keeps it).
const RoleMaster protocol.Role = "master"

// DefaultChainLength is R when the topology's placement.chain_length is
// unset (bounded by each DC's servers).
const DefaultChainLength = 3

// Layout places keys on chains: in each DC, R consecutive servers of the
// DC's ring (topology.Chain), head first; a chain of a multi-DC domain is
// the DCs' segments in declared order (FAWN-KV's geo chain spanning both
// DCs, chainreaction.txt §7.2).
type Layout struct {
	topo *topology.Topology
	// R is the chain length per DC segment.
	r map[string]int
	// K is the index+1 of the node that answers a put in ChainReaction
	// (0: the tail answers, as in FAWN-KV).
	K int
	// rings caches each key's full ring order, per DC.
	rings map[string][]protocol.NodeID
	// Geo gives each DC its own chain of every key, and each DC a
	// remote-proxy (chainreaction.txt §4); otherwise one chain spans the
	// DCs.
	Geo bool
	// LoggedTail (cr-cops, with Geo): node k (the tail, or the last full
	// member while restarted servers are quarantined as tails) answers
	// puts only once its DC's remote-proxy has logged the version, and
	// serves reads only of logged versions, so that a client never
	// depends on a version that could be shipped after its own next put.
	LoggedTail bool
	// Sequenced (chainreaction): a sequencer numbers every put and
	// snapshots get-transactions (sequencer.go, chainreaction.txt §5); the
	// sessions send it their puts, and under Geo each DC has its own,
	// through which its remote-proxy applies remote puts.
	Sequenced bool
	// dcIndex numbers the DCs in declared order.
	dcIndex map[string]int
}

// NewLayout returns the layout of t with reply point k (0: the tail).
func NewLayout(t *topology.Topology, k int) *Layout {
	l := &Layout{topo: t, r: map[string]int{}, K: k, rings: map[string][]protocol.NodeID{}, dcIndex: map[string]int{}}
	for i, d := range t.Datacenters {
		l.dcIndex[d.Name] = i
		r := t.Placement.ChainLength
		if r == 0 {
			r = DefaultChainLength
		}
		l.r[d.Name] = min(r, d.Servers)
	}
	return l
}

// ServerName names the i-th server of a DC.
func ServerName(i int) string { return "s" + itoa(i) }

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// Master is the master node of the domain (in the first DC).
func (l *Layout) Master() protocol.NodeID {
	return protocol.MakeNodeID(l.topo.Datacenters[0].Name, "m0")
}

// Servers lists every server of the domain.
func (l *Layout) Servers() []protocol.NodeID {
	var out []protocol.NodeID
	for _, d := range l.topo.Datacenters {
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.MakeNodeID(d.Name, ServerName(i)))
		}
	}
	return out
}

// ring returns every server in key's ring order, DC segment by segment.
func (l *Layout) ring(key string) []protocol.NodeID {
	if r, ok := l.rings[key]; ok {
		return r
	}
	var out []protocol.NodeID
	for _, d := range l.topo.Datacenters {
		for _, i := range l.topo.DCReplicas(d.Name, key, d.Servers) {
			out = append(out, protocol.MakeNodeID(d.Name, ServerName(i)))
		}
	}
	if len(l.rings) > 1<<16 {
		clear(l.rings)
	}
	l.rings[key] = out
	return out
}

// Chain returns key's chain under view v, head first, and how many of its
// nodes are full members (the rest are joining servers appended as tails,
// in quarantine, chainreaction.txt §3.7). In each DC segment the full
// members are the first R live, non-joining servers in ring order: when one
// fails the next server on the ring is appended as the new tail, and the
// survivors keep their order (§3.7's head, middle and tail repairs). A
// joining server is appended after the full members of every chain it
// will belong to once promoted.
func (l *Layout) Chain(v *View, key string) (chain []protocol.NodeID, full int) {
	return l.chainIn(v, key, "")
}

// ChainFor is key's chain as seen from DC dc: its own DC's chain under
// Geo, else the chain spanning the DCs.
func (l *Layout) ChainFor(v *View, key, dc string) (chain []protocol.NodeID, full int) {
	if !l.Geo {
		dc = ""
	}
	return l.chainIn(v, key, dc)
}

// chainIn is Chain restricted to DC only (every DC when only is "").
func (l *Layout) chainIn(v *View, key, only string) (chain []protocol.NodeID, full int) {
	ring := l.ring(key)
	var ext []protocol.NodeID
	for _, d := range l.topo.Datacenters {
		if only != "" && d.Name != only {
			continue
		}
		r := l.r[d.Name]
		nFull, nAll := 0, 0
		for _, n := range ring {
			if n.DC() != d.Name {
				continue
			}
			m, live := v.Members[n]
			if !live {
				continue
			}
			if nAll < r {
				nAll++
				if m.Joining {
					ext = append(ext, n)
					continue
				}
			}
			if !m.Joining && nFull < r {
				nFull++
				chain = append(chain, n)
			}
		}
	}
	full = len(chain)
	return append(chain, ext...), full
}

// ReplyIndex is the chain index of the node that answers a put: node k
// (bounded by the full members), or the tail when K is 0.
func (l *Layout) ReplyIndex(chain []protocol.NodeID, full int) int {
	if l.K == 0 || full == 0 {
		return len(chain) - 1
	}
	return min(l.K, full) - 1
}

// InitialView is every server, none joining, epoch 0.
func (l *Layout) InitialView() *View {
	v := &View{Members: map[protocol.NodeID]MemberState{}}
	for _, n := range l.Servers() {
		v.Members[n] = MemberState{Incarnation: 1}
	}
	return v
}

// View is a membership view: the live servers of the domain.
type View struct {
	Epoch   uint64
	Members map[protocol.NodeID]MemberState
}

// MemberState is what the view says of one live server.
type MemberState struct {
	Incarnation uint64
	Joining     bool
}

// ToWire encodes the view.
func (v *View) ToWire() *pb.View {
	w := &pb.View{Epoch: v.Epoch}
	for _, n := range slices.Sorted(maps.Keys(v.Members)) {
		m := v.Members[n]
		w.Members = append(w.Members, &pb.Member{Node: string(n), Incarnation: m.Incarnation, Joining: m.Joining})
	}
	return w
}

// FromWire decodes a view.
func FromWire(w *pb.View) *View {
	v := &View{Epoch: w.Epoch, Members: map[protocol.NodeID]MemberState{}}
	for _, m := range w.Members {
		v.Members[protocol.NodeID(m.Node)] = MemberState{Incarnation: m.Incarnation, Joining: m.Joining}
	}
	return v
}

// Clone copies the view.
func (v *View) Clone() *View {
	return &View{Epoch: v.Epoch, Members: maps.Clone(v.Members)}
}

// Index returns n's index in chain, or -1.
func Index(chain []protocol.NodeID, n protocol.NodeID) int { return slices.Index(chain, n) }

// DCs lists the DC names in declared order.
func (l *Layout) DCs() []string {
	out := make([]string, len(l.topo.Datacenters))
	for i, d := range l.topo.Datacenters {
		out[i] = d.Name
	}
	return out
}

// DCIndex is dc's position in the topology's declared order.
func (l *Layout) DCIndex(dc string) int { return l.dcIndex[dc] }
