package main

import (
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
		Short: "Reproduce chainreaction.txt §7 (Figs. 2–4, 8–10) on chainreaction-1dc",
		Long: `Reproduce chainreaction.txt §7 on chainreaction-1dc (9 servers, R 6, k 3)
and write DIR/report.md with plots: Fig. 2a (YCSB A, B, C, D, F on 1M × 1 KB
records: chainreaction, cassandra-e, fawn-kv with R 3 and R 6), Fig. 2b (the
single-object mixes 50/50 … 0/100), Figs. 3 and 4 (latency of A and B),
Figs. 8 and 9 (the get-transaction mixes) and Fig. 10 (a node of a single
chain killed inside [head, k] and inside (k, tail], throughput over time).
The geo figures (5–7, 11) are listed as not built while cr-cops is not
registered. Every run is checked for causal+ consistency.

The paper counts operations; the runs here are in virtual time, scaled down
(3 s per run, 20 s for Fig. 10 with the node killed at 8 s): about 40 runs,
a few minutes on two cores. Progress, run JSONs (DIR/runs) and Ctrl-C are
as for 'repro karma'.`,
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
	return cmd
}
