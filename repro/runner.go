package repro

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// run is one simulated run of a report.
type run struct {
	protocol, workload string
	threads            int
	valueSize          int
	// delay is the congestion added in the middle third of the run (0:
	// none); congestion runs have a timeline.
	delay time.Duration
	res   *bench.Result
	// ops, when the spec asked for it, holds the run's operations after
	// its warm-up (opStats, fed by bench.SimSpec.OnDone).
	ops *opStats
	// file is the result JSON's path relative to Options.Dir.
	file string
}

// spec is what the runner is asked to simulate.
type spec struct {
	protocol string
	workload workload.Workload
	// topo, when set, replaces the runner's topology (a variant of it:
	// another replication factor).
	topo     *topology.Topology
	threads  int
	duration time.Duration
	faults   faults.Schedule
	timeline time.Duration
	delay    time.Duration
	rate     float64
	// collect keeps every operation the run measures in run.ops.
	collect bool
	// warmup is the run's bench.SimSpec.Warmup: the operations issued
	// before it run and are checked but are left out of its result and
	// of run.ops.
	warmup time.Duration
	// opsPerClient, when positive, is each session's fixed operation count
	// (bench.SimSpec.OpsPerClient); duration is then a cap.
	opsPerClient int
	// opTimeout is the sessions' operation timeout (0: 5 s).
	opTimeout time.Duration
	// label, when set, names the run's protocol in the report (a protocol
	// on a variant topology, e.g. "fawn-kv-3").
	label string
	// serviceTime, when positive, replaces Options.ServiceTime.
	serviceTime time.Duration
	// warmReads is the run's bench.SimSpec.WarmReads.
	warmReads int
}

// runner runs a report's simulations, numbers them for the progress
// line, writes each result's JSON under Dir/runs and keeps every run.
type runner struct {
	opts Options
	topo *topology.Topology
	// jitter is the one-way wide-area jitter of every run (0: the
	// topology's, negative: none).
	jitter time.Duration
	runs   []*run
	total  int
	done   int
	// simulate runs one spec (runner.sim; tests replace it).
	simulate func(spec) (*run, error)
}

func (k *runner) sim(s spec) (*run, error) {
	p, err := protocol.Lookup(s.protocol)
	if err != nil {
		return nil, err
	}
	if s.duration == 0 {
		s.duration = k.opts.Duration
	}
	topo := k.topo
	if s.topo != nil {
		topo = s.topo
	}
	if k.opts.Context != nil && k.opts.Context.Err() != nil {
		return nil, ErrInterrupted
	}
	k.done++
	name := s.protocol
	if s.label != "" {
		name = s.label
	}
	what := fmt.Sprintf("%s, %s, %d threads", name, s.workload.Name, s.threads)
	if s.rate > 0 {
		what += fmt.Sprintf(" at %g ops/s", s.rate)
	}
	if s.delay > 0 {
		what += fmt.Sprintf(", +%v in and out of %s", s.delay, congestedDC)
	}
	if s.opsPerClient > 0 {
		what += fmt.Sprintf(", %d ops each", s.opsPerClient)
	}
	if s.opTimeout <= 0 {
		s.opTimeout = 5 * time.Second
	}
	if s.serviceTime <= 0 {
		s.serviceTime = k.opts.ServiceTime
	} else if s.serviceTime != k.opts.ServiceTime {
		what += fmt.Sprintf(", %v per message", s.serviceTime)
	}
	if k.opts.Progress != nil {
		k.opts.Progress(k.done, k.total, what)
	}
	var ops *opStats
	var onDone func(string, protocol.Request, protocol.Reply, time.Duration, time.Duration)
	if s.collect {
		ops = newOpStats()
		onDone = ops.add
	}
	res, err := bench.RunSim(bench.SimSpec{Protocol: p, Topology: topo, Workload: s.workload, Seed: k.opts.Seed,
		Duration: s.duration, Clients: s.threads, ServiceTime: s.serviceTime, Cost: k.opts.Cost,
		Jitter: k.jitter, OpTimeout: s.opTimeout, Faults: s.faults, Timeline: s.timeline,
		ClientRate: s.rate, OpsPerClient: s.opsPerClient, Progress: k.opts.RunProgress, Context: k.opts.Context, OnDone: onDone,
		Warmup: s.warmup, WarmReads: s.warmReads})
	if err != nil {
		return nil, fmt.Errorf("%s %s %d threads: %w", name, s.workload.Name, s.threads, err)
	}
	r := &run{protocol: name, workload: s.workload.Name, threads: s.threads, valueSize: s.workload.ValueSize,
		delay: s.delay, res: res, ops: ops}
	if err := k.save(r); err != nil {
		return nil, err
	}
	k.runs = append(k.runs, r)
	if k.opts.RunDone != nil {
		k.opts.RunDone(what, res, filepath.Join(k.opts.Dir, r.file))
	}
	if res.Interrupted {
		return nil, ErrInterrupted
	}
	return r, nil
}

