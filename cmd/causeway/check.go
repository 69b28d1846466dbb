package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/history"
)

func checkCmd() *cobra.Command {
	var maxViolations int
	var output *string
	var htmlOut string
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
number and what is wrong) or holds no operation.

--html FILE also writes the verdict as one self-contained HTML page (inline
CSS and SVG, nothing fetched; open it in any browser). Each explained
violation is drawn as its chain of operations: one lane per session, the
operations in causal order down each lane, arrows for session order (grey;
"…" where operations are left out), reads-from (blue, labelled with the
key) and, for order disagreements, the conflict edges that form the cycle
(dashed, "before": the write must be ordered before the other). What breaks
the rule (the read, its edge, the conflict edges) is red; below each
drawing are the rule broken and the explanation, with the history's line
numbers. The exit status is the same with or without --html.`,
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
			if htmlOut != "" {
				if err := writeCheckHTML(htmlOut, args[0], res); err != nil {
					var pe *fs.PathError
					if errors.As(err, &pe) {
						err = pe.Err // the message names the file already
					}
					return failuref("check: --html %s: %v", htmlOut, err)
				}
			}
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
	cmd.Flags().StringVar(&htmlOut, "html", "", "also write the verdict and each explained violation, drawn, as a self-contained HTML page to this file")
	return cmd
}

// writeCheckHTML writes res as check.WriteHTML's page to path, titled with
// the history's name.
func writeCheckHTML(path, historyName string, res check.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	title := filepath.Base(historyName)
	if historyName == "-" {
		title = "stdin"
	}
	if err := check.WriteHTML(f, title, res); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
