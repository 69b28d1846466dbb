package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/repro"
	"github.com/causeway/causeway/runtime/sim"
)

func reproCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "repro PAPER",
		Short: "Reproduce a paper's evaluation in the simulator and write a report",
		Long: `Repro runs the experiments of a paper's evaluation in the simulator and
writes DIR/report.md with the paper's number beside ours for each figure, a
note on where and why they differ, and each figure as PNG and SVG in DIR.
Every run is checked for causal+ consistency and the report says whether all
passed.

Papers: karma (karma.txt §6: Figs. 7–12, the cost analysis of §6.4 and the
object sizes of §6.5); k2 (k2.txt §VII: Figs. 8 and 9, the TAO workload,
write latency and staleness).`,
	}
	var opts repro.Options
	var costModel string
	var pf progressFlags
	karma := &cobra.Command{
		Use:   "karma",
		Short: "Reproduce karma.txt §6 (Figs. 7–12, §6.4 cost, §6.5 object size) on karma-aws8",
		Long: `Reproduce karma.txt §6 on karma-aws8 and write DIR/report.md with plots.

Fig. 7's sweep follows §5: client threads double from 256 until throughput
rises by less than 10% (at most 4096), each server spending 2 ms per
message. The defaults (3 s of virtual time per run, 30 s congestion runs at
a capped per-thread rate; about 40 runs) take 2–3 minutes on two cores.
Longer runs and explicit thread counts bring the numbers closer to steady
state, e.g.
  causeway repro karma --duration 10s --threads 512,1024,2048,4096,8192 --congestion-duration 120s

Each run's result JSON is written to DIR/runs/ as it completes (the report
lists them; 'causeway compare' reads them). Each run is announced on stderr
with an estimate of the time left; a bar and status lines follow as for
'causeway sim' (--progress, --status-interval). Ctrl-C stops the run under
way, prints the summary of the runs so far and exits with status 130
without writing the report; their JSONs stay in DIR/runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRepro(cmd, "repro karma", &pf, opts, costModel, repro.Karma)
		},
	}
	f := karma.Flags()
	f.StringVar(&opts.Dir, "out", "repro-karma", "directory for report.md and the plots")
	f.DurationVar(&opts.Duration, "duration", 3*time.Second, "virtual time of each run (but the congestion runs)")
	f.IntSliceVar(&opts.Threads, "threads", nil, fmt.Sprintf("client-thread counts of the saturation sweep (default: from %d, double until throughput rises by less than %.0f%%, at most %d)",
		repro.SweepStart, 100*repro.SaturationGain, repro.SweepMax))
	f.DurationVar(&opts.ServiceTime, "service-time", 2*time.Millisecond, "each server's cost per message: larger values saturate the servers with fewer threads")
	f.StringVar(&costModel, "cost", "default", "cost model in units of --service-time: 'default', 'simple' (every message costs --service-time) or a YAML file")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed of every run")
	f.DurationVar(&opts.CongestionDuration, "congestion-duration", 30*time.Second,
		"virtual time of each congestion run (Figs. 8, 9); Europe is congested during its middle third")
	f.IntVar(&opts.CongestionThreads, "congestion-threads", 256, "client threads of the congestion runs")
	f.Float64Var(&opts.CongestionRate, "congestion-rate", 5, "operations per second each thread of the congestion runs issues at most")
	f.DurationSliceVar(&opts.CongestionDelays, "congestion-delays", []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond},
		"delays added to every message into or out of Europe, one run each")
	f.IntSliceVar(&opts.ValueSizes, "value-sizes", []int{200, 1024, 4096}, "object sizes in bytes of §6.5 (run only with a cost model that charges per byte)")
	pf.register(karma)
	cmd.AddCommand(karma, reproK2Cmd())
	return cmd
}

func reproK2Cmd() *cobra.Command {
	var opts repro.Options
	var costModel string
	var pf progressFlags
	cmd := &cobra.Command{
		Use:   "k2",
		Short: "Reproduce k2.txt §VII (Figs. 8 and 9, TAO, write latency, staleness) on k2-emulab6",
		Long: `Reproduce k2.txt §VII on k2-emulab6 with k2, paris (PaRiS*) and rad side
by side, and write DIR/report.md with plots: Fig. 8's read-only transaction
latency CDFs, all-local shares and rad's second rounds in the default
workload and panels a–f (0% writes, zipf 1.4, f = 3, 5% writes, zipf 0.9,
f = 1), the TAO-like workload, Fig. 9's peak throughput of k2 and rad per
setting (clients double until throughput rises by less than 10%), and
§VII-D's write latency and staleness. Every run is checked.

The defaults scale the paper down to minutes on two cores: 100,000 keys
(the caches stay 5% of them), 20 s of virtual time per run of which the
first 10 s are dropped as warm-up, 64 clients, a sweep of 64 to 256
clients (about 10 minutes; --sweep 64,128 about 4). Longer runs and more
keys come closer to the paper, e.g.
  causeway repro k2 --duration 60s --warmup 30s --records 1000000

Each run's result JSON is written to DIR/runs/ as it completes. Each run is
announced on stderr with an estimate of the time left; a bar and status
lines follow as for 'causeway sim' (--progress, --status-interval). Ctrl-C
stops the run under way and exits with status 130 without writing the
report.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRepro(cmd, "repro k2", &pf, opts, costModel, repro.K2)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Dir, "out", "repro-k2", "directory for report.md and the plots")
	f.DurationVar(&opts.Duration, "duration", repro.K2Duration, "virtual time of each run, its warm-up included")
	f.DurationVar(&opts.Warmup, "warmup", repro.K2Warmup, "start of each run whose operations are dropped while the caches warm")
	f.IntVar(&opts.Clients, "clients", repro.K2Clients, "closed-loop clients of the latency runs, the first point of Fig. 9's sweep")
	f.IntSliceVar(&opts.Threads, "sweep", nil, fmt.Sprintf("client counts of Fig. 9's sweep (default: from --clients, double until throughput rises by less than %.0f%%, at most %d)",
		100*repro.SaturationGain, repro.K2SweepMax))
	f.IntVar(&opts.Records, "records", repro.K2Records, "keys of the workloads (the paper: 1000000)")
	f.DurationVar(&opts.ServiceTime, "service-time", repro.K2ServiceTime, "each server's cost per message")
	f.StringVar(&costModel, "cost", "default", "cost model in units of --service-time: 'default', 'simple' (every message costs --service-time) or a YAML file")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed of every run")
	pf.register(cmd)
	return cmd
}

