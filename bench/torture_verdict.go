package bench

import (
	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/protocol"
)

// verdict is the checker and convergence verdicts of a result.
type verdict struct {
	checker      string
	violations   int
	first        string
	converged    bool
	claimsCausal bool
}

func (v verdict) failed() bool { return v.checker == VerdictViolation || !v.converged }

// judge splits a result's check into the checker verdict (rules of the
// history) and convergence (divergence and quiescence findings), and
// tells a violation from eventual being caught.
func judge(p protocol.Protocol, res *Result) verdict {
	v := verdict{converged: true, claimsCausal: p.Guarantee() == protocol.CausalPlus}
	if c := res.Check.Converged; c != nil && !*c {
		v.converged = false
	}
	if q := res.Check.Quiescent; q != nil && !*q {
		v.converged = false
	}
	for _, viol := range res.Check.Violations {
		if viol.Rule != check.RuleDivergence && viol.Rule != check.RuleQuiescence {
			v.violations++
		}
	}
	v.checker = VerdictPass
	if v.violations > 0 {
		v.checker = VerdictViolation
		if !v.claimsCausal {
			v.checker = VerdictCaught
		}
	}
	if v.violations > 0 || !v.converged {
		v.first = res.Check.FirstViolation()
	}
	return v
}
