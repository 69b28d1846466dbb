package bench

import (
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
)

// Checker verdicts of a run.
const (
	// VerdictPass: the history is causal+.
	VerdictPass = "pass"
	// VerdictViolation: a protocol that claims causal+ produced a
	// history that is not.
	VerdictViolation = "violation"
	// VerdictCaught: a protocol that does not claim causal+ (eventual)
	// produced a history that is not: expected, the checker works.
	VerdictCaught = "caught"
)

// TortureRun is one protocol × seed of a torture campaign and its three
// verdicts.
type TortureRun struct {
	Protocol string `json:"protocol"`
	Seed     uint64 `json:"seed"`
	Nemesis  string `json:"nemesis"`
	Workload string `json:"workload"`
	Ops      int64  `json:"ops"`
	// Checker is pass, violation or caught (see the Verdict constants);
	// Violations counts the checker's findings.
	Checker        string `json:"checker"`
	Violations     int    `json:"violations"`
	FirstViolation string `json:"first_violation,omitempty"`
	// Converged: replicas agreed and every node's invariants at
	// quiescence held after the heal (Result.Check.Converged and
	// Quiescent).
	Converged bool `json:"converged"`
	// Availability is the availability verdict.
	Availability Availability `json:"availability"`
	// Failed: the run counts against the protocol (a violation of a
	// claimed guarantee, or no convergence). Eventual being caught does
	// not; unavailability is reported, not failed.
	Failed bool `json:"failed"`
	// Faults is the schedule the run ran.
	Faults faults.Schedule `json:"fault_schedule"`
	// Replay is how to replay a failed run (shrunk) or an unavailable
	// one (as it ran); absent for other runs.
	Replay *TortureReplay `json:"replay,omitempty"`
	// Err is a run that could not be carried out (a bug in the harness or
	// the protocol panicking).
	Err string `json:"error,omitempty"`
}

// TortureReplay is a failed run, shrunk, or an unavailable one, and
// where it was saved.
type TortureReplay struct {
	// File is where the shrunk schedule was saved ("" without Out, or
	// when the shrunk run needs no faults).
	File string `json:"file,omitempty"`
	// Command replays the shrunk run.
	Command string `json:"command"`
	// Events and FromEvents: the shrunk schedule's events, and the
	// original's.
	Events     int `json:"events"`
	FromEvents int `json:"from_events"`
	// Failure is the shrunk run's first violation.
	Failure string `json:"failure"`
	// Spec is the shrunk run (for tests; not in the JSON).
	Spec SimSpec `json:"-"`
}

// TortureSummary counts one protocol's verdicts.
type TortureSummary struct {
	Protocol  string `json:"protocol"`
	Guarantee string `json:"guarantee"`
	Runs      int    `json:"runs"`
	// Pass, Violations and Caught count checker verdicts.
	Pass       int `json:"pass"`
	Violations int `json:"violations"`
	Caught     int `json:"caught"`
	// NotConverged counts runs whose replicas or invariants did not
	// settle after the heal.
	NotConverged int `json:"not_converged"`
	// Unavailable counts runs with a failed eligible operation;
	// FailedOps and EligibleOps sum the operations over all runs.
	Unavailable int `json:"unavailable"`
	FailedOps   int `json:"failed_ops"`
	EligibleOps int `json:"eligible_ops"`
	// Failed counts failed runs (TortureRun.Failed), Errors runs that
	// could not be carried out.
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	// ByNemesis breaks runs, unavailable runs and failed runs down by the
	// nemesis drawn: the raw material of an availability table.
	ByNemesis map[string]*NemesisCount `json:"by_nemesis"`
}

// NemesisCount is one protocol's runs under one nemesis.
type NemesisCount struct {
	Runs        int `json:"runs"`
	Unavailable int `json:"unavailable"`
	FailedOps   int `json:"failed_ops"`
	EligibleOps int `json:"eligible_ops"`
	Failed      int `json:"failed"`
}

// TortureReport is a campaign's outcome: every run in protocol then seed
// order, and a summary per protocol.
type TortureReport struct {
	Topology string `json:"topology"`
	Workload string `json:"workload"`
	Records  int    `json:"records"`
	Duration string `json:"duration"`
	Seeds    int    `json:"seeds"`
	// Interrupted: the campaign was stopped (TortureSpec.Context) before
	// every run; Runs and Summary hold those that finished.
	Interrupted bool             `json:"interrupted,omitempty"`
	Summary     []TortureSummary `json:"summary"`
	Runs        []TortureRun     `json:"runs"`
}

// OK reports whether no run failed or errored.
func (r *TortureReport) OK() bool {
	for _, s := range r.Summary {
		if s.Failed > 0 || s.Errors > 0 {
			return false
		}
	}
	return true
}

// summarizeTorture counts the verdicts of one protocol's runs.
func summarizeTorture(p protocol.Protocol, runs []TortureRun) TortureSummary {
	s := TortureSummary{Protocol: p.Name(), Guarantee: p.Guarantee().String(), Runs: len(runs), ByNemesis: map[string]*NemesisCount{}}
	for _, r := range runs {
		if r.Err != "" {
			s.Errors++
			continue
		}
		nc := s.ByNemesis[r.Nemesis]
		if nc == nil {
			nc = &NemesisCount{}
			s.ByNemesis[r.Nemesis] = nc
		}
		nc.Runs++
		nc.FailedOps += r.Availability.Failed
		nc.EligibleOps += r.Availability.Eligible
		if !r.Availability.OK() {
			nc.Unavailable++
		}
		if r.Failed {
			nc.Failed++
		}
		switch r.Checker {
		case VerdictPass:
			s.Pass++
		case VerdictViolation:
			s.Violations++
		case VerdictCaught:
			s.Caught++
		}
		if !r.Converged {
			s.NotConverged++
		}
		if !r.Availability.OK() {
			s.Unavailable++
		}
		s.FailedOps += r.Availability.Failed
		s.EligibleOps += r.Availability.Eligible
		if r.Failed {
			s.Failed++
		}
	}
	return s
}
