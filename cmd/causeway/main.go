// Command causeway is Causeway's one binary: the simulator, the demo, the
// causal+ checker and the listings of protocols, topologies and workloads.
// Run `causeway --help` for the commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/internal/quietsysmon"

	_ "github.com/causeway/causeway/protocol/all" // registers every protocol
)

// exitError carries a process exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "server" || os.Args[1] == "bench") {
		// A node and the bench client: the runtime's sysmon polls at 20
		// µs after each wake of a process woken thousands of times a
		// second, unless GODEBUG sets schedtrace when it starts.
		quietsysmon.Reexec()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// newRoot builds the command tree, every command checking its flags
// first (prepareTree).
func newRoot() *cobra.Command {
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
	root.AddCommand(demoCmd(), simCmd(), tortureCmd(), checkCmd(), compareCmd(), reproCmd(), putCmd(), getCmd(), delCmd(), txnCmd(), whereCmd(), loadCmd(), benchCmd(), nemesisCmd(), certsCmd(), serverCmd(), clusterCmd(), protocolsCmd(), topologiesCmd(), workloadsCmd(), versionCmd())
	root.AddCommand(genDocsCmd()) // hidden: make docs
	prepareTree(root)
	return root
}

// run executes the command line args and returns the process exit code:
// 0 success, 1 a runtime failure (a check failed, the cluster is down),
// 2 bad arguments or input. Every error message names the command.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	applyEnvDefaults(root, os.Getenv)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	code, msg := classify(err)
	if msg != "" {
		fmt.Fprintln(stderr, "causeway:", nameCommand(cmd, msg))
	}
	return code
}

// classify returns the exit code of err and its message: an exitError's
// own code; 2 for cobra's "unknown command" (the only command-line error
// prepareTree does not already turn into a usage error); 1, a runtime
// failure, for anything else.
func classify(err error) (code int, msg string) {
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		if ee.err == nil {
			return ee.code, ""
		}
		return ee.code, ee.err.Error()
	case strings.HasPrefix(err.Error(), "unknown command"):
		return 2, err.Error()
	}
	return 1, err.Error()
}

// nameCommand prefixes msg with the name of the command that failed
// ("cluster up: …"), unless msg already starts with it.
func nameCommand(cmd *cobra.Command, msg string) string {
	if cmd == nil || !cmd.HasParent() {
		return msg
	}
	for _, n := range []string{commandName(cmd), cmd.Name()} {
		if strings.HasPrefix(msg, n+":") || strings.HasPrefix(msg, n+" ") {
			return msg
		}
	}
	return commandName(cmd) + ": " + msg
}
