// Command causeway is Causeway's one binary: the simulator, the demo, the
// causal+ checker and the listings of protocols, topologies and workloads.
// Run `causeway --help` for the commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	_ "github.com/causeway/causeway/protocol/all" // registers every protocol
)

// exitError carries a process exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes the command line args and returns the process exit code:
// 0 success, 1 a check failed, 2 bad arguments or input.
func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:   "causeway",
		Short: "Causeway: a geo-replicated causal+ key-value store, its protocols, simulator and checker",
		Long: `Causeway implements published causally consistent geo-replicated stores
(Karma today; K2, C3 and ChainReaction are planned) and their baselines as
interchangeable protocols over one substrate, runs them in a deterministic
simulator or as a live cluster, and checks every run's history for causal+
consistency.

Start with 'causeway demo'.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(demoCmd(), simCmd(), tortureCmd(), checkCmd(), reproCmd(), putCmd(), getCmd(), txnCmd(), loadCmd(), benchCmd(), certsCmd(), serverCmd(), clusterCmd(), protocolsCmd(), topologiesCmd(), workloadsCmd())
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(genDocsCmd()) // hidden: make docs
	if err := root.Execute(); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.err != nil && ee.err.Error() != "" {
				fmt.Fprintln(stderr, "causeway:", ee.err)
			}
			return ee.code
		}
		fmt.Fprintln(stderr, "causeway:", err)
		return 2
	}
	return 0
}
