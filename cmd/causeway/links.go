package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/cluster"
)

// The link commands of 'causeway cluster': partition, heal, delay and
// links. They tell the nodes of a running cluster, over their admin
// endpoint (cluster.AdminLinksPath), to cut or slow down the emulated WAN
// links.

// linkFlags are the flags partition and delay share.
type linkFlags struct {
	dir, dc, direction string
	from               []string
}

func (f *linkFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "dir", "", "the cluster's directory (required)")
	cmd.Flags().StringVar(&f.dc, "dc", "", "the datacenter whose links change (required)")
	cmd.Flags().StringSliceVar(&f.from, "from-dc", nil, "the datacenters on the other side, comma-separated or repeated (default: every other one)")
	cmd.Flags().StringVar(&f.direction, "direction", string(cluster.Both), "the traffic of --dc affected: both, out (leaving it) or in (entering it)")
}

// fault loads the cluster and checks the flags; verb names the command in
// errors.
func (f *linkFlags) fault(verb string) (*cluster.Config, cluster.LinkFault, error) {
	if err := needCluster(verb, f.dir); err != nil {
		return nil, cluster.LinkFault{}, err
	}
	cfg, err := cluster.Load(f.dir)
	if err != nil {
		return nil, cluster.LinkFault{}, &exitError{2, err}
	}
	if f.dc == "" {
		return nil, cluster.LinkFault{}, &exitError{2, fmt.Errorf("cluster %s: --dc is required (datacenters: %s)", verb, strings.Join(cfg.Topology.DCNames(), ", "))}
	}
	dir, err := cluster.ParseDirection(f.direction)
	if err != nil {
		return nil, cluster.LinkFault{}, &exitError{2, fmt.Errorf("cluster %s: --%w", verb, err)}
	}
	return cfg, cluster.LinkFault{DC: f.dc, Peers: f.from, Direction: dir}, nil
}

func clusterPartitionCmd() *cobra.Command {
	var f linkFlags
	cmd := &cobra.Command{
		Use:   "partition --dir DIR --dc D [--from-dc D2,...] [--direction both|out|in]",
		Short: "Cut datacenter D off from the others on the running cluster in DIR",
		Long: `Partition cuts the emulated WAN links between datacenter D and every other
datacenter (or those of --from-dc) of the running cluster in DIR, by telling
each node concerned (POST /admin/links on its http address). Frames sent on
a cut link are lost, as on a real partition, and so are those already
waiting out their WAN delay; the protocols retransmit once healed.

Inside a datacenter nothing is cut: the clients of D keep reaching D's
nodes, and D serves whatever its protocol allows without the others. A
client of D that addresses a node of another datacenter is not heard,
and replies to it are lost.

--direction out cuts only the traffic leaving D, in only the traffic
entering it (a one-way partition). Partitions add up; 'cluster heal'
removes them. The rules live in the nodes' memory: a restarted node
starts with every link healed.

Exit status: 0 when every node concerned applied the cut; 1 when some node
could not be reached or refused (the others did apply it: run the command
again, or heal); 2 on bad arguments.`,
		Example: `  causeway cluster partition --dir /tmp/c1 --dc c
  causeway cluster partition --dir /tmp/c1 --dc c --from-dc a --direction out
  causeway cluster heal --dir /tmp/c1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, fault, err := f.fault("partition")
			if err != nil {
				return err
			}
			cut := true
			fault.Cut = &cut
			return applyLinkFault(cmd, "partition", f.dir, cfg, fault)
		},
	}
	f.register(cmd)
	return cmd
}

func clusterDelayCmd() *cobra.Command {
	var (
		f   linkFlags
		add time.Duration
	)
	cmd := &cobra.Command{
		Use:   "delay --dir DIR --dc D --add DURATION [--from-dc D2,...] [--direction both|out|in]",
		Short: "Add delay to the traffic in and out of datacenter D (congestion)",
		Long: `Delay emulates congestion (karma.txt §6.2, Figs. 8 and 9): every frame
between datacenter D and the other datacenters (or those of --from-dc) of
the running cluster in DIR waits --add longer, on top of the topology's
one-way delay, in each direction (so a round trip takes twice --add
longer). --direction out delays only the traffic leaving D, in only the
traffic entering it. Traffic inside a datacenter is not delayed.

--add replaces the delay added before to the same links; --add 0s removes
it, and so does 'cluster heal'. Only frames sent from now on are
affected. Client processes are not told: their own requests to another
datacenter are not delayed (the replies are).

Exit status: 0 when every node concerned applied it; 1 when some node
could not be reached or refused; 2 on bad arguments.`,
		Example: `  causeway cluster delay --dir /tmp/c1 --dc c --add 300ms
  causeway cluster delay --dir /tmp/c1 --dc c --add 0s     # back to normal`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, fault, err := f.fault("delay")
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("add") {
				return &exitError{2, errors.New("cluster delay: --add is required (for example --add 300ms; --add 0s removes the added delay)")}
			}
			if add < 0 || add%time.Millisecond != 0 {
				return &exitError{2, fmt.Errorf("cluster delay: --add %v: want a whole number of milliseconds, 0 or more", add)}
			}
			ms := add.Milliseconds()
			fault.DelayMS = &ms
			return applyLinkFault(cmd, "delay", f.dir, cfg, fault)
		},
	}
	f.register(cmd)
	cmd.Flags().DurationVar(&add, "add", 0, "delay added to every frame on the links, in each direction (required; 0s removes it)")
	return cmd
}

