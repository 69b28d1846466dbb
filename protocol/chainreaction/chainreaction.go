package chainreaction

import (
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
	"github.com/causeway/causeway/topology"
)

// Name is the protocol's CLI name.
const Name = "chainreaction"

func init() {
	protocol.Register(chain.New(chain.Mode{
		Name:       Name,
		Summary:    "ChainReaction: chain replication answering puts at node k, reads spread over the causally safe prefix (causal+)",
		K:          K,
		Geo:        geoTopology,
		NewSession: newSession,
		Resume:     resume,
		Sequencer:  true,
	}))
}

// K is the chain index (1-based) of the node that answers a put:
// ⌈R/2⌉ of the first DC's chain length R, which gives the paper's
// settings, k = 3 for R = 6 (chainreaction.txt §7.1) and k = 2 for R = 4
// (§7.2).
func K(t *topology.Topology) int {
	r := t.Placement.ChainLength
	if r == 0 {
		r = chain.DefaultChainLength
	}
	r = min(r, t.Datacenters[0].Servers)
	return (r + 1) / 2
}
