package cluster

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/causeway/causeway/topology"
)

// AdminLinksPath is the path of a node's link controls on its http
// address: partitions and congestion on a live cluster.
//
// Every node of a cluster emulates the wide-area links between its own
// datacenter and the others (runtime/node). With the admin endpoint on
// (`causeway server --admin`, which `causeway cluster up` passes), its
// http address also serves this path, where those links can be cut and
// slowed down while the cluster runs:
//
//	GET    /admin/links   the node's link rules (LinkState)
//	POST   /admin/links   change them (body: LinkChange); answers LinkState
//	DELETE /admin/links   remove every rule: heal all cuts, no added delay
//
// Refused requests get a 4xx status and a JSON body {"error": "..."}
// saying why. A rule is per other datacenter and has two cuts, one per
// direction, and an added delay:
//
//   - cut_out drops every frame the node sends to the nodes and the
//     client sessions of that datacenter (transport.Transport.Cut);
//   - cut_in drops every frame the node receives from them. Between nodes
//     this repeats the sender's cut_out (every node is told); its purpose
//     is the links from client processes, which serve no link controls
//     and so cannot be told: with cut_in, a client of the cut datacenter
//     that addresses this node is not heard;
//   - delay_ms is added to the topology's one-way delay of every frame
//     the node sends to that datacenter (congestion, karma.txt §6.2).
//
// Links inside a datacenter are never cut or delayed: the clients of a
// datacenter always reach its nodes, partitioned or not. Rules live in the
// node's memory only: a restarted node starts with none.
//
// LinkFault describes a fault between one datacenter and others for the
// whole cluster, PlanLinks turns it into the LinkChange each node needs,
// and SetLinks, ResetLinks and Links talk to the nodes.
const AdminLinksPath = "/admin/links"

// MaxAddedDelayMS bounds LinkChange.DelayMS: one hour.
const MaxAddedDelayMS = 3_600_000

// LinkChange is the body of POST /admin/links: it changes the rules of
// the node's links to the datacenters PeersDC. A field left out (null)
// leaves that setting as it was.
type LinkChange struct {
	// PeersDC names the datacenters whose links change: at least one,
	// each once, none of them the node's own.
	PeersDC []string `json:"peers_dc"`
	// CutOut cuts (true) or heals (false) what the node sends to PeersDC.
	CutOut *bool `json:"cut_out,omitempty"`
	// CutIn cuts (true) or heals (false) what the node receives from
	// PeersDC.
	CutIn *bool `json:"cut_in,omitempty"`
	// DelayMS sets the delay in milliseconds added to every frame the node
	// sends to PeersDC, on top of the topology's one-way delay; 0 removes
	// it. At most MaxAddedDelayMS.
	DelayMS *int64 `json:"delay_ms,omitempty"`
}

// Validate checks the change for a node of datacenter selfDC of topo. The
// error lists every problem.
func (c *LinkChange) Validate(topo *topology.Topology, selfDC string) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	valid := strings.Join(topo.DCNames(), ", ")
	if len(c.PeersDC) == 0 {
		bad("peers_dc: missing: name at least one other datacenter (datacenters: %s)", valid)
	}
	seen := map[string]bool{}
	for _, dc := range c.PeersDC {
		switch {
		case !topo.HasDC(dc):
			bad("peers_dc: unknown datacenter %q (datacenters: %s)", dc, valid)
		case dc == selfDC:
			bad("peers_dc: %q is this node's own datacenter; links inside a datacenter are not cut or delayed", dc)
		case seen[dc]:
			bad("peers_dc: %q is listed twice", dc)
		}
		seen[dc] = true
	}
	if c.CutOut == nil && c.CutIn == nil && c.DelayMS == nil {
		bad("nothing to change: give cut_out, cut_in or delay_ms")
	}
	if c.DelayMS != nil && (*c.DelayMS < 0 || *c.DelayMS > MaxAddedDelayMS) {
		bad("delay_ms: %d is not between 0 and %d", *c.DelayMS, MaxAddedDelayMS)
	}
	return errors.Join(errs...)
}

// LinkRule is the state of a node's links to one other datacenter.
type LinkRule struct {
	DC      string `json:"dc"`
	CutOut  bool   `json:"cut_out"`
	CutIn   bool   `json:"cut_in"`
	DelayMS int64  `json:"delay_ms"`
}

// LinkState is what /admin/links answers: a node's rules and what they
// have dropped since it started.
type LinkState struct {
	Node string `json:"node"`
	DC   string `json:"dc"`
	// Links lists the datacenters the node has a rule for (a cut or an
	// added delay), by name.
	Links []LinkRule `json:"links"`
	// DroppedOut counts the frames the node sent on cut links; DroppedIn
	// those it received from cut datacenters.
	DroppedOut uint64 `json:"dropped_out"`
	DroppedIn  uint64 `json:"dropped_in"`
}

