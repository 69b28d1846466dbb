package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// whereResult is where one key is stored, as `causeway where` prints it.
type whereResult struct {
	Key      string `json:"key"`
	Protocol string `json:"protocol"`
	Topology string `json:"topology"`
	// Replicas counts the nodes that store the key's value.
	Replicas int `json:"replicas"`
	// DCs are the datacenters that store the key, in the topology's
	// order; TotalDCs counts all of them.
	DCs      []string `json:"dcs"`
	TotalDCs int      `json:"total_dcs"`
	// Nodes are the nodes that store the key (data) and, for protocols
	// with metadata-only replicas, those that only learn of its writes
	// (metadata).
	Nodes []whereNode `json:"nodes"`
}

// whereNode is one node that stores a key.
type whereNode struct {
	Node string `json:"node"`
	DC   string `json:"dc"`
	// Ring is the node's ring, when the key has one data replica per ring
	// (Karma's placement).
	Ring *int   `json:"ring,omitempty"`
	Role string `json:"role"`
	Zone string `json:"zone,omitempty"`
	// Kind is "data", or "metadata" for a replica that knows a write's
	// version but not its value (protocol.Visibler).
	Kind string `json:"kind"`
	// Addr is the node's transport address (cluster.yaml; absent with
	// --topology).
	Addr string `json:"addr,omitempty"`
}

// where asks protocol p where key lives on t: the nodes of p.Replicas
// (data) and of protocol.VisibleAt that are not among them (metadata).
// cfg, when not nil, gives their addresses.
func where(p protocol.Protocol, t *topology.Topology, cfg *cluster.Config, key string) whereResult {
	res := whereResult{Key: key, Protocol: p.Name(), Topology: t.Name, TotalDCs: len(t.Datacenters)}
	specs := p.Nodes(t)
	data := p.Replicas(t, key)
	ids := slices.Clone(data)
	for _, id := range protocol.VisibleAt(p, t, key) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	// Rings are shown when they are the placement: one data replica in
	// each ring (Karma and its variants).
	rings := map[int]bool{}
	for _, id := range data {
		if r := t.RingOf(id.DC()); r >= 0 {
			rings[r] = true
		}
	}
	showRings := len(t.Rings()) > 0 && len(data) == len(t.Rings()) && len(rings) == len(data)
	dcs := map[string]bool{}
	for _, id := range ids {
		n := whereNode{Node: string(id), DC: id.DC(), Role: string(protocol.RoleStorage), Kind: "data"}
		if !slices.Contains(data, id) {
			n.Kind = "metadata"
		} else {
			res.Replicas++
			dcs[n.DC] = true
		}
		if spec, ok := protocol.FindNode(specs, id); ok {
			if spec.Role != "" {
				n.Role = string(spec.Role)
			}
			n.Zone = spec.Zone
		}
		if r := t.RingOf(n.DC); showRings && r >= 0 {
			n.Ring = &r
		}
		if cfg != nil {
			if cn := cfg.Node(string(id)); cn != nil {
				n.Addr = cn.Addr
			}
		}
		res.Nodes = append(res.Nodes, n)
	}
	for _, dc := range t.DCNames() {
		if dcs[dc] {
			res.DCs = append(res.DCs, dc)
		}
	}
	return res
}

// table prints the result for people.
func (r *whereResult) table(w io.Writer) error {
	fmt.Fprintf(w, "key %q: %d replicas in %d of %d datacenters (protocol %s, topology %s)\n",
		r.Key, r.Replicas, len(r.DCs), r.TotalDCs, r.Protocol, r.Topology)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DC\tNODE\tRING\tROLE\tZONE\tKIND\tADDRESS")
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, n := range r.Nodes {
		ring := "-"
		if n.Ring != nil {
			ring = fmt.Sprint(*n.Ring)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n.DC, n.Node, ring, n.Role, dash(n.Zone), n.Kind, dash(n.Addr))
	}
	return tw.Flush()
}

func whereCmd() *cobra.Command {
	var dir, topo, proto string
	cmd := &cobra.Command{
		Use:   "where (--cluster DIR | --topology T --protocol P) KEY",
		Short: "Show which datacenters and nodes store a key",
		Long: `Where prints which datacenters and nodes store KEY, as nodetool
getendpoints does for Cassandra: the question every partial-replication
user asks. The protocol decides placement (Protocol.Replicas: every DC for
eventual and cops, one server per ring for karma, karma-nc and cops-pr),
over the topology's placement section (rings, replication factor,
partitions). With --cluster (default $` + envCluster + `) it reads the cluster's
cluster.yaml and prints each node's address; with --topology and
--protocol it needs no cluster. Nothing is contacted either way.

Columns: the node's datacenter, ID, ring (for ring placements), role,
availability zone, kind (data; metadata for a replica that only learns a
write's version) and address. -w json prints the same as one document
(key, protocol, topology, replicas, dcs, total_dcs, nodes).

Exit status 0, or 2 on bad arguments (an unknown protocol or topology, a
cluster file that does not load).`,
		Args: exactArgs("where", "KEY", 1),
	}
	cmd.Flags().StringVar(&dir, "cluster", "", "cluster directory (or cluster.yaml) written by 'causeway cluster up'")
	cmd.Flags().StringVar(&topo, "topology", "", "topology preset or YAML file (instead of --cluster)")
	cmd.Flags().StringVar(&proto, "protocol", "", "protocol whose placement to use (with --topology)")
	w := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := validateOutput("where", *w); err != nil {
			return err
		}
		var (
			t   *topology.Topology
			p   protocol.Protocol
			cfg *cluster.Config
			err error
		)
		switch {
		case topo != "" || proto != "":
			// A --cluster given on the command line conflicts; one from
			// $CAUSEWAY_CLUSTER gives way.
			if cmd.Flags().Changed("cluster") {
				return usageErrorf("where: give --cluster or --topology with --protocol, not both")
			}
			if topo == "" || proto == "" {
				return usageErrorf("where: --topology and --protocol go together")
			}
			if t, err = topology.Lookup(topo); err != nil {
				return usageErrorf("where: %v", err)
			}
			if p, err = protocol.Lookup(proto); err != nil {
				return usageErrorf("where: %v", err)
			}
			if err := p.Validate(t); err != nil {
				return usageErrorf("where: protocol %s on topology %s: %v", proto, t.Name, err)
			}
		case dir != "":
			if cfg, err = cluster.Load(dir); err != nil {
				return usageErrorf("where: %v", err)
			}
			t = cfg.Topology
			if p, err = protocol.Lookup(cfg.Protocol); err != nil {
				return usageErrorf("where: %s: %v", dir, err)
			}
		default:
			return usageErrorf("where: give --cluster DIR (or $%s), or --topology and --protocol", envCluster)
		}
		res := where(p, t, cfg, args[0])
		if *w == outputJSON {
			return writeJSON(cmd.OutOrStdout(), res)
		}
		return res.table(cmd.OutOrStdout())
	}
	return cmd
}
