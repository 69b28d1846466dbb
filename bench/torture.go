package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/workload"
)

// TortureSpec is a torture campaign: every protocol of Protocols over
// Seeds seeds, each run under a schedule drawn by one nemesis of Nemeses.
type TortureSpec struct {
	// Protocols are the protocols to torture, in report order.
	Protocols []protocol.Protocol
	// Base is every run's spec but for Protocol, Seed and Faults (its
	// Topology, Workload, Duration, Clients, OpTimeout, ...).
	Base SimSpec
	// Workloads, when set, replace Base.Workload: each run draws one of
	// them from its seed (a workload with get-transactions beside a plain
	// one, say).
	Workloads []workload.Workload
	// FirstSeed and Seeds: runs use seeds FirstSeed, FirstSeed+1, ...
	FirstSeed uint64
	Seeds     int
	// Nemeses are drawn from, one per run (by the run's seed); those that
	// do not apply to a protocol (faults.Nemesis.Applies) are skipped for
	// it.
	Nemeses []faults.Nemesis
	// Workers run that many simulations at once (0: GOMAXPROCS). Results
	// do not depend on it.
	Workers int
	// ShrinkRuns bounds the simulations shrinking one failing run (0:
	// DefaultShrinkRuns; negative: do not shrink).
	ShrinkRuns int
	// Out, when set, is a directory where each failed run's shrunk
	// schedule, and each unavailable run's schedule, is saved with the
	// command that replays it (PROTOCOL-seedN.yaml).
	Out string
	// Progress, when set, sees each run as it finishes (in completion
	// order, from one goroutine at a time).
	Progress func(r TortureRun, done, total int)
}

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
	Topology string           `json:"topology"`
	Workload string           `json:"workload"`
	Records  int              `json:"records"`
	Duration string           `json:"duration"`
	Seeds    int              `json:"seeds"`
	Summary  []TortureSummary `json:"summary"`
	Runs     []TortureRun     `json:"runs"`
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

// PickNemesis draws the nemesis for protocol p's run with seed from those
// of ns that apply to it, and the schedule it draws, each from its own
// stream of the seed (so adding a protocol or reordering the list of
// protocols changes no other run). ok is false when none applies.
func PickNemesis(ns []faults.Nemesis, p protocol.Protocol, spec SimSpec, seed uint64) (faults.Nemesis, faults.Schedule, bool) {
	nodes := p.Nodes(spec.Topology)
	var apply []faults.Nemesis
	for _, n := range ns {
		if n.Applies(spec.Topology, nodes) {
			apply = append(apply, n)
		}
	}
	if len(apply) == 0 {
		return faults.Nemesis{}, nil, false
	}
	n := apply[sim.NewRand(seed, "torture/nemesis/"+p.Name()).IntN(len(apply))]
	return n, n.Draw(sim.NewRand(seed, "torture/faults/"+p.Name()), spec.Topology, nodes, spec.Duration), true
}

