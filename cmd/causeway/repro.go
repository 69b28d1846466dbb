package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/repro"
)

func reproCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "repro PAPER",
		Short: "Reproduce a paper's evaluation in the simulator and write a report",
		Long: `Repro runs the experiments of a paper's evaluation in the simulator and
writes DIR/report.md with the paper's number beside ours for each figure and
a note on where and why they differ. Every run is checked for causal+
consistency and the report says whether all passed.

Papers: karma (karma.txt §6: Figs. 7, 10, 11, 12).`,
	}
	var dir string
	var duration time.Duration
	var threads []int
	var seed uint64
	karma := &cobra.Command{
		Use:   "karma",
		Short: "Reproduce karma.txt §6 (Figs. 7, 10, 11, 12) on karma-aws8",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := repro.Karma(repro.Options{Dir: dir, Duration: duration, Threads: threads, Seed: seed,
				Progress: func(i, n int, what string) {
					fmt.Fprintf(cmd.ErrOrStderr(), "[%2d/%d] %s\n", i, n, what)
				}})
			if err != nil {
				return &exitError{2, err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), "wrote", filepath.Join(dir, "report.md"))
			return nil
		},
	}
	karma.Flags().StringVar(&dir, "out", "repro-karma", "directory for report.md")
	karma.Flags().DurationVar(&duration, "duration", 3*time.Second, "virtual time of each run")
	karma.Flags().IntSliceVar(&threads, "threads", []int{64, 256, 512, 1024}, "client-thread counts of the saturation sweep")
	karma.Flags().Uint64Var(&seed, "seed", 1, "seed of every run")
	cmd.AddCommand(karma)
	return cmd
}