// throughput is the run's successful operations per second after its
// warm-up (bench.Result.ThroughputOpsS).
func (r *run) throughput() float64 { return r.res.ThroughputOpsS }

// save writes r's result JSON under Dir/runs, named after its place in
// the reproduction and what it ran, and notes the file in r.
func (k *runner) save(r *run) error {
	// A workload's variants show in its name ("ycsb-95-5@1KB").
	wl := strings.NewReplacer("@", "-", "+", "-", "/", "-").Replace(r.workload)
	name := fmt.Sprintf("%02d-%s-%s-%dt", len(k.runs)+1, r.protocol, wl, r.threads)
	if r.delay > 0 {
		name += "-delay" + r.delay.String()
	}
	r.file = filepath.Join(RunsDir, name+".json")
	f, err := os.Create(filepath.Join(k.opts.Dir, r.file))
	if err != nil {
		return err
	}
	if err := r.res.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// simNamed runs a named workload for the default duration.
func (k *runner) simNamed(proto, wl string, threads int) (*run, error) {
	w, err := workload.Lookup(wl)
	if err != nil {
		return nil, err
	}
	return k.simulate(spec{protocol: proto, workload: w, threads: threads})
}

func (k *runner) find(proto, wl string, threads int) *run {
	for _, r := range k.runs {
		if r.protocol == proto && r.workload == wl && r.threads == threads && r.delay == 0 {
			return r
		}
	}
	return nil
}

// checkSummary is the report's verdict line over every run.
func (k *runner) checkSummary(p printer) {
	failed := 0
	for _, r := range k.runs {
		if !r.res.Check.OK {
			failed++
		}
	}
	if failed == 0 {
		p.f("**Every one of the %d runs below passed the causal+ checker, and its replicas converged.**\n\n", len(k.runs))
	} else {
		p.f("**%d of the %d runs FAILED the causal+ checker** (see the check columns).\n\n", failed, len(k.runs))
	}
}

// writeRuns lists every run with its result JSON (RunsDir), which
// 'causeway compare' reads.
func (k *runner) writeRuns(p printer) {
	p.f("<a id=\"runs\"></a>\n## Runs\n\nEach run's result JSON, in the order run; `causeway compare %s/A.json %s/B.json` "+
		"puts any of them side by side.\n\n| run | protocol | workload | threads | ops/s | check |\n|---|---|---|---|---|---|\n",
		RunsDir, RunsDir)
	for _, r := range k.runs {
		p.f("| [%s](%s) | %s | %s | %d | %.0f | %s |\n", strings.TrimSuffix(filepath.Base(r.file), ".json"), filepath.ToSlash(r.file),
			r.protocol, r.workload, r.threads, r.res.ThroughputOpsS, r.res.Check.Verdict())
	}
	p.f("\n")
}
