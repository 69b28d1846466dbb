package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Output formats of -w/--write-out, as etcdctl names its flag: "table" for
// people (tab-aligned columns, the default), "json" for programs (one JSON
// document on stdout, nothing else there).
const (
	outputTable = "table"
	outputJSON  = "json"
)

// addOutputFlag registers -w/--write-out on a command that prints results
// and returns where its value lands. validateOutput checks it before any
// work starts.
func addOutputFlag(cmd *cobra.Command) *string {
	w := new(string)
	cmd.Flags().StringVarP(w, "write-out", "w", outputTable, "output format: table or json")
	return w
}

// validateOutput rejects an unknown -w value with exit status 2.
func validateOutput(cmdName, w string) error {
	if w != outputTable && w != outputJSON {
		return usageErrorf("%s: --write-out %q: must be table or json", cmdName, w)
	}
	return nil
}

// writeJSON writes v as one indented JSON document.
func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// usageErrorf is a bad-input error: exit status 2, printed as
// "causeway: <message>". Every message names the command that failed
// ("sim: --duration -1s: must be positive").
func usageErrorf(format string, args ...any) error {
	return &exitError{2, fmt.Errorf(format, args...)}
}

// failuref is a runtime failure (the cluster is unreachable, a check
// failed): exit status 1.
func failuref(format string, args ...any) error {
	return &exitError{1, fmt.Errorf(format, args...)}
}