// runRepro runs a reproduction with a progress line per run (and its ETA),
// the run's bar, and Ctrl-C handling: the runs so far are summarised and
// no report is written.
func runRepro(cmd *cobra.Command, name string, pf *progressFlags, opts repro.Options, costModel string, reproduce func(repro.Options) error) error {
	stderr := cmd.ErrOrStderr()
	if err := pf.validate(name); err != nil {
		return err
	}
	start := time.Now()
	var report func(bench.Progress)
	var runStart time.Time
	var spent time.Duration // wall time of the runs completed
	opts.Progress = func(i, n int, what string) {
		eta := ""
		if i > 1 {
			eta = fmt.Sprintf(" (ETA %v)", (spent / time.Duration(i-1) * time.Duration(n-i+1)).Round(time.Second))
		}
		fmt.Fprintf(stderr, "[%2d/%d] %s%s\n", i, n, what, eta)
		report = pf.reporter(stderr, fmt.Sprintf("run %d/%d", i, n))
		runStart = time.Now()
	}
	opts.RunProgress = func(p bench.Progress) {
		if report != nil {
			report(p)
		}
	}
	var done []*bench.Result
	opts.RunDone = func(_ string, res *bench.Result, _ string) {
		spent += time.Since(runStart)
		done = append(done, res)
	}
	ctx, stop := interruptContext(cmd.Context(), stderr, name)
	defer stop()
	opts.Context = ctx
	var err error
	if opts.Cost, err = sim.LoadCostModel(costModel); err != nil {
		return &exitError{2, err}
	}
	if err := reproduce(opts); errors.Is(err, repro.ErrInterrupted) {
		o := cmd.OutOrStdout()
		fmt.Fprintf(o, "interrupted after %d runs in %v; no report written; each run's JSON is in %s\n\n",
			len(done), time.Since(start).Round(time.Second), filepath.Join(opts.Dir, repro.RunsDir))
		if len(done) > 0 {
			if err := writeResultTables(o, done); err != nil {
				return err
			}
		}
		return &exitError{exitInterrupted, fmt.Errorf("%s: interrupted", name)}
	} else if err != nil {
		return &exitError{2, err}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s in %v\n", filepath.Join(opts.Dir, "report.md"), time.Since(start).Round(time.Second))
	return nil
}
