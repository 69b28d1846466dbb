package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/bench"
)

func compareCmd() *cobra.Command {
	var plotPath string
	var wOut *string
	cmd := &cobra.Command{
		Use:   "compare RESULT.json RESULT.json...",
		Short: "Put the result JSONs of runs side by side (table or JSON) and plot them",
		Long: `Compare reads result JSONs (sim --out, bench --out, the runs of
'causeway repro' in DIR/runs) and prints their key metrics side by side, one
column per run: throughput, latency percentiles (min to p999) per operation
type, local fractions, visibility, WAN bytes and messages per operation,
metadata per write, errors and each protocol's own metrics (drr_fraction,
cache_hit_fraction, ...). A run that lacks a metric shows "-" (JSON: null).

--plot FILE draws throughput, p99 latency, visibility, WAN bytes per
operation and the local fraction as bar charts, one panel each, one bar per
run; the format follows FILE's extension (.svg, .png or .pdf).

Exit status: 0; 2 when an argument is not a readable result JSON or the
plot's format is unknown.

Examples:
  causeway sim --protocol cops --duration 5s --out cops.json
  causeway sim --protocol karma --duration 5s --out karma.json
  causeway compare cops.json karma.json --plot compare.svg
  causeway compare -w json repro-karma/runs/*.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := validateOutput("compare", *wOut); err != nil {
				return err
			}
			if plotPath != "" {
				if err := plotFormatOK(plotPath); err != nil {
					return usageErrorf("compare: --plot %s: %v", plotPath, err)
				}
			}
			results := make([]*bench.Result, len(args))
			for i, path := range args {
				r, err := readResult(path)
				if err != nil {
					return usageErrorf("compare: %s: %v", path, err)
				}
				results[i] = r
			}
			labels := runLabels(args)
			rows := bench.Compare(results)
			if plotPath != "" {
				if err := plotComparison(plotPath, labels, rows); err != nil {
					return failuref("compare: --plot %s: %v", plotPath, err)
				}
			}
			o := cmd.OutOrStdout()
			if *wOut == outputJSON {
				return writeJSON(o, comparisonJSON(args, labels, results, rows))
			}
			return writeComparison(o, labels, results, rows)
		},
	}
	wOut = addOutputFlag(cmd)
	cmd.Flags().StringVar(&plotPath, "plot", "", "also draw the key metrics as bar charts into this file (.svg, .png or .pdf)")
	return cmd
}

// readResult reads one result JSON; a file that is not one is an error.
func readResult(path string) (*bench.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r bench.Result
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a result JSON: %v", err)
	}
	if r.Protocol == "" || r.Runtime == "" {
		return nil, fmt.Errorf("not a result JSON (no protocol or runtime): write one with sim --out or bench --out")
	}
	return &r, nil
}

// runLabels names each run's column after its file, without directory
// and extension, or by its whole path when two files share a name.
func runLabels(paths []string) []string {
	labels := make([]string, len(paths))
	seen := map[string]int{}
	for i, p := range paths {
		labels[i] = strings.TrimSuffix(filepath.Base(p), ".json")
		seen[labels[i]]++
	}
	for i, l := range labels {
		if seen[l] > 1 {
			labels[i] = paths[i]
		}
	}
	return labels
}

// comparedRun is a run's identity in compare's JSON.
type comparedRun struct {
	File      string  `json:"file"`
	Label     string  `json:"label"`
	Protocol  string  `json:"protocol"`
	Topology  string  `json:"topology"`
	Workload  string  `json:"workload"`
	Runtime   string  `json:"runtime"`
	Seed      uint64  `json:"seed"`
	DurationS float64 `json:"duration_s"`
	Clients   int     `json:"clients"`
	CheckOK   bool    `json:"check_ok"`
}

// comparison is compare's JSON: the runs, then the metrics with one value
// per run (null where a run lacks it).
type comparison struct {
	Runs    []comparedRun      `json:"runs"`
	Metrics []bench.CompareRow `json:"metrics"`
}

func comparisonJSON(paths, labels []string, results []*bench.Result, rows []bench.CompareRow) comparison {
	c := comparison{Metrics: rows}
	for i, r := range results {
		c.Runs = append(c.Runs, comparedRun{File: paths[i], Label: labels[i], Protocol: r.Protocol, Topology: r.Topology,
			Workload: r.Workload, Runtime: r.Runtime, Seed: r.Seed, DurationS: r.DurationS, Clients: r.Clients, CheckOK: r.Check.OK})
	}
	return c
}

// writeComparison prints the runs' identities, then one row per metric.
func writeComparison(w io.Writer, labels []string, results []*bench.Result, rows []bench.CompareRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	line := func(name, unit string, cell func(i int) string) {
		fmt.Fprintf(tw, "%s\t%s\t", name, unit)
		for i := range results {
			fmt.Fprintf(tw, "%s\t", cell(i))
		}
		fmt.Fprintln(tw)
	}
	line("run", "", func(i int) string { return labels[i] })
	line("protocol", "", func(i int) string { return results[i].Protocol })
	line("workload", "", func(i int) string { return results[i].Workload })
	line("topology", "", func(i int) string { return results[i].Topology })
	line("runtime", "", func(i int) string {
		if results[i].Interrupted {
			return results[i].Runtime + " (interrupted)"
		}
		return results[i].Runtime
	})
	line("duration", "s", func(i int) string { return strconv.FormatFloat(results[i].DurationS, 'f', -1, 64) })
	line("clients", "", func(i int) string { return strconv.Itoa(results[i].Clients) })
	for _, row := range rows {
		line(row.Name, row.Unit, func(i int) string { return formatMetric(row.Unit, row.Values[i]) })
	}
	line("checker", "", func(i int) string { return results[i].Check.Verdict() })
	return tw.Flush()
}

// formatMetric renders a value for the table by its unit; "-" for none.
func formatMetric(unit string, v *float64) string {
	if v == nil {
		return "-"
	}
	switch unit {
	case "ops/s", "bytes":
		return strconv.FormatFloat(*v, 'f', 0, 64)
	case "ms":
		return strconv.FormatFloat(*v, 'f', 2, 64)
	case "fraction":
		return strconv.FormatFloat(*v, 'f', 3, 64)
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}
