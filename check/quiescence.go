package check

import "fmt"

// RuleQuiescence is the rule of violations a runtime reports when a
// protocol's own invariants at quiescence (protocol.Quiescer) do not hold
// after a run healed and went quiet: something is left in flight that
// should have completed, as "divergence" reports replicas that should have
// converged.
const RuleQuiescence = "quiescence"

// Quiescence explains that a node's invariants at quiescence do not hold;
// problem names the node and what is left ("a/cc0: not quiescent: …").
func Quiescence(problem string) Violation {
	return Violation{
		Rule: RuleQuiescence,
		Explanation: fmt.Sprintf("after the run healed and went quiet, %s (with nothing in flight, every operation and write must have completed everywhere)",
			problem),
	}
}
