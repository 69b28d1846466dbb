package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
)

// writeAvailability writes torture's availability page to path and fails
// when the campaign contradicts a paper's availability claim.
func writeAvailability(path string, rep *bench.TortureReport, ts bench.TortureSpec, command string) error {
	table := bench.NewAvailabilityTable(rep, faults.NemesisNames())
	checks := bench.CheckAvailabilityClaims(rep, ts.Base.Topology, bench.AvailabilityClaims())
	var b bytes.Buffer
	if err := bench.WriteAvailabilityPage(&b, rep, table, checks, command); err != nil {
		return failuref("torture: --availability: %v", err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return failuref("torture: --availability: %v", err)
	}
	var bad []string
	for _, c := range checks {
		if !c.Holds {
			bad = append(bad, fmt.Sprintf("%s under %s (%s): %s, %d of %d reachable operations failed",
				c.Protocol, c.Claim.Fault, c.Claim.Source, c.Class, c.FailedOps, c.EligibleOps))
		}
	}
	if len(bad) > 0 {
		return failuref("torture: availability claims contradicted (see %s):\n  %s", path, strings.Join(bad, "\n  "))
	}
	return nil
}

// tortureCommand is the torture command line that reproduces this
// campaign: its set flags, but for those that do not change the runs
// (output, workers, where replays go).
func tortureCommand(cmd *cobra.Command) string {
	parts := []string{"causeway torture"}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "write-out", "workers", "out", "shrink-runs":
			return
		case "availability":
			// NoOptDefVal: a path must be given as --availability=PATH.
			if f.Value.String() == f.NoOptDefVal {
				parts = append(parts, "--availability")
			} else {
				parts = append(parts, "--availability="+f.Value.String())
			}
			return
		}
		parts = append(parts, fmt.Sprintf("--%s %s", f.Name, f.Value.String()))
	})
	return strings.Join(parts, " ")
}

// requireCaught fails when a canary protocol of the campaign (one that
// breaks causal+ in ordinary runs: protocol.Canary, eventual) ran but the
// checker caught none of its runs. Other protocols that claim less than
// causal+ (the Cassandra presets) are reported, not required to be caught:
// a quorum preset may keep causality in practice.
func requireCaught(ts bench.TortureSpec, rep *bench.TortureReport) error {
	for i, p := range ts.Protocols {
		s := rep.Summary[i]
		if protocol.IsCanary(p) && s.Runs > 0 && s.Caught == 0 {
			return failuref("torture: --require-caught: %s was never caught in %d runs: the checker found no violation of a protocol that does not claim causal+", s.Protocol, s.Runs)
		}
	}
	return nil
}
