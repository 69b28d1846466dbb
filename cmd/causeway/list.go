package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// listCmd is a command that prints one tab-aligned line per name.
func listCmd(use, short string, names func() []string, columns func(name string) []string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, n := range names() {
				fmt.Fprintf(tw, "%s\t%s\n", n, strings.Join(columns(n), "\t"))
			}
			return tw.Flush()
		},
	}
}

func protocolsCmd() *cobra.Command {
	return listCmd("protocols", "List the protocols and the consistency each claims, one line each", protocol.Names,
		func(n string) []string {
			p, _ := protocol.Lookup(n)
			return []string{p.Guarantee().String(), p.Summary()}
		})
}

func topologiesCmd() *cobra.Command {
	return listCmd("topologies", "List the topology presets, one line each", topology.Presets,
		func(n string) []string { return []string{topology.Describe(n)} })
}

func workloadsCmd() *cobra.Command {
	return listCmd("workloads", "List the workloads, one line each", workload.Names,
		func(n string) []string {
			w, _ := workload.Lookup(n)
			return []string{w.Summary}
		})
}
