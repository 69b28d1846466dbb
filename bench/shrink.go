package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
)

// Shrunk is what Shrink found: the smallest failing spec it reached, its
// result, and how many runs it took.
type Shrunk struct {
	Spec   SimSpec
	Result *Result
	// Runs counts the simulations Shrink ran, the original's included.
	Runs int
}

// DefaultShrinkRuns bounds Shrink's simulations when it is given no
// budget: enough for ddmin over a random schedule's dozen events and a
// few halvings of the duration and clients.
const DefaultShrinkRuns = 60

// Shrink reduces a failing run by delta debugging: first the fault
// schedule (ddmin over its events, a fault and the event that ends it —
// crash and restart of a target, partition and the heal that follows —
// kept or dropped together), then the duration (halved while the run
// still fails, events from the new end on dropped), then the number of
// clients (halved likewise). Every candidate is run in full with the same
// seed; fails says whether a result still shows the failure (for a checker
// failure: func(r *Result) bool { return !r.Check.OK }). Shrink stops
// after maxRuns simulations (0: DefaultShrinkRuns) with the smallest
// failing spec so far. It returns an error when spec does not fail.
//
// The shrunk run is not guaranteed to fail for the same reason: the
// seed's randomness is drawn anew, so a smaller schedule may fail another
// way. Its result says how.
func Shrink(spec SimSpec, fails func(*Result) bool, maxRuns int) (Shrunk, error) {
	return shrink(spec, &shrinker{fails: func(_ SimSpec, r *Result, _ []DoneOp) bool { return fails(r) }}, maxRuns)
}

// ShrinkOps is Shrink for a failure that a result alone does not show:
// fails sees each candidate run's spec (its schedule, duration and
// clients) and every operation it completed, with its error. An
// availability failure is one: which operations failed is judged against
// the candidate's own schedule (see ShrinkUnavailable).
func ShrinkOps(spec SimSpec, fails func(spec SimSpec, r *Result, ops []DoneOp) bool, maxRuns int) (Shrunk, error) {
	return shrink(spec, &shrinker{fails: fails, ops: true}, maxRuns)
}

// ShrinkUnavailable shrinks a run of protocol p in which operations
// failed although their client's DC and a replica of each key were
// reachable (JudgeAvailability, with grace after each fault): the
// smallest run it reaches still has such an operation under its own
// schedule. It returns that run's availability verdict beside it.
func ShrinkUnavailable(spec SimSpec, grace time.Duration, maxRuns int) (Shrunk, Availability, error) {
	p := spec.Protocol
	var last Availability
	got, err := ShrinkOps(spec, func(s SimSpec, _ *Result, ops []DoneOp) bool {
		a := JudgeAvailability(p, s.Topology, s.Faults, ops, grace)
		if a.OK() {
			return false
		}
		last = a // the shrinker keeps every candidate that fails: the last is the best
		return true
	}, maxRuns)
	return got, last, err
}

func shrink(spec SimSpec, sh *shrinker, maxRuns int) (Shrunk, error) {
	if maxRuns <= 0 {
		maxRuns = DefaultShrinkRuns
	}
	spec.History, spec.Progress, spec.OnDone = nil, nil, nil
	sh.maxRuns = maxRuns
	res, ops, err := sh.run(spec)
	if err != nil {
		return Shrunk{}, err
	}
	if !sh.fails(spec, res, ops) {
		return Shrunk{}, fmt.Errorf("bench: shrink: the run does not fail (seed %d)", spec.Seed)
	}
	sh.best, sh.bestRes = spec, res
	sh.faults()
	sh.duration()
	sh.clients()
	return Shrunk{Spec: sh.best, Result: sh.bestRes, Runs: sh.runs}, nil
}

type shrinker struct {
	fails func(SimSpec, *Result, []DoneOp) bool
	// ops: record every candidate's completed operations for fails.
	ops     bool
	maxRuns int
	runs    int
	best    SimSpec
	bestRes *Result
}

func (sh *shrinker) run(spec SimSpec) (*Result, []DoneOp, error) {
	sh.runs++
	var ops []DoneOp
	if sh.ops {
		spec.OnDone = func(dc string, req protocol.Request, rep protocol.Reply, start, end time.Duration) {
			ops = append(ops, doneOp(dc, req, rep, start, end))
		}
	}
	res, err := RunSim(spec)
	return res, ops, err
}

// try runs spec and keeps it as the best if it still fails.
func (sh *shrinker) try(spec SimSpec) bool {
	if sh.runs >= sh.maxRuns {
		return false
	}
	res, ops, err := sh.run(spec)
	if err != nil || !sh.fails(spec, res, ops) {
		return false
	}
	sh.best, sh.bestRes = spec, res
	return true
}

// faults runs ddmin (Zeller and Hildebrandt) over the schedule's units,
// then tries the run without any fault.
func (sh *shrinker) faults() {
	units := FaultUnits(sh.best.Faults)
	n := 2
	for len(units) >= 2 && sh.runs < sh.maxRuns {
		chunks := split(units, min(n, len(units)))
		reduced := false
		for i := 0; i < len(chunks) && !reduced; i++ {
			if sh.tryUnits(chunks[i]) {
				units, n, reduced = chunks[i], 2, true
			}
		}
		// With two chunks each complement is the other chunk, tried.
		for i := 0; i < len(chunks) && !reduced && len(chunks) > 2; i++ {
			if rest := complement(chunks, i); sh.tryUnits(rest) {
				units, n, reduced = rest, max(n-1, 2), true
			}
		}
		if reduced {
			continue
		}
		if n >= len(units) {
			break
		}
		n = min(2*n, len(units))
	}
	if len(sh.best.Faults) > 0 {
		sh.tryUnits(nil)
	}
}

