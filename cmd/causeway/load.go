package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/workload"
)

func loadCmd() *cobra.Command {
	var dir, wl string
	var records, workers int
	var opTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "load --cluster DIR",
		Short: "Write a workload's records to a live cluster before 'causeway bench' (YCSB's load phase)",
		Long: `Load writes every record of a workload (keys user00000000 .. the record
count, values of the workload's size) to the live cluster in DIR with real
puts from parallel client sessions, then reads every record back from every
datacenter until it is readable there. A later 'causeway bench' with the same
workload and --records reads those records. Its history records each value
it read that was written before the run (a loaded record, or a write of an
earlier bench) as a write of session "pre-run", concurrent with the whole
run, so a bench after a load passes the checker, and so does a second bench
on the same cluster.

Example:
  causeway load --cluster /tmp/c1 --workload ycsb-95-5
  causeway bench --cluster /tmp/c1 --workload ycsb-95-5 --duration 10s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, w, err := clusterWorkload(dir, wl, records)
			if err != nil {
				return err
			}
			if err := w.Validate(); err != nil {
				return &exitError{2, err}
			}
			spec := bench.LoadSpec{Cluster: cfg, Workload: w, Workers: workers, OpTimeout: opTimeout,
				Progress: loadProgress(cmd.ErrOrStderr())}
			res, err := bench.RunLoad(spec)
			if err != nil {
				return &exitError{1, err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "loaded %d records of %d bytes in %.1fs (%.0f puts/s, %d retried), readable in every DC after %.1fs more\n",
				res.Records, w.ValueSize, res.Write.Seconds(), float64(res.Records)/max(res.Write.Seconds(), 1e-9), res.Retries, res.Verify.Seconds())
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "cluster", "", "cluster directory (or cluster.yaml) written by 'causeway cluster up' (required)")
	fl.StringVar(&wl, "workload", "ycsb-95-5", "workload whose records to load (see 'causeway workloads')")
	fl.IntVar(&records, "records", 0, "number of records (0: the workload's default)")
	fl.IntVar(&workers, "workers", 0, "parallel client sessions (default 4 per DC)")
	fl.DurationVar(&opTimeout, "op-timeout", 5*time.Second, "a put that cannot complete within this is retried")
	return cmd
}

// loadProgress prints the load's progress on one line of w.
func loadProgress(w io.Writer) func(phase string, done, total int64) {
	return func(phase string, done, total int64) {
		fmt.Fprintf(w, "\r%-14s %d/%d", phase, done, total)
		if done == total {
			fmt.Fprintln(w)
		}
	}
}

// clusterWorkload loads the cluster file of --cluster and the workload of
// --workload with --records applied, as load and bench both take them; a
// bad flag is an exit-2 error.
func clusterWorkload(dir, wl string, records int) (*cluster.Config, workload.Workload, error) {
	if dir == "" {
		return nil, workload.Workload{}, &exitError{2, fmt.Errorf("--cluster is required")}
	}
	cfg, err := cluster.Load(dir)
	if err != nil {
		return nil, workload.Workload{}, &exitError{2, err}
	}
	w, err := workload.Lookup(wl)
	if err != nil {
		return nil, workload.Workload{}, &exitError{2, err}
	}
	if records > 0 {
		w.RecordCount = records
	}
	return cfg, w, nil
}
