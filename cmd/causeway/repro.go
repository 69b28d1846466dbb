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
object sizes of §6.5), chainreaction (chainreaction.txt §7: Figs. 2–4,
8–10; the geo figures once the geo protocols exist).`,
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
			return runRepro(cmd, "karma", &opts, &pf, costModel, func() error { return repro.Karma(opts) })
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
	cmd.AddCommand(karma, reproChainReactionCmd())
	return cmd
}

// runRepro runs one paper's reproduction (do, with opts filled in): it
// announces each run on stderr with an estimate of the time left, shows
// a bar and status lines (pf), and on Ctrl-C prints the runs so far.
func runRepro(cmd *cobra.Command, paper string, opts *repro.Options, pf *progressFlags, costModel string, do func() error) error {
	stderr := cmd.ErrOrStderr()
	if err := pf.validate("repro " + paper); err != nil {
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
	ctx, stop := interruptContext(cmd.Context(), stderr, "repro "+paper)
	defer stop()
	opts.Context = ctx
	var err error
	if opts.Cost, err = sim.LoadCostModel(costModel); err != nil {
		return &exitError{2, err}
	}
	if err := do(); errors.Is(err, repro.ErrInterrupted) {
		o := cmd.OutOrStdout()
		fmt.Fprintf(o, "interrupted after %d runs in %v; no report written; each run's JSON is in %s\n\n",
			len(done), time.Since(start).Round(time.Second), filepath.Join(opts.Dir, repro.RunsDir))
		if len(done) > 0 {
			if err := writeResultTables(o, done); err != nil {
				return err
			}
		}
		return &exitError{exitInterrupted, fmt.Errorf("repro %s: interrupted", paper)}
	} else if err != nil {
		return &exitError{2, err}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s in %v\n", filepath.Join(opts.Dir, "report.md"), time.Since(start).Round(time.Second))
	return nil
}