func (sh *shrinker) tryUnits(units [][]faults.Event) bool {
	spec := sh.best
	spec.Faults = joinUnits(units)
	return sh.try(spec)
}

// FaultUnits groups a schedule into the units Shrink keeps or drops
// together: a crash with the next restart of the same target, a partition
// with the next heal of partitions (or of everything), and every other
// event alone. The events of a unit stay in schedule order.
func FaultUnits(s faults.Schedule) [][]faults.Event {
	used := make([]bool, len(s))
	var units [][]faults.Event
	for i, e := range s {
		if used[i] {
			continue
		}
		used[i] = true
		unit := []faults.Event{e}
		for j := i + 1; j < len(s); j++ {
			if used[j] {
				continue
			}
			f := s[j]
			if (e.Crash != "" && (f.Restart == e.Crash || f.Heal == "all")) ||
				((e.Partition != nil || e.PartitionOneway != nil) && (f.Heal == "partitions" || f.Heal == "all")) {
				if f.Heal != "all" {
					// A final heal: all ends every fault; it stays a unit
					// of its own.
					used[j] = true
					unit = append(unit, f)
				}
				break
			}
		}
		units = append(units, unit)
	}
	return units
}

func joinUnits(units [][]faults.Event) faults.Schedule {
	var s faults.Schedule
	for _, u := range units {
		s = append(s, u...)
	}
	// Back in time order (stable: equal times keep their order).
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].At < s[j-1].At; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

func split(units [][]faults.Event, n int) [][][]faults.Event {
	var out [][][]faults.Event
	for i := 0; i < n; i++ {
		lo, hi := i*len(units)/n, (i+1)*len(units)/n
		if lo < hi {
			out = append(out, units[lo:hi])
		}
	}
	return out
}

func complement(chunks [][][]faults.Event, skip int) [][]faults.Event {
	var out [][]faults.Event
	for i, c := range chunks {
		if i != skip {
			out = append(out, c...)
		}
	}
	return out
}

// minShrinkDuration is the shortest run Shrink tries.
const minShrinkDuration = 100 * time.Millisecond

// duration halves the run while it still fails, dropping the fault
// events at or after the new end (the run heals everything after its
// end anyway).
func (sh *shrinker) duration() {
	for sh.best.Duration/2 >= minShrinkDuration {
		spec := sh.best
		spec.Duration /= 2
		spec.Warmup = 0 // the warm-up changes no verdict, only metrics
		spec.Faults = nil
		for _, e := range sh.best.Faults {
			if e.At < spec.Duration {
				spec.Faults = append(spec.Faults, e)
			}
		}
		if !sh.try(spec) {
			return
		}
	}
}

// clients halves the clients while the run still fails.
func (sh *shrinker) clients() {
	for sh.best.Clients > 1 {
		spec := sh.best
		spec.Clients /= 2
		if !sh.try(spec) {
			return
		}
	}
}

// ReplayCommand is the causeway sim command line that runs spec again
// (its faults read from faultsFile, when it has any). Settings the CLI
// cannot express (a client rate, a timeline) are named after a '#'.
func ReplayCommand(spec SimSpec, faultsFile string) string {
	w := spec.Workload
	name, _, _ := strings.Cut(w.Name, "@")
	args := []string{"causeway", "sim",
		"--protocol", spec.Protocol.Name(), "--topology", spec.Topology.Name,
		"--workload", name, "--records", fmt.Sprint(w.RecordCount), "--value-size", fmt.Sprint(w.ValueSize),
		"--distribution", w.Distribution,
		"--seed", fmt.Sprint(spec.Seed), "--duration", durFlag(spec.Duration), "--clients", fmt.Sprint(spec.Clients),
		"--service-time", durFlag(spec.ServiceTime), "--op-timeout", durFlag(spec.OpTimeout)}
	switch {
	case spec.Jitter > 0:
		args = append(args, "--jitter", durFlag(spec.Jitter))
	case spec.Jitter < 0:
		args = append(args, "--jitter", "0") // none; the flag left out is the topology's
	}
	if w.ZipfConstant != 0 {
		args = append(args, "--zipf", strconv.FormatFloat(w.ZipfConstant, 'g', -1, 64))
	}
	if w.TxnKeys != 0 {
		args = append(args, "--txn-keys", strconv.Itoa(w.TxnKeys))
	}
	if w.LocalKeys {
		args = append(args, "--local-keys", "--remote-fraction", strconv.FormatFloat(w.RemoteFraction, 'g', -1, 64))
	}
	if spec.NoLoad {
		args = append(args, "--no-load")
	}
	if spec.ClientRate > 0 && spec.OpenLoop {
		// --target is divided over the clients.
		args = append(args, "--target", strconv.FormatFloat(spec.ClientRate*float64(spec.Clients), 'g', -1, 64))
	}
	if len(spec.Faults) > 0 {
		args = append(args, "--faults", faultsFile)
	}
	cmd := strings.Join(args, " ")
	var cannot []string
	if spec.Cost != nil {
		cannot = append(cannot, "a cost model (add the run's --cost)")
	}
	if spec.ClientRate > 0 && !spec.OpenLoop {
		cannot = append(cannot, fmt.Sprintf("paced client rate %g/s", spec.ClientRate))
	}
	if len(cannot) > 0 {
		cmd += " # not expressible: " + strings.Join(cannot, ", ")
	}
	return cmd
}

// durFlag renders a duration for a command line ("200us", not "200µs").
func durFlag(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return strings.ReplaceAll(d.String(), "µ", "u")
}
