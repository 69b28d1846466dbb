package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/history"
)

func checkCmd() *cobra.Command {
	var maxViolations int
	var output *string
	cmd := &cobra.Command{
		Use:   "check HISTORY.jsonl|-",
		Short: "Check a history for causal+ consistency",
		Long: `Check reads a history (JSON Lines, one completed client operation per line,
as written by 'causeway sim --history') and decides whether it is causal+
consistent. With "-" it reads the history from standard input. With
-w json it prints the verdict as one JSON document (ok, operations,
violations_total, counts per rule, the violations explained).

Exit status: 0 when it is (with a one-line summary), 1 when it is not (each
violation explained: the operations involved, in order, and the rule
broken), 2 when the file cannot be read, is malformed (with the line
number and what is wrong) or holds no operation.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := validateOutput("check", *output); err != nil {
				return err
			}
			in, err := openHistory(cmd, args[0])
			if err != nil {
				return err
			}
			defer in.Close()
			h, err := history.Parse(in)
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
			if *output == outputJSON {
				return writeCheckJSON(cmd.OutOrStdout(), args[0], res)
			}
			if res.OK {
				fmt.Fprintln(cmd.OutOrStdout(), check.Summary(res))
				return nil
			}
			check.Explain(cmd.OutOrStdout(), res)
			return &exitError{1, errors.New("")}
		},
	}
	cmd.Flags().IntVar(&maxViolations, "max-violations", 10, "how many violations to explain (all are counted)")
	output = addOutputFlag(cmd)
	return cmd
}
