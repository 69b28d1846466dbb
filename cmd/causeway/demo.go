package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
)

func demoCmd() *cobra.Command {
	f := defaultSimFlags()
	// Sized to finish in well under a minute on two cores. Wide-area jitter
	// of ±20 ms one way (real inter-region latency varies by that much) lets
	// writes overtake each other on different paths, which is when eventual
	// consistency shows its causality violations.
	f.duration = 3 * time.Second
	f.clientsPerDC = 4
	f.jitter = 20 * time.Millisecond
	protocols := "eventual,cops,cops-pr,karma"
	var output *string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Compare full and partial replication on the Karma paper's 8-datacenter topology, checked for causal+ consistency",
		Long: `Demo runs each protocol on the same simulated deployment — by default the
Karma paper's 8 AWS datacenters (karma-aws8) with its 95% get / 5% put
zipfian workload (ycsb-95-5) — records every client operation, and runs the
causal+ checker on each history.

The default protocols span the design space: eventual (last-writer-wins, no
causal tracking) and cops (COPS-Ideal) replicate every key in every DC;
cops-pr (clients statically bound to their DC's ring) and karma (dynamic
ring restrictions and DC caches) store a key once per ring.

For each it prints the storage cost (copies of each key, from the
protocol's placement), payload bytes sent between DCs per operation, the
fraction of operations answered without a wide-area round trip, get and put
latency, write visibility and the checker's verdict. Then it says, from
those numbers, what partial replication saves and costs against full
replication, which partial design recovers what, and what the checker
found, explaining the first violation of each protocol that failed.

With -w json it prints one JSON document instead: the settings, the rows,
the summary lines and each run's full result.

Exit status: 0 when every protocol that claims causal+ consistency passed
the checker (eventual may fail it: it claims less); 1 when one did not;
2 on bad arguments, before any run starts.`,
		Example: `  causeway demo
  causeway demo --protocols cops,karma --duration 10s --seed 3
  causeway demo -w json | jq '.rows[] | {protocol, replicas_per_key, wan_bytes_per_op}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := validateOutput("demo", *output); err != nil {
				return err
			}
			var names []string
			for _, n := range strings.Split(protocols, ",") {
				if n = strings.TrimSpace(n); n != "" {
					names = append(names, n)
				}
			}
			if len(names) == 0 {
				return usageErrorf("demo: --protocols: %v", errNoProtocols)
			}
			// Every name resolved before the first run starts.
			specs := make([]bench.SimSpec, len(names))
			for i, name := range names {
				f.protocol = name
				spec, err := f.spec()
				if err != nil {
					return usageErrorf("demo: %v", err)
				}
				specs[i] = spec
			}
			first := specs[0]
			warnLateFaults(cmd.ErrOrStderr(), "demo", first)
			rep := demoReport{Topology: first.Topology.Name, DCs: len(first.Topology.Datacenters), Workload: first.Workload.Name,
				DurationS: first.Duration.Seconds(), Clients: first.Clients, JitterMs: float64(f.jitter) / float64(time.Millisecond), Seed: first.Seed}
			w := cmd.OutOrStdout()
			if *output == outputTable {
				// Said before the runs, which take a while.
				fmt.Fprintf(w, "Causeway demo: %d client sessions on %s (%d DCs), workload %s, %v of virtual time, wide-area jitter ±%v, seed %d\n\n",
					first.Clients, rep.Topology, rep.DCs, rep.Workload, first.Duration, f.jitter, first.Seed)
			}
			for _, spec := range specs {
				name := spec.Protocol.Name()
				spec.Progress = progressBar(cmd.ErrOrStderr(), name)
				started := time.Now()
				res, err := bench.RunSim(spec)
				if err != nil {
					return failuref("demo: %s: %v", name, err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%-10s simulated in %.1fs of wall time\n", name, time.Since(started).Seconds())
				rep.Results = append(rep.Results, res)
				rep.Rows = append(rep.Rows, newDemoRow(res, spec.Protocol, spec.Topology, spec.Workload))
			}
			rep.Summary = demoSummary(rep.Rows)
			rep.Replay = fmt.Sprint("causeway sim --protocol P --topology ", f.topology, " --workload ", f.workload,
				" --duration ", f.duration, " --clients-per-dc ", f.clientsPerDC, " --jitter ", f.jitter, " --seed ", f.seed, " ", costFlag(f.cost), "--history h.jsonl")
			if *output == outputJSON {
				if err := writeJSON(w, rep); err != nil {
					return failuref("demo: %v", err)
				}
				return brokenClaims(rep.Rows)
			}
			if err := writeDemoTable(w, rep.Rows); err != nil {
				return err
			}
			fmt.Fprintln(w)
			for _, line := range rep.Summary {
				fmt.Fprintln(w, "* "+line)
			}
			for _, r := range rep.Results {
				if !r.Check.OK {
					fmt.Fprintf(w, "\nFirst violation of %s:\n  %s\n", r.Protocol, indent(r.Check.FirstViolation()))
				}
			}
			fmt.Fprintln(w, "\nReproduce any row with:", rep.Replay+"; then: causeway check h.jsonl")
			return brokenClaims(rep.Rows)
		},
	}
	output = addOutputFlag(cmd)
	cmd.Flags().StringVar(&protocols, "protocols", protocols, "comma-separated protocols to compare")
	cmd.Flags().StringVar(&f.topology, "topology", f.topology, "topology preset or YAML file")
	cmd.Flags().StringVar(&f.workload, "workload", f.workload, "workload")
	f.register(cmd)
	return cmd
}

// demoReport is what the demo prints with -w json: the settings shared by
// every run, one row per protocol, the summary lines and every result.
type demoReport struct {
	Topology  string          `json:"topology"`
	DCs       int             `json:"dcs"`
	Workload  string          `json:"workload"`
	DurationS float64         `json:"duration_s"`
	Clients   int             `json:"clients"`
	JitterMs  float64         `json:"jitter_ms"`
	Seed      uint64          `json:"seed"`
	Rows      []demoRow       `json:"rows"`
	Summary   []string        `json:"summary"`
	Replay    string          `json:"replay"`
	Results   []*bench.Result `json:"results"`
}

// brokenClaims fails the demo (exit status 1) when a protocol that claims
// causal+ consistency failed the checker, as sim does.
func brokenClaims(rows []demoRow) error {
	var broken []string
	for _, r := range rows {
		if !r.CheckerOK && r.Claims == protocol.CausalPlus.String() {
			broken = append(broken, r.Protocol)
		}
	}
	if len(broken) > 0 {
		return failuref("demo: %s %s causal+ consistency but failed the checker", strings.Join(broken, ", "), claimVerb(len(broken)))
	}
	return nil
}
