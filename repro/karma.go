// Package repro reproduces the evaluations of the papers Causeway
// implements, in the simulator, and writes a report that puts the paper's
// number beside ours for each figure, with plots. Every run in a report is
// checked for causal+ consistency, and the report says so.
package repro

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/causeway/causeway/bench"
	_ "github.com/causeway/causeway/protocol/all" // the report runs every protocol it names
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// Options configure a reproduction.
type Options struct {
	// Dir receives report.md and the plots (PNG and SVG per figure).
	Dir string
	// Duration is the virtual time of each run but the congestion runs
	// (default 3s; K2: K2Duration).
	Duration time.Duration
	// Threads are the client-thread counts of the saturation sweep. Empty
	// (the default) does what §5 did, "increased till the system
	// saturates": from SweepStart threads, double while throughput rises by
	// at least SaturationGain, up to SweepMax threads. K2: the client
	// counts of Fig. 9's sweep (empty: from Clients, doubling up to
	// K2SweepMax).
	Threads []int
	// ServiceTime is each server's cost per message (default 2ms; K2:
	// K2ServiceTime): the larger it is, the fewer threads saturate the
	// servers.
	ServiceTime time.Duration
	// Cost, when set, prices messages in units of ServiceTime
	// (sim.CostModel); nil: every message costs ServiceTime.
	Cost *sim.CostModel
	// Seed of every run.
	Seed uint64
	// CongestionDuration is the virtual time of each run of Figs. 8 and 9
	// (default 30s); the congestion covers its middle third (the paper
	// congests Europe for 120 s).
	CongestionDuration time.Duration
	// CongestionThreads is the client-thread count of those runs
	// (default 256).
	CongestionThreads int
	// CongestionRate caps each thread of those runs at that many
	// operations per second (default 5; see bench.SimSpec.ClientRate), so
	// that every DC's threads issue operations at the same pace: in a
	// closed loop without pause, the threads of Brazil's one-DC ring, whose
	// gets are all local, would complete most operations and hide the
	// congestion.
	CongestionRate float64
	// CongestionDelays are the delays added to every message into or out
	// of Europe, one run per protocol each (default 300ms, 600ms, 1.2s).
	CongestionDelays []time.Duration
	// ValueSizes are the object sizes of §6.5 in bytes (default 200,
	// 1024, 4096).
	ValueSizes []int
	// Scale divides c3.txt §5.2's clients and operations (repro c3;
	// default DefaultC3Scale): 1,800 … 12,600 clients and 900,000
	// operations per run become 18 … 126 and 9,000 at 100, so that each
	// client runs as many operations as the paper's.
	Scale int
	// Clients, when set, replaces repro c3's scaled client counts.
	Clients []int
	// Warmup is the start of each run whose operations a report drops
	// (K2: default K2Warmup; k2.txt §VII-B drops its runs' first
	// minutes while the caches warm).
	Warmup time.Duration
	// LatencyClients is the closed-loop client count of the K2 latency runs and
	// the first of its throughput sweep (default K2Clients); Threads, when
	// set, are the sweep's counts.
	LatencyClients int
	// Records is the K2 workloads' key count (default K2Records).
	Records int
	// WarmReads is the reads per DC whose cache state each K2 run starts
	// in (bench.SimSpec.WarmReads; default K2WarmReadsPer100k per 100,000
	// Records; negative: none, the caches start empty).
	WarmReads int
	// PeakServiceTime is each server's cost per message in K2's Fig. 9
	// runs (default K2PeakServiceTime).
	PeakServiceTime time.Duration
	// PeakDuration is the virtual time of each K2 Fig. 9 run, the first
	// half dropped (default K2PeakDuration).
	PeakDuration time.Duration
	// Progress, when set, is told about each run as it starts: run i of n.
	Progress func(i, n int, what string)
	// RunProgress, when set, is told how far the current run's virtual
	// time has got.
	RunProgress func(bench.Progress)
	// RunDone, when set, is told about each run as it completes, with the
	// file its result JSON was written to (Dir/runs/…json).
	RunDone func(what string, res *bench.Result, file string)
	// Context, when set, interrupts the reproduction when it is done
	// (Ctrl-C): the run under way stops early and is kept (its JSON says
	// "interrupted"), no further run starts, no report is written, and
	// Karma returns ErrInterrupted.
	Context context.Context
}

// ErrInterrupted is returned by Karma when Options.Context ended it.
var ErrInterrupted = errors.New("repro: interrupted")

