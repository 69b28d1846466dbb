package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/history"
)

func checkCmd() *cobra.Command {
	var maxViolations int
	cmd := &cobra.Command{
		Use:   "check HISTORY.jsonl",
		Short: "Check a history for causal+ consistency",
		Long: `Check reads a history (JSON Lines, one completed client operation per line,
as written by 'causeway sim --history') and decides whether it is causal+
consistent.

Exit status: 0 when it is (with a one-line summary), 1 when it is not (each
violation explained: the operations involved, in order, and the rule
broken), 2 when the file cannot be read, is malformed (with the line
number and what is wrong) or holds no operation.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return &exitError{2, err}
			}
			defer f.Close()
			h, err := history.Parse(f)
			if err != nil {
				var fe *history.FormatError
				if errors.As(err, &fe) {
					return &exitError{2, fmt.Errorf("%s: %w", args[0], err)}
				}
				return &exitError{2, err}
			}
			if len(h.Ops) == 0 {
				// A run cut short may leave an empty file; it proves nothing.
				return usageErrorf("check: %s: no operations: an empty history is not evidence of consistency", args[0])
			}
			res := check.Check(h, check.Options{MaxViolations: maxViolations})
			if res.OK {
				fmt.Fprintln(cmd.OutOrStdout(), check.Summary(res))
				return nil
			}
			check.Explain(cmd.OutOrStdout(), res)
			return &exitError{1, errors.New("")}
		},
	}
	cmd.Flags().IntVar(&maxViolations, "max-violations", 10, "how many violations to explain (all are counted)")
	return cmd
}
