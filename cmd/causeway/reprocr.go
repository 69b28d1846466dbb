package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/repro"
)

// reproChainReactionCmd is `repro chainreaction`.
func reproChainReactionCmd() *cobra.Command {
	var rr reproRun
	var opts repro.CROptions
	cmd := &cobra.Command{
		Use:   "chainreaction",
		Short: "Reproduce chainreaction.txt §7 (Figs. 2–11) on chainreaction-1dc and chainreaction-2dc",
		Long: `Reproduce chainreaction.txt §7 on chainreaction-1dc (9 servers, R 6, k 3)
and chainreaction-2dc (two DCs of 4 servers, R 4, k 2 in each) and write
DIR/report.md with plots, in groups (--figures):

  site  Fig. 2a (YCSB A, B, C, D, F on 1M × 1 KB records: chainreaction,
        cassandra-e, fawn-kv with R 3 and R 6), Fig. 2b (the single-object
        mixes 50/50 … 0/100), Figs. 3 and 4 (latency of A and B)
  txn   Figs. 8 and 9 (the get-transaction mixes, on one site and two DCs)
  fail  Fig. 10 (a node of a single chain killed inside [head, k] and
        inside (k, tail], throughput over time)
  geo   Figs. 5a, 5b, 6 and 7 on two DCs: chainreaction, cassandra-e,
        cr-cops and fawn-kv-4 (one chain of 4 spanning the DCs)
  meta  Fig. 11 (metadata per put and wide-area bytes per put of
        chainreaction, cr-cops and cops as dependencies grow)

Every run is checked for causal+ consistency.

The paper counts operations; the runs here are in virtual time, scaled down
(3 s per run, 20 s for Fig. 10 with the node killed at 8 s): about 100 runs,
several minutes on two cores (--figures to run fewer). Progress, run JSONs
(DIR/runs) and Ctrl-C are as for 'repro karma'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return rr.run(cmd, "repro chainreaction", func(o repro.Options) error {
				opts.Options = o
				return repro.ChainReaction(opts)
			})
		},
	}
	rr.register(cmd, "repro-chainreaction", 2*time.Millisecond, "each server's cost per message")
	f := cmd.Flags()
	f.DurationVar(&rr.opts.Duration, "duration", 3*time.Second, "virtual time of each run but Fig. 10's")
	f.IntVar(&opts.Clients, "threads", 200, "closed-loop client threads of each run but Fig. 10's (§7.1: 200)")
	f.DurationVar(&opts.FailDuration, "fail-duration", 20*time.Second, "virtual time of each Fig. 10 run (the paper's 140 s, scaled)")
	f.DurationVar(&opts.FailAt, "fail-at", 8*time.Second, "when Fig. 10's node is killed (the paper's 60 s, scaled)")
	f.IntVar(&opts.FailThreads, "fail-threads", 100, "client threads of the Fig. 10 runs (§7.4: 100)")
	f.StringVar(&opts.Figures, "figures", "all", "figure groups to run, comma-separated: all, or some of "+strings.Join(repro.CRFigureGroups, ", "))
	return cmd
}
