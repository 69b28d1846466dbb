package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/causeway/causeway/bench"
)

// shrinkFlags are sim's --shrink options.
type shrinkFlags struct {
	enabled bool
	runs    int
	out     string
}

func (f *shrinkFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.enabled, "shrink", false, "when the run fails its checks, shrink it (fault events, duration, clients) and print the smallest failing replay")
	fl.IntVar(&f.runs, "shrink-runs", bench.DefaultShrinkRuns, "at most this many simulations while shrinking")
	fl.StringVar(&f.out, "shrink-out", "shrunk.yaml", "file to write the shrunk fault schedule to")
}

// shrink shrinks a failed run and prints its replay command on w.
func (f *shrinkFlags) shrink(w io.Writer, spec bench.SimSpec, res *bench.Result) error {
	if res.Check.OK {
		fmt.Fprintln(w, "\nshrink: nothing to shrink, the run passed its checks")
		return nil
	}
	fmt.Fprintf(w, "\nshrinking (at most %d runs)…\n", f.runs)
	got, err := bench.Shrink(spec, func(r *bench.Result) bool { return !r.Check.OK }, f.runs)
	if err != nil {
		return err
	}
	s := got.Spec
	if len(s.Faults) > 0 {
		data, err := yaml.Marshal(s.Faults)
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.out, data, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "shrunk in %d runs: %d fault events (from %d), %v (from %v), %d clients (from %d), %d operations (from %d)\n",
		got.Runs, len(s.Faults), len(spec.Faults), s.Duration, spec.Duration, s.Clients, spec.Clients, got.Result.Ops, res.Ops)
	fmt.Fprintf(w, "first violation: %s\n", indent(got.Result.Check.FirstViolation()))
	if len(s.Faults) > 0 {
		fmt.Fprintf(w, "fault schedule written to %s\n", f.out)
	}
	fmt.Fprintf(w, "replay: %s\n", bench.ReplayCommand(s, f.out))
	return nil
}
