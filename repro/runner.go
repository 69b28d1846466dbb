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

// runner runs a reproduction's simulations on one topology, announcing,
// saving and keeping each run; each paper's runner embeds it.
type runner struct {
	opts Options
	topo *topology.Topology
	// jitter is every run's one-way jitter (0: 20 ms; negative: none).
	jitter time.Duration
	runs   []*run
	total  int
	done   int
}

// spec is what the runner is asked to simulate.
type spec struct {
	protocol string
	workload workload.Workload
	threads  int
	duration time.Duration
	faults   faults.Schedule
	timeline time.Duration
	delay    time.Duration
	rate     float64
	// opsPerClient, when positive, is each session's fixed operation count
	// (bench.SimSpec.OpsPerClient); duration is then a cap.
	opsPerClient int
	// opTimeout is the sessions' operation timeout (0: 5 s).
	opTimeout time.Duration
	// topo, when set, replaces the runner's topology; label, when set,
	// names the run's protocol in the report (a protocol on a variant
	// topology, e.g. "fawn-kv-3").
	topo  *topology.Topology
	label string
}

// sim runs s: it announces the run (Options.Progress), saves its result
// JSON and keeps it.
func (k *runner) sim(s spec) (*run, error) {
	p, err := protocol.Lookup(s.protocol)
	if err != nil {
		return nil, err
	}
	if s.duration == 0 {
		s.duration = k.opts.Duration
	}
	if k.opts.Context != nil && k.opts.Context.Err() != nil {
		return nil, ErrInterrupted
	}
	k.done++
	name, topo, jitter := s.protocol, k.topo, 20*time.Millisecond
	if s.label != "" {
		name = s.label
	}
	if s.topo != nil {
		topo = s.topo
	}
	if k.jitter != 0 {
		jitter = max(k.jitter, 0)
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
	if k.opts.Progress != nil {
		k.opts.Progress(k.done, k.total, what)
	}
	if s.opTimeout <= 0 {
		s.opTimeout = 5 * time.Second
	}
	res, err := bench.RunSim(bench.SimSpec{Protocol: p, Topology: topo, Workload: s.workload, Seed: k.opts.Seed,
		Duration: s.duration, Clients: s.threads, ServiceTime: k.opts.ServiceTime, Cost: k.opts.Cost,
		Jitter: jitter, OpTimeout: s.opTimeout, Faults: s.faults, Timeline: s.timeline,
		ClientRate: s.rate, OpsPerClient: s.opsPerClient, Progress: k.opts.RunProgress, Context: k.opts.Context})
	if err != nil {
		return nil, fmt.Errorf("%s %s %d threads: %w", name, s.workload.Name, s.threads, err)
	}
	r := &run{protocol: name, workload: s.workload.Name, threads: s.threads, valueSize: s.workload.ValueSize,
		delay: s.delay, res: res}
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
