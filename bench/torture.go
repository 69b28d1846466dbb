package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

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
	// ShrinkRuns bounds the simulations shrinking one failing or
	// unavailable run (0: DefaultShrinkRuns; negative: do not shrink).
	ShrinkRuns int
	// ShrinkUnavailable shrinks runs that only are unavailable too (by
	// their availability verdict); otherwise they are saved as they ran.
	// Off by default: unavailability is reported, not failed, and
	// protocols not claimed available (rad, c3) have many such runs, each
	// up to ShrinkRuns more simulations — in a 200-seed campaign of every
	// protocol they more than doubled its time.
	ShrinkUnavailable bool
	// Out, when set, is a directory where each failed or unavailable
	// run's shrunk schedule is saved with the command that replays it
	// (PROTOCOL-seedN.yaml).
	Out string
	// Context, when set, stops the campaign when it is done (Ctrl-C):
	// runs under way finish, no other starts, and the report holds the
	// runs that finished (TortureReport.Interrupted).
	Context context.Context
	// Progress, when set, sees each run as it finishes (in completion
	// order, from one goroutine at a time).
	Progress func(r TortureRun, done, total int)
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
	var stop <-chan struct{}
	if ts.Context != nil {
		stop = ts.Context.Done()
	}
	interrupted := false
dispatch:
	for i := 0; i < ts.Seeds; i++ {
		for p := range ts.Protocols {
			select { // a stop seen now is never raced by a free worker
			case <-stop:
				interrupted = true
				break dispatch
			default:
			}
			select {
			case jobs <- job{p, i}:
			case <-stop:
				interrupted = true
				break dispatch
			}
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
		Duration: durFlag(ts.Base.Duration), Seeds: ts.Seeds, Interrupted: interrupted}
	for i, p := range ts.Protocols {
		var ran []TortureRun
		for _, r := range runs[i*ts.Seeds : (i+1)*ts.Seeds] {
			if r.Protocol != "" { // an interrupted campaign skips the rest
				ran = append(ran, r)
			}
		}
		rep.Runs = append(rep.Runs, ran...)
		rep.Summary = append(rep.Summary, summarizeTorture(p, ran))
	}
	return rep, nil
}

// tortureOne runs, judges and (when it fails, or is unavailable and
// TortureSpec.ShrinkUnavailable asks) shrinks one run. A run that fails is
// shrunk by its failure; one that only is unavailable, by its
// availability verdict (ShrinkUnavailable).
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
	case !out.Failed && !out.Availability.OK() && ts.ShrinkUnavailable && ts.ShrinkRuns >= 0:
		out.Replay = shrinkUnavailableAndSave(ts, spec, res, out)
	case out.Failed || !out.Availability.OK():
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
	return unavailable(r.Availability)
}

// unavailable describes an availability verdict that failed.
func unavailable(a Availability) string {
	return fmt.Sprintf("unavailable: %d of %d reachable operations failed, first: %s", a.Failed, a.Eligible, a.Examples[0])
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
