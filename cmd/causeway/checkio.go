package main

import (
	"errors"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/check"
)

// openHistory opens the history check reads: the file at path, or
// standard input when path is "-".
func openHistory(cmd *cobra.Command, path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(cmd.InOrStdin()), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErrorf("check: %v", err)
	}
	return f, nil
}

// checkReport is check's verdict as -w json prints it, with the field
// names of a result JSON's "check".
type checkReport struct {
	History    string            `json:"history"`
	OK         bool              `json:"ok"`
	Operations int               `json:"operations"`
	Total      int               `json:"violations_total"`
	Counts     map[string]int    `json:"counts,omitempty"`
	Violations []check.Violation `json:"violations"`
}

// writeCheckJSON prints res as JSON; like the table, it fails with exit
// status 1 (and no further message) when the history is not causal+.
func writeCheckJSON(w io.Writer, path string, res check.Result) error {
	rep := checkReport{History: path, OK: res.OK, Operations: res.Operations, Total: res.Total, Counts: res.Counts, Violations: res.Violations}
	if rep.Violations == nil {
		rep.Violations = []check.Violation{}
	}
	if err := writeJSON(w, rep); err != nil {
		return failuref("check: %v", err)
	}
	if !res.OK {
		return &exitError{1, errors.New("")}
	}
	return nil
}