// Direction says which traffic of a datacenter a LinkFault applies to.
type Direction string

// The directions of a LinkFault, seen from its datacenter.
const (
	// Both is the traffic leaving the datacenter and entering it.
	Both Direction = "both"
	// Out is the traffic leaving the datacenter.
	Out Direction = "out"
	// In is the traffic entering the datacenter.
	In Direction = "in"
)

// ParseDirection parses "both", "out" or "in".
func ParseDirection(s string) (Direction, error) {
	switch d := Direction(s); d {
	case Both, Out, In:
		return d, nil
	}
	return "", fmt.Errorf("direction %q is not one of both, out, in", s)
}

// LinkFault is a change to the links between datacenter DC and others,
// for the whole cluster.
type LinkFault struct {
	// DC is the datacenter whose links change.
	DC string
	// Peers are the datacenters on the other side (empty: every other
	// datacenter).
	Peers []string
	// Direction is the traffic of DC affected (empty: Both).
	Direction Direction
	// Cut, if set, cuts (true) or heals (false) the links.
	Cut *bool
	// DelayMS, if set, is the delay added to every frame on the links, in
	// each affected direction (0 removes it).
	DelayMS *int64
}

// PlanLinks returns the change each node of cfg must make for f, by node
// ID; nodes that f does not concern are absent. For the traffic leaving
// DC, DC's nodes cut (and delay) what they send to the peers and the
// peers' nodes cut what they receive from DC; the traffic entering DC is
// the mirror image.
func PlanLinks(cfg *Config, f LinkFault) (map[string]LinkChange, error) {
	topo := cfg.Topology
	valid := strings.Join(topo.DCNames(), ", ")
	if !topo.HasDC(f.DC) {
		return nil, fmt.Errorf("unknown datacenter %q (datacenters: %s)", f.DC, valid)
	}
	dir := f.Direction
	if dir == "" {
		dir = Both
	}
	if _, err := ParseDirection(string(dir)); err != nil {
		return nil, err
	}
	if f.Cut == nil && f.DelayMS == nil {
		return nil, errors.New("nothing to change: a cut, a heal or a delay is needed")
	}
	if f.DelayMS != nil && (*f.DelayMS < 0 || *f.DelayMS > MaxAddedDelayMS) {
		return nil, fmt.Errorf("added delay of %d ms is not between 0 and %d ms", *f.DelayMS, MaxAddedDelayMS)
	}
	peers := f.Peers
	if len(peers) == 0 {
		for _, dc := range topo.DCNames() {
			if dc != f.DC {
				peers = append(peers, dc)
			}
		}
		if len(peers) == 0 {
			return nil, fmt.Errorf("datacenter %s has no other datacenter to be cut from", f.DC)
		}
	}
	isPeer := map[string]bool{}
	for _, p := range peers {
		switch {
		case !topo.HasDC(p):
			return nil, fmt.Errorf("unknown datacenter %q (datacenters: %s)", p, valid)
		case p == f.DC:
			return nil, fmt.Errorf("datacenter %s cannot be cut from itself", p)
		case isPeer[p]:
			return nil, fmt.Errorf("datacenter %s is listed twice", p)
		}
		isPeer[p] = true
	}
	out, in := dir != In, dir != Out
	// leaving is the change of a node on the sending side of affected
	// traffic, arriving that of one on the receiving side.
	change := func(peers []string, leaving, arriving bool) (LinkChange, bool) {
		c := LinkChange{PeersDC: slices.Clone(peers)}
		if leaving {
			c.CutOut, c.DelayMS = f.Cut, f.DelayMS
		}
		if arriving {
			c.CutIn = f.Cut
		}
		return c, c.CutOut != nil || c.CutIn != nil || c.DelayMS != nil
	}
	plan := map[string]LinkChange{}
	for _, n := range cfg.Nodes {
		dc := nodeDC(n.ID)
		var c LinkChange
		var ok bool
		switch {
		case dc == f.DC:
			c, ok = change(peers, out, in)
		case isPeer[dc]:
			c, ok = change([]string{f.DC}, in, out)
		}
		if ok {
			plan[n.ID] = c
		}
	}
	return plan, nil
}

// HealCuts returns, for every node of cfg, the change that heals all its
// cut links and keeps its added delays.
func HealCuts(cfg *Config) map[string]LinkChange {
	no := false
	plan := map[string]LinkChange{}
	for _, n := range cfg.Nodes {
		var others []string
		for _, dc := range cfg.Topology.DCNames() {
			if dc != nodeDC(n.ID) {
				others = append(others, dc)
			}
		}
		if len(others) > 0 {
			plan[n.ID] = LinkChange{PeersDC: others, CutOut: &no, CutIn: &no}
		}
	}
	return plan
}

// nodeDC is the datacenter of node ID id ("DC/name").
func nodeDC(id string) string {
	dc, _, _ := strings.Cut(id, "/")
	return dc
}
