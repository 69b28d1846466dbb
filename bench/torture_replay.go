package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"gopkg.in/yaml.v3"
)

// shrinkAndSave shrinks a failing run and saves the shrunk schedule in
// ts.Out, headed by the command that replays it.
func shrinkAndSave(ts TortureSpec, spec SimSpec, res *Result, fails func(*Result) bool) *TortureReplay {
	got, err := Shrink(spec, fails, ts.ShrinkRuns)
	if err != nil {
		got = Shrunk{Spec: spec, Result: res, Runs: 1}
	}
	return save(ts, spec, got, got.Result.Check.FirstViolation())
}

// shrinkUnavailableAndSave shrinks an unavailable run (ShrinkUnavailable)
// and saves the shrunk schedule like a failed run's; the failure it names
// is the shrunk run's unavailability.
func shrinkUnavailableAndSave(ts TortureSpec, spec SimSpec, res *Result, r TortureRun) *TortureReplay {
	got, a, err := ShrinkUnavailable(spec, availabilityGrace(spec), ts.ShrinkRuns)
	if err != nil {
		return save(ts, spec, Shrunk{Spec: spec, Result: res, Runs: 1}, availabilityFailure(r))
	}
	return save(ts, spec, got, unavailable(a))
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
	if file == "" {
		rp.Command = ReplayCommand(s, "schedule.yaml")
		if len(s.Faults) > 0 {
			rp.Command += " # schedule.yaml: the run's fault_schedule in -w json (or run torture with --out)"
		}
		return rp
	}
	rp.Command = ReplayCommand(s, file)
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
