package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
)

func benchCmd() *cobra.Command {
	var dir, wl, out, historyPath string
	var duration, opTimeout, ceiling time.Duration
	var proto string
	var clients int
	var seed uint64
	var output *string
	var jsonOut bool
	var wf workloadFlags
	var pf progressFlags
	cmd := &cobra.Command{
		Use:   "bench --cluster DIR",
		Short: "Run a closed-loop workload against a live cluster, checked for causal+ consistency",
		Long: `Bench runs closed-loop client sessions of a workload from this process
against the live cluster in DIR (see 'causeway cluster up') for a wall-clock
duration, then prints throughput and latencies, records the history and runs
the causal+ checker on it. The result JSON has "runtime":"live"; metrics the
clients cannot observe (visibility, message counts, convergence) are absent.

Load the cluster's records first ('causeway load' with the same --workload
and --records): bench reads and writes the workload's keys, and records a
read of a loaded value, or of a value an earlier run wrote, as the key's
initial state (null).

The same clients also spend --ceiling sending no-op pings that the servers
answer over the same transport without running the protocol: the physical
ceiling of this cluster on this machine. The pings run in short slices
interleaved with the workload's (one pair per half second), so that both
are measured on the same machine even when its load drifts; the run lasts
--duration plus --ceiling. The result reports ceiling_ops_s and
ceiling_fraction = throughput / ceiling.
--protocol noop measures only the ceiling, for --duration.

--target offers a fixed rate (an open loop, as YCSB's -target with
intended-time latencies): each of the N clients has operations due every
N/target seconds, issues them on schedule (at once, to catch up, when its
previous operation took longer) and its latencies count from when each
operation was due, so an overloaded cluster shows growing latency at the
offered rate rather than a lower rate. --records, --distribution and
--value-size change the workload as they do for 'causeway sim'.

Progress (a bar with the time left; with --status-interval, status lines
with ops/s and latency percentiles) goes to stderr when it is a terminal or
with --progress. Ctrl-C stops the clients, lets the operations under way
complete, checks the history of what ran, prints the summary so far (marked
interrupted) and writes the history: complete lines, checkable with
'causeway check'. A second Ctrl-C aborts at once, leaving no history file
(it is written under a temporary name and renamed when complete).

Unless GODEBUG sets schedtrace, the process first runs itself again with
schedtrace=2147483647 added to GODEBUG: it keeps the Go runtime's sysmon
thread from polling every 20 µs each time the process is woken (on a
machine up more than 24.9 days it also prints one scheduler line to
standard error at start).

Exit status: 0 when the run completed and, for a protocol that claims
causal+ consistency, the checker found nothing; 1 when such a protocol
failed the checker or the cluster could not be reached; 2 on bad
arguments; 130 when interrupted (and checked).

Examples:
  causeway bench --cluster /tmp/c1 --workload ycsb-95-5 --duration 10s --clients 16 --out r.json --history h.jsonl
  causeway bench --cluster /tmp/c1 --records 1000 --distribution uniform --value-size 1024 --target 500 --status-interval 2s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, w, err := clusterWorkload(dir, wl, 0)
			if err != nil {
				return err
			}
			if w, err = wf.apply(w); err != nil {
				return usageErrorf("bench: %v", err)
			}
			if err := pf.validate("bench"); err != nil {
				return err
			}
			if clients <= 0 {
				clients = 4 * len(cfg.Topology.Datacenters)
			}
			if ceiling == 0 && cmd.Flags().Changed("ceiling") {
				ceiling = -1 // --ceiling 0: skip it (LiveSpec's 0 is the default)
			}
			spec := bench.LiveSpec{Cluster: cfg, Workload: w, Seed: seed, Duration: duration, Clients: clients,
				OpTimeout: opTimeout, Ceiling: ceiling, ClientRate: wf.clientRate(clients), OpenLoop: wf.target > 0}
			switch proto {
			case "", cfg.Protocol:
			case bench.NoopProtocol:
				spec.NoopOnly = true
			default:
				return &exitError{2, fmt.Errorf("--protocol %q: the cluster in %s runs %q; only it or %q (the ceiling alone) can be benchmarked", proto, dir, cfg.Protocol, bench.NoopProtocol)}
			}
			if historyPath != "" {
				hf, err := createPending(historyPath)
				if err != nil {
					return &exitError{2, err}
				}
				defer hf.discard()
				spec.History = hf
			}
			ctx, stop := interruptContext(cmd.Context(), cmd.ErrOrStderr(), "bench")
			defer stop()
			spec.Context = ctx
			spec.Progress = pf.reporter(cmd.ErrOrStderr(), cfg.Protocol)
			res, err := bench.RunLive(spec)
			if err != nil {
				return &exitError{1, err}
			}
			if hf, ok := spec.History.(*pendingFile); ok {
				if err := hf.commit(); err != nil {
					return failuref("bench: --history: %v", err)
				}
			}
			if out != "" {
				if err := writeJSONFile(out, res); err != nil {
					return &exitError{2, err}
				}
			}
			o := cmd.OutOrStdout()
			if jsonOut || *output == outputJSON {
				if err := res.WriteJSON(o); err != nil {
					return err
				}
			} else {
				if err := writeResultTables(o, []*bench.Result{res}); err != nil {
					return err
				}
				if res.CeilingOpsS != nil {
					fmt.Fprintf(o, "ceiling: %.0f no-op round trips/s over the same transport in this run; ceiling_fraction %.3f\n",
						*res.CeilingOpsS, *res.CeilingFraction)
				}
				if res.Protocol != bench.NoopProtocol {
					printVerdicts(o, []*bench.Result{res})
				}
			}
			if p, _ := protocol.Lookup(res.Protocol); !res.Check.OK && p != nil && p.Guarantee() == protocol.CausalPlus {
				return &exitError{1, fmt.Errorf("%s claims causal+ consistency but failed the checker on the live run", res.Protocol)}
			}
			return interrupted("bench", res)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "cluster", "", "cluster directory (or cluster.yaml) written by 'causeway cluster up' (required)")
	fl.StringVar(&wl, "workload", "ycsb-95-5", "workload (see 'causeway workloads')")
	fl.DurationVar(&duration, "duration", 10*time.Second, "wall-clock time during which clients issue operations")
	fl.IntVar(&clients, "clients", 0, "closed-loop client sessions (default 4 per DC)")
	fl.DurationVar(&opTimeout, "op-timeout", 5*time.Second, "an operation that cannot complete within this returns an error")
	fl.StringVar(&proto, "protocol", "", "the cluster's protocol (default), or \"noop\" to measure only the ceiling")
	fl.DurationVar(&ceiling, "ceiling", 0, "how long to measure the no-op ceiling, in slices interleaved with the workload (default: a quarter of --duration, 0.5s to 5s; 0 skips it)")
	fl.Uint64Var(&seed, "seed", 1, "seed of the workload generators")
	wf.register(cmd)
	pf.register(cmd)
	fl.StringVar(&out, "out", "", "write the result JSON to this file")
	fl.StringVar(&historyPath, "history", "", "write the history (JSON Lines) to this file")
	fl.BoolVar(&jsonOut, "json", false, "print the result JSON instead of the table (the same as -w json)")
	output = addOutputFlag(cmd)
	return cmd
}
