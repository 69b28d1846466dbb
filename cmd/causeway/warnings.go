package main

import (
	"fmt"
	"io"

	"github.com/causeway/causeway/bench"
)

// warnLateFaults prints a warning on w, naming the command, for each
// fault event of spec's schedule that comes at or after the end of the
// run: it never happens, which is almost always a mistake in the schedule
// or the --duration.
func warnLateFaults(w io.Writer, cmdName string, spec bench.SimSpec) {
	for _, e := range spec.Faults.After(spec.Duration) {
		fmt.Fprintf(w, "causeway: %s: warning: the fault event at %v is not before the run ends (--duration %v), so it never happens: %s\n",
			cmdName, e.At, spec.Duration, e)
	}
}