// Torture runs the campaign: every protocol × seed on a pool of workers,
// each run judged (checker, convergence, availability) and, when it
// fails, shrunk and saved. The report does not depend on Workers.
func Torture(ts TortureSpec) (*TortureReport, error) {
	if ts.Seeds <= 0 {
		return nil, fmt.Errorf("bench: torture needs at least one seed")
	}
	if len(ts.Nemeses) == 0 {
		ts.Nemeses = faults.Nemeses()
	}
	if ts.Out != "" {
		if err := os.MkdirAll(ts.Out, 0o755); err != nil {
			return nil, err
		}
	}
	workers := ts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct{ p, i int }
	total := len(ts.Protocols) * ts.Seeds
	runs := make([]TortureRun, total)
	jobs := make(chan job)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := tortureOne(ts, ts.Protocols[j.p], ts.FirstSeed+uint64(j.i))
				mu.Lock()
				runs[j.p*ts.Seeds+j.i] = r
				done++
				if ts.Progress != nil {
					ts.Progress(r, done, total)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < ts.Seeds; i++ {
		for p := range ts.Protocols {
			jobs <- job{p, i}
		}
	}
	close(jobs)
	wg.Wait()
	names := []string{ts.Base.Workload.Name}
	if len(ts.Workloads) > 0 {
		names = names[:0]
		for _, w := range ts.Workloads {
			names = append(names, w.Name)
		}
	}
	rep := &TortureReport{Topology: ts.Base.Topology.Name, Workload: strings.Join(names, ","), Records: ts.Base.Workload.RecordCount,
		Duration: durFlag(ts.Base.Duration), Seeds: ts.Seeds, Runs: runs}
	for i, p := range ts.Protocols {
		rep.Summary = append(rep.Summary, summarizeTorture(p, runs[i*ts.Seeds:(i+1)*ts.Seeds]))
	}
	return rep, nil
}

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

// tortureOne runs, judges and (when it fails) shrinks one run.
func tortureOne(ts TortureSpec, p protocol.Protocol, seed uint64) (out TortureRun) {
	out = TortureRun{Protocol: p.Name(), Seed: seed}
	defer func() {
		if e := recover(); e != nil {
			out.Err = fmt.Sprint("panic: ", e)
			out.Failed = true
		}
	}()
	spec := ts.Base
	spec.Protocol, spec.Seed, spec.History, spec.Progress = p, seed, nil, nil
	if len(ts.Workloads) > 0 {
		spec.Workload = ts.Workloads[sim.NewRand(seed, "torture/workload/"+p.Name()).IntN(len(ts.Workloads))]
	}
	out.Workload = spec.Workload.Name
	n, sched, ok := PickNemesis(ts.Nemeses, p, spec, seed)
	if !ok {
		out.Err = "no nemesis of the list applies to this protocol and topology"
		return out
	}
	out.Nemesis, out.Faults = n.Name, sched
	spec.Faults = sched
	var ops []DoneOp
	spec.OnDone = func(dc string, req protocol.Request, rep protocol.Reply, start, end time.Duration) {
		ops = append(ops, doneOp(dc, req, rep, start, end))
	}
	res, err := RunSim(spec)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Ops = res.Ops
	v := judge(p, res)
	out.Checker, out.Violations, out.FirstViolation, out.Converged = v.checker, v.violations, v.first, v.converged
	out.Availability = JudgeAvailability(p, spec.Topology, sched, ops, availabilityGrace(spec))
	out.Failed = v.failed()
	spec.OnDone = nil
	switch {
	case out.Failed && ts.ShrinkRuns >= 0:
		out.Replay = shrinkAndSave(ts, spec, res, func(r *Result) bool { return judge(p, r).failed() })
	case out.Failed || !out.Availability.OK():
		// Unavailability is not shrunk (the shrinker judges results, and
		// availability needs each operation's error): saved as it ran.
		out.Replay = save(ts, spec, Shrunk{Spec: spec, Result: res, Runs: 1}, availabilityFailure(out))
	}
	return out
}

// availabilityFailure describes an unavailable run, or a failed one that
// was not shrunk.
func availabilityFailure(r TortureRun) string {
	if r.Failed {
		return r.FirstViolation
	}
	return fmt.Sprintf("unavailable: %d of %d reachable operations failed, first: %s", r.Availability.Failed, r.Availability.Eligible, r.Availability.Examples[0])
}

// availabilityGrace is how long after a fault ends a failed operation is
// still excused: the operation timeout (a client already waiting when
// the fault ended may wait it out) plus a second for retransmissions.
func availabilityGrace(spec SimSpec) time.Duration {
	t := spec.OpTimeout
	if t <= 0 {
		t = 5 * time.Second
	}
	return t + time.Second
}

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

// shrinkAndSave shrinks a failing run and saves the shrunk schedule in
// ts.Out, headed by the command that replays it.
func shrinkAndSave(ts TortureSpec, spec SimSpec, res *Result, fails func(*Result) bool) *TortureReplay {
	got, err := Shrink(spec, fails, ts.ShrinkRuns)
	if err != nil {
		got = Shrunk{Spec: spec, Result: res, Runs: 1}
	}
	return save(ts, spec, got, got.Result.Check.FirstViolation())
}

// save writes got's schedule in ts.Out (when set), headed by the command
// that replays it, and describes it; spec is the run before shrinking.
func save(ts TortureSpec, spec SimSpec, got Shrunk, failure string) *TortureReplay {
	s := got.Spec
	rp := &TortureReplay{Events: len(s.Faults), FromEvents: len(spec.Faults), Failure: failure, Spec: s}
	file := ""
	if ts.Out != "" {
		file = filepath.Join(ts.Out, fmt.Sprintf("%s-seed%d.yaml", spec.Protocol.Name(), spec.Seed))
	}
	rp.Command = ReplayCommand(s, file)
	if file == "" {
		return rp
	}
	data, err := yaml.Marshal(s.Faults)
	if err != nil {
		rp.Failure += fmt.Sprintf(" (saving the schedule: %v)", err)
		return rp
	}
	how := fmt.Sprintf("shrunk in %d runs from %d fault events to %d", got.Runs, len(spec.Faults), len(s.Faults))
	if got.Runs <= 1 {
		how = fmt.Sprintf("as it ran (not shrunk), %d fault events", len(s.Faults))
	}
	head := fmt.Sprintf("# causeway torture: %s seed %d, %s.\n# failure: %s\n# replay: %s\n",
		spec.Protocol.Name(), spec.Seed, how, oneLine(rp.Failure), rp.Command)
	if len(s.Faults) == 0 {
		data = []byte("[]\n")
	}
	if err := os.WriteFile(file, append([]byte(head), data...), 0o644); err != nil {
		rp.Failure += fmt.Sprintf(" (saving the schedule: %v)", err)
		return rp
	}
	rp.File = file
	return rp
}

// oneLine keeps the first line of s.
func oneLine(s string) string {
	if i := slices.Index([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