// RunsDir is the subdirectory of Options.Dir holding each run's result
// JSON, named after the run (e.g. 07-karma-ycsb-95-5-512t.json).
const RunsDir = "runs"

func (o Options) withDefaults() Options {
	if o.Duration <= 0 {
		o.Duration = 3 * time.Second
	}
	if o.ServiceTime <= 0 {
		o.ServiceTime = 2 * time.Millisecond
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.CongestionDuration <= 0 {
		o.CongestionDuration = 30 * time.Second
	}
	if o.CongestionThreads <= 0 {
		o.CongestionThreads = 256
	}
	if o.CongestionRate <= 0 {
		o.CongestionRate = 5
	}
	if len(o.CongestionDelays) == 0 {
		o.CongestionDelays = []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond}
	}
	if len(o.ValueSizes) == 0 {
		o.ValueSizes = []int{200, 1024, 4096}
	}
	return o
}

// The adaptive saturation sweep (Options.Threads empty): start, largest
// thread count, and the least rise in throughput per doubling that counts
// as not yet saturated.
const (
	SweepStart     = 256
	SweepMax       = 4096
	SaturationGain = 0.10
)

// The DC that the congestion experiment of §6.2 congests.
const congestedDC = "europe"

// timelineBuckets is about how many intervals a congestion run's timeline
// has (exactly when the duration is a whole number of milliseconds times
// it).
const timelineBuckets = 30

// karmaRunner runs the report's simulations on karma-aws8 and keeps what
// each figure needs.
type karmaRunner struct {
	runner

	protos []string
	mixes  []string
	// sat is each protocol's run with the highest throughput of the sweep,
	// and sweep the thread counts it tried.
	sat   map[string]*run
	sweep map[string][]int
	// mix holds the Fig. 10 runs by protocol and mix.
	mix map[string]map[string]*run
	// drr holds Karma at a third, two thirds and all of its saturation
	// threads (95/5).
	drr []*run
	// cong holds the congestion runs (Figs. 8, 9).
	cong *congestion
	// sizes holds the §6.5 runs by protocol and value size.
	sizes map[string]map[int]*run
}

// Karma reproduces karma.txt §6 (Figs. 7–12, the cost analysis of §6.4
// and the object sizes of §6.5) and writes Dir/report.md and the plots.
func Karma(opts Options) error {
	_, err := karma(opts)
	return err
}

