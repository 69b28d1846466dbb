package bench

import (
	"github.com/causeway/causeway/check"
)

// maxQuiescenceReports bounds how many nodes' quiescence problems are
// explained.
const maxQuiescenceReports = 10

// Quiescence turns what the runtime's protocol.Quiescer checks found
// after a run quiesced into "quiescence" violations (at most
// maxQuiescenceReports). quiet says whether the network went quiet; when
// it did not, the explanation says so.
func Quiescence(problems []error, quiet bool) []check.Violation {
	var out []check.Violation
	for _, p := range problems {
		v := check.Quiescence(p.Error())
		if !quiet {
			v.Explanation += " (the network had not gone quiet)"
		}
		out = append(out, v)
		if len(out) == maxQuiescenceReports {
			break
		}
	}
	return out
}

// addQuiescence adds the quiescence findings to a run's verdict.
func (c *CheckResult) addQuiescence(violations []check.Violation) {
	quiescent := len(violations) == 0
	c.Quiescent = &quiescent
	c.OK = c.OK && quiescent
	c.Violations = append(c.Violations, violations...)
	c.Total += len(violations)
}
