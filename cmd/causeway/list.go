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

// listCmd is a command that prints one tab-aligned line per name, or with
// -w json an array holding record(name) for each.
func listCmd(use, short string, names func() []string, columns func(name string) []string, record func(name string) any) *cobra.Command {
	var output *string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := validateOutput(use, *output); err != nil {
				return err
			}
			if *output == outputJSON {
				recs := []any{}
				for _, n := range names() {
					recs = append(recs, record(n))
				}
				return writeJSON(cmd.OutOrStdout(), recs)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, n := range names() {
				fmt.Fprintf(tw, "%s\t%s\n", n, strings.Join(columns(n), "\t"))
			}
			return tw.Flush()
		},
	}
	output = addOutputFlag(cmd)
	return cmd
}

// protocolRecord is a protocol as `protocols -w json` lists it.
type protocolRecord struct {
	Name    string `json:"name"`
	Claims  string `json:"claims"`
	Summary string `json:"summary"`
}

// topologyRecord is a topology preset as `topologies -w json` lists it.
type topologyRecord struct {
	Name        string   `json:"name"`
	Datacenters []string `json:"datacenters"`
	Servers     int      `json:"servers"`
	Description string   `json:"description"`
	Source      string   `json:"source,omitempty"`
}

// workloadRecord is a workload as `workloads -w json` lists it.
type workloadRecord struct {
	Name         string  `json:"name"`
	Summary      string  `json:"summary"`
	Records      int     `json:"records"`
	ValueSize    int     `json:"value_size"`
	Distribution string  `json:"distribution"`
	Reads        float64 `json:"read_proportion"`
}

func protocolsCmd() *cobra.Command {
	return listCmd("protocols", "List the protocols and the consistency each claims, one line each", protocol.Names,
		func(n string) []string {
			p, _ := protocol.Lookup(n)
			return []string{p.Guarantee().String(), p.Summary()}
		},
		func(n string) any {
			p, _ := protocol.Lookup(n)
			return protocolRecord{Name: n, Claims: p.Guarantee().String(), Summary: p.Summary()}
		})
}

func topologiesCmd() *cobra.Command {
	return listCmd("topologies", "List the topology presets, one line each", topology.Presets,
		func(n string) []string { return []string{topology.Describe(n)} },
		func(n string) any {
			rec := topologyRecord{Name: n, Datacenters: []string{}, Description: topology.Describe(n)}
			if t, err := topology.Preset(n); err == nil {
				rec.Source = t.Source
				for _, d := range t.Datacenters {
					rec.Datacenters = append(rec.Datacenters, d.Name)
					rec.Servers += d.Servers
				}
			}
			return rec
		})
}

func workloadsCmd() *cobra.Command {
	return listCmd("workloads", "List the workloads, one line each", workload.Names,
		func(n string) []string {
			w, _ := workload.Lookup(n)
			return []string{w.Summary}
		},
		func(n string) any {
			w, _ := workload.Lookup(n)
			return workloadRecord{Name: n, Summary: w.Summary, Records: w.RecordCount, ValueSize: w.ValueSize,
				Distribution: w.Distribution, Reads: w.ReadProportion}
		})
}