// karma runs the reproduction and returns the runner with every run.
func karma(opts Options) (*karmaRunner, error) {
	opts = opts.withDefaults()
	topo, err := topology.Preset("karma-aws8")
	if err != nil {
		return nil, err
	}
	if !topo.HasDC(congestedDC) {
		return nil, fmt.Errorf("repro: karma-aws8 has no DC %q to congest", congestedDC)
	}
	k := &karmaRunner{runner: runner{opts: opts, topo: topo, jitter: 20 * time.Millisecond},
		protos: []string{"cops", "karma", "karma-nc", "cops-pr"},
		mixes:  []string{"ycsb-95-5", "ycsb-80-20", "ycsb-50-50"}}
	k.simulate = k.sim
	newSizes := 0
	for _, s := range opts.ValueSizes {
		if s != workload.DefaultValueSize {
			newSizes++
		}
	}
	if !k.perByteCost() {
		newSizes = 0 // §6.5 is not run: see writeObjectSize
	}
	k.total = len(k.protos)*len(k.sweepPlan()) + // Fig. 7 (at most)
		3*(len(k.mixes)-1) + // Fig. 10
		2 + // Fig. 11
		2*(1+len(opts.CongestionDelays)) + // Figs. 8, 9
		2*newSizes // §6.5

	if err := os.MkdirAll(filepath.Join(opts.Dir, RunsDir), 0o755); err != nil {
		return nil, err
	}
	if err := k.saturation(); err != nil {
		return nil, err
	}
	if err := k.breakdownRuns(); err != nil {
		return nil, err
	}
	if err := k.mixesAndLoads(); err != nil {
		return nil, err
	}
	if err := k.congestion(); err != nil {
		return nil, err
	}
	if err := k.objectSizes(); err != nil {
		return nil, err
	}

	plots, err := k.plots()
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(opts.Dir, "report.md"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	k.write(f, plots)
	return k, f.Close()
}

// sweepPlan is the thread counts the sweep may try: Options.Threads, or
// the doublings from SweepStart to SweepMax.
func (k *karmaRunner) sweepPlan() []int {
	if len(k.opts.Threads) > 0 {
		return slices.Sorted(slices.Values(k.opts.Threads))
	}
	var plan []int
	for n := SweepStart; n <= SweepMax; n *= 2 {
		plan = append(plan, n)
	}
	return plan
}

// saturation is Fig. 7's sweep at 95/5 for every protocol; the best
// throughput is the protocol's saturation point. Without Options.Threads
// a protocol's sweep stops once doubling the threads raised its
// throughput by less than SaturationGain.
func (k *karmaRunner) saturation() error {
	k.sat, k.sweep = map[string]*run{}, map[string][]int{}
	adaptive := len(k.opts.Threads) == 0
	plan := k.sweepPlan()
	for _, p := range k.protos {
		var prev *run
		for i, n := range plan {
			r, err := k.simNamed(p, "ycsb-95-5", n)
			if err != nil {
				return err
			}
			k.sweep[p] = append(k.sweep[p], n)
			if best := k.sat[p]; best == nil || r.res.ThroughputOpsS > best.res.ThroughputOpsS {
				k.sat[p] = r
			}
			if adaptive && prev != nil && r.res.ThroughputOpsS < (1+SaturationGain)*prev.res.ThroughputOpsS {
				k.total -= len(plan) - i - 1 // the runs this sweep skips
				break
			}
			prev = r
		}
	}
	return nil
}

// breakdownProtos are the protocols whose visibility Fig. 7's breakdown
// follows at every thread count of the sweep plan.
var breakdownProtos = []string{"karma", "cops-pr", "cops"}

// breakdownRuns runs breakdownProtos at the thread counts of the sweep
// plan their own sweep stopped below (COPS saturates first), so that the
// visibility breakdown covers every count.
func (k *karmaRunner) breakdownRuns() error {
	for _, p := range breakdownProtos {
		for _, n := range k.sweepPlan() {
			if k.find(p, "ycsb-95-5", n) != nil {
				continue
			}
			k.total++
			if _, err := k.simNamed(p, "ycsb-95-5", n); err != nil {
				return err
			}
		}
	}
	return nil
}

// mixesAndLoads runs Fig. 10's put/get mixes at Karma's saturation thread
// count, and Fig. 11's lower loads.
func (k *karmaRunner) mixesAndLoads() error {
	n := k.sat["karma"].threads
	k.mix = map[string]map[string]*run{}
	for _, p := range []string{"cops", "karma", "cops-pr"} {
		base := k.find(p, "ycsb-95-5", n)
		if base == nil {
			// p's own sweep stopped below Karma's saturation threads.
			k.total++
			var err error
			if base, err = k.simNamed(p, "ycsb-95-5", n); err != nil {
				return err
			}
		}
		k.mix[p] = map[string]*run{"ycsb-95-5": base}
		for _, m := range k.mixes[1:] {
			r, err := k.simNamed(p, m, n)
			if err != nil {
				return err
			}
			k.mix[p][m] = r
		}
	}
	for _, f := range []int{3, 6} {
		threads := max(8, n*f/9) // 33 % and 66 % of the saturation threads
		r, err := k.simNamed("karma", "ycsb-95-5", threads)
		if err != nil {
			return err
		}
		k.drr = append(k.drr, r)
	}
	k.drr = append(k.drr, k.sat["karma"])
	return nil
}

// objectSizes runs §6.5: Karma and COPS-PR at Karma's saturation thread
// count with each value size (the default size reuses Fig. 7's runs).
func (k *karmaRunner) objectSizes() error {
	if !k.perByteCost() {
		return nil
	}
	n := k.sat["karma"].threads
	base, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		return err
	}
	k.sizes = map[string]map[int]*run{}
	for _, p := range []string{"karma", "cops-pr"} {
		k.sizes[p] = map[int]*run{}
		for _, size := range k.opts.ValueSizes {
			if size == base.ValueSize {
				k.sizes[p][size] = k.find(p, "ycsb-95-5", n)
				continue
			}
			r, err := k.sim(spec{protocol: p, workload: base.WithValueSize(size), threads: n})
			if err != nil {
				return err
			}
			k.sizes[p][size] = r
		}
	}
	return nil
}

// perByteCost reports whether the cost model charges time per payload
// byte. Without it, an object's size changes no run's throughput (a
// message's delay and service time do not depend on its size), so §6.5's
// runs could not show an effect and are not run.
func (k *karmaRunner) perByteCost() bool { return k.opts.Cost != nil && k.opts.Cost.PerKB > 0 }
