package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

func protocolsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "protocols",
		Short: "List the protocols, one line each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, n := range protocol.Names() {
				p, _ := protocol.Lookup(n)
				fmt.Fprintf(tw, "%s\t%s\t%s\n", n, p.Guarantee(), p.Summary())
			}
			return tw.Flush()
		},
	}
}

func topologiesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "topologies",
		Short: "List the topology presets, one line each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, n := range topology.Presets() {
				fmt.Fprintf(tw, "%s\t%s\n", n, topology.Describe(n))
			}
			return tw.Flush()
		},
	}
}

func workloadsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "workloads",
		Short: "List the workloads, one line each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, n := range workload.Names() {
				w, _ := workload.Lookup(n)
				fmt.Fprintf(tw, "%s\t%s\n", n, w.Summary)
			}
			return tw.Flush()
		},
	}
}
