package cassandra

import (
	"fmt"
	"strconv"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// Setting is a preset's replication factor and consistency levels on one
// kind of deployment.
type Setting struct {
	// RF is the number of replicas of a key in each of its replica DCs;
	// 0 takes the topology's placement.dc_replicas, or DefaultRF.
	RF int
	// Read and Write are the levels of an operation whose key is
	// replicated in the client's DC.
	Read, Write Level
	// RemoteRead and RemoteWrite are the levels of an operation whose key
	// is not replicated in the client's DC (0: Two, c3.txt §5.1's E-LQ).
	RemoteRead, RemoteWrite Level
}

// DefaultRF is the replicas per DC when neither the preset nor the
// topology sets it (c3.txt §5.2: 3 of 4 nodes).
const DefaultRF = 3

// Preset is one configuration of the datastore, registered as a protocol.
type Preset struct {
	// Name and Summary are what `causeway protocols` shows.
	Name, Summary string
	// Multi is the setting on a topology of several DCs (and on one DC
	// when Single is nil).
	Multi Setting
	// Single, when not nil, is the setting on a single-DC topology
	// (ChainReaction's single-site Cassandra baselines).
	Single *Setting
	// Gated makes replicas apply a write only once a causality layer's
	// ExecuteWrite for it has arrived too (C3's datastore, c3.txt §4),
	// and a coordinator hands each write to its DC's layer (LayerWrite)
	// and answers the client on the layer's LayerDone.
	Gated bool
	// Layer names the causality-layer node of a DC (with Gated).
	Layer func(dc string) protocol.NodeID
}

// Protocol is a Cassandra-model deployment factory (protocol.Protocol).
type Protocol struct{ preset Preset }

// New returns the protocol of preset.
func New(preset Preset) *Protocol { return &Protocol{preset: preset} }

// Preset returns the protocol's preset.
func (p *Protocol) Preset() Preset { return p.preset }

// Name implements protocol.Protocol.
func (p *Protocol) Name() string { return p.preset.Name }

// Summary implements protocol.Protocol.
func (p *Protocol) Summary() string { return p.preset.Summary }

// Guarantee implements protocol.Protocol: every preset is eventual (the
// checker is expected to catch them where they break causality).
func (p *Protocol) Guarantee() protocol.Guarantee { return protocol.Eventual }

// setting returns the preset's setting on t.
func (pr Preset) setting(t *topology.Topology) Setting {
	s := pr.Multi
	if len(t.Datacenters) == 1 && pr.Single != nil {
		s = *pr.Single
	}
	if s.RemoteRead == 0 {
		s.RemoteRead = Two
	}
	if s.RemoteWrite == 0 {
		s.RemoteWrite = Two
	}
	return s
}

// RF returns the preset's replicas per DC on t.
func (pr Preset) RF(t *topology.Topology) int {
	if s := pr.setting(t); s.RF > 0 {
		return s.RF
	}
	if t.Placement.DCReplicas > 0 {
		return t.Placement.DCReplicas
	}
	return DefaultRF
}

// serverBits is how many low bits of a version hold the minting server's
// index (the LWW tie-break).
const serverBits = 10

// Validate implements protocol.Protocol: RF must fit every DC, and the
// version's tie-break must fit every server.
func (p *Protocol) Validate(t *topology.Topology) error {
	rf, n := p.preset.RF(t), 0
	for _, d := range t.Datacenters {
		if d.Servers < rf {
			return fmt.Errorf("%s: %d replicas per DC, but %s has %d servers", p.preset.Name, rf, d.Name, d.Servers)
		}
		n += d.Servers
	}
	if n > 1<<serverBits {
		return fmt.Errorf("%s: at most %d servers in all, topology %s has %d", p.preset.Name, 1<<serverBits, t.Name, n)
	}
	return nil
}

// ServerName names the i-th storage server of a DC.
func ServerName(i int) string { return "s" + strconv.Itoa(i) }

// Nodes implements protocol.Protocol: every DC's servers, each a replica
// of its keys and a coordinator for its clients (RoleStorage).
func (p *Protocol) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, d := range t.Datacenters {
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, ServerName(i)), Role: protocol.RoleStorage})
		}
	}
	return out
}

// placement returns where key lives on t: its partition's DCs
// (topology.PartitionDCs; every DC without partitions) and RF servers of
// each (topology.DCReplicas).
func (pr Preset) placement(t *topology.Topology, key string) placementOf {
	rf := pr.RF(t)
	p := placementOf{dcs: t.PartitionDCs(key), replicas: map[string][]protocol.NodeID{}}
	for _, dc := range p.dcs {
		for _, i := range t.DCReplicas(dc, key, rf) {
			p.replicas[dc] = append(p.replicas[dc], protocol.MakeNodeID(dc, ServerName(i)))
		}
	}
	return p
}

// Replicas implements protocol.Protocol: the key's RF servers in each of
// its replica DCs.
func (p *Protocol) Replicas(t *topology.Topology, key string) []protocol.NodeID {
	return p.preset.placement(t, key).all()
}

// NewNode implements protocol.Protocol.
func (p *Protocol) NewNode(cfg protocol.NodeConfig) protocol.Node {
	return NewServer(p.preset, cfg)
}

// NewSession implements protocol.Protocol.
func (p *Protocol) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return newSession(p.preset, cfg)
}