func clusterHealCmd() *cobra.Command {
	var (
		dir        string
		partitions bool
	)
	cmd := &cobra.Command{
		Use:   "heal --dir DIR [--partitions]",
		Short: "Heal every partition and remove every added delay on the running cluster in DIR",
		Long: `Heal brings the links of the running cluster in DIR back to what
cluster.yaml describes: every cut link is healed and every delay added by
'cluster delay' removed, on every node (DELETE /admin/links). With
--partitions it heals the cut links only and keeps the added delays.

What was sent on a cut link is lost; the protocols retransmit it, so the
datacenters catch up within their retry interval.

Exit status: 0 when every node healed; 1 when some node could not be
reached or refused; 2 on bad arguments.`,
		Example: `  causeway cluster heal --dir /tmp/c1
  causeway cluster heal --dir /tmp/c1 --partitions`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := needCluster("heal", dir); err != nil {
				return err
			}
			cfg, err := cluster.Load(dir)
			if err != nil {
				return &exitError{2, err}
			}
			var res []cluster.NodeLinks
			if partitions {
				res = cluster.SetLinks(cmd.Context(), cfg, cluster.HealCuts(cfg))
			} else {
				res = cluster.ResetLinks(cmd.Context(), cfg)
			}
			return reportLinks(cmd.OutOrStdout(), "heal", dir, res)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the cluster's directory (required)")
	cmd.Flags().BoolVar(&partitions, "partitions", false, "heal the cut links only, keep the added delays")
	return cmd
}

func clusterLinksCmd() *cobra.Command {
	var dir string
	var output *string
	cmd := &cobra.Command{
		Use:   "links --dir DIR [-w table|json]",
		Short: "Show each node's cut and delayed links on the running cluster in DIR",
		Long: `Links prints, for each node of the running cluster in DIR, its links to
other datacenters that are cut or delayed ("c: cut" both ways, "cut out" or
"cut in" one way, "+300ms" added delay; "-" when none), and the frames
dropped on cut links since the node started (sent, received).

With -w json it prints one JSON array: per node its rules (dc, cut_out,
cut_in, delay_ms), dropped_out and dropped_in, or the error that kept it
from answering.

Exit status: 0 when every node answered; 1 otherwise; 2 on bad arguments.`,
		Example: `  causeway cluster links --dir /tmp/c1
  causeway cluster links --dir /tmp/c1 -w json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := validateOutput("cluster links", *output); err != nil {
				return err
			}
			if err := needCluster("links", dir); err != nil {
				return err
			}
			cfg, err := cluster.Load(dir)
			if err != nil {
				return usageErrorf("cluster links: %v", err)
			}
			res := cluster.Links(cmd.Context(), cfg)
			if *output == outputJSON {
				return linksJSON(cmd.OutOrStdout(), dir, res)
			}
			return reportLinks(cmd.OutOrStdout(), "links", dir, res)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the cluster's directory (required)")
	output = addOutputFlag(cmd)
	return cmd
}

// linksRecord is one node as `cluster links -w json` prints it.
type linksRecord struct {
	Node       string             `json:"node"`
	Links      []cluster.LinkRule `json:"links"`
	DroppedOut uint64             `json:"dropped_out"`
	DroppedIn  uint64             `json:"dropped_in"`
	Error      string             `json:"error,omitempty"`
}

// linksJSON prints res as JSON and fails (exit 1) if a node did not
// answer.
func linksJSON(w io.Writer, dir string, res []cluster.NodeLinks) error {
	recs := make([]linksRecord, len(res))
	failed := 0
	for i, r := range res {
		recs[i] = linksRecord{Node: r.ID, Links: []cluster.LinkRule{}}
		switch {
		case r.Err != nil:
			recs[i].Error = r.Err.Error()
			failed++
		case r.State != nil:
			if r.State.Links != nil {
				recs[i].Links = r.State.Links
			}
			recs[i].DroppedOut, recs[i].DroppedIn = r.State.DroppedOut, r.State.DroppedIn
		}
	}
	if err := writeJSON(w, recs); err != nil {
		return failuref("cluster links: %v", err)
	}
	if failed > 0 {
		return failuref("cluster links: %d of %d nodes did not answer ('causeway cluster status --dir %s' shows which nodes are up)", failed, len(res), dir)
	}
	return nil
}

// applyLinkFault plans fault for every node, sends it and reports.
func applyLinkFault(cmd *cobra.Command, verb, dir string, cfg *cluster.Config, fault cluster.LinkFault) error {
	plan, err := cluster.PlanLinks(cfg, fault)
	if err != nil {
		return &exitError{2, fmt.Errorf("cluster %s: %w", verb, err)}
	}
	return reportLinks(cmd.OutOrStdout(), verb, dir, cluster.SetLinks(cmd.Context(), cfg, plan))
}

// reportLinks prints each node's links and fails (exit 1) if a node of
// the cluster in dir did not answer.
func reportLinks(w io.Writer, verb, dir string, res []cluster.NodeLinks) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tLINKS\tDROPPED")
	var errs []error
	for _, r := range res {
		if r.Err != nil {
			fmt.Fprintf(tw, "%s\t(failed)\t-\n", r.ID)
			errs = append(errs, r.Err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d sent, %d received\n", r.ID, linksText(r.State.Links), r.State.DroppedOut, r.State.DroppedIn)
	}
	_ = tw.Flush()
	if len(errs) > 0 {
		hint := fmt.Sprintf("'causeway cluster status --dir %s' shows which nodes are up", dir)
		if verb != "links" && len(errs) < len(res) {
			hint = "the others applied it; " + hint
		}
		return &exitError{1, fmt.Errorf("cluster %s: %d of %d nodes failed (%s):\n  %s",
			verb, len(errs), len(res), hint, strings.ReplaceAll(errors.Join(errs...).Error(), "\n", "\n  "))}
	}
	return nil
}

// linksText describes a node's link rules: "c: cut +300ms, b: cut out".
func linksText(rules []cluster.LinkRule) string {
	if len(rules) == 0 {
		return "-"
	}
	parts := make([]string, len(rules))
	for i, r := range rules {
		var what []string
		switch {
		case r.CutOut && r.CutIn:
			what = append(what, "cut")
		case r.CutOut:
			what = append(what, "cut out")
		case r.CutIn:
			what = append(what, "cut in")
		}
		if r.DelayMS > 0 {
			what = append(what, fmt.Sprintf("+%dms", r.DelayMS))
		}
		parts[i] = r.DC + ": " + strings.Join(what, " ")
	}
	return strings.Join(parts, ", ")
}
