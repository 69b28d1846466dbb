// Package repro reproduces the evaluations of the papers Causeway
// implements, in the simulator, and writes a report that puts the paper's
// number beside ours for each figure. Every run in a report is checked for
// causal+ consistency, and the report says so.
package repro

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
	_ "github.com/causeway/causeway/protocol/all" // the report runs every protocol it names
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// Options configure a reproduction.
type Options struct {
	// Dir receives report.md.
	Dir string
	// Duration is the virtual time of each run (default 3s).
	Duration time.Duration
	// Threads are the client-thread counts of the saturation sweep
	// (default 64, 256, 512, 1024: §5 raises threads until throughput
	// stops rising).
	Threads []int
	// Seed of every run.
	Seed uint64
	// Progress, when set, is told about each run as it starts: run i of n.
	Progress func(i, n int, what string)
}

func (o Options) withDefaults() Options {
	if o.Duration <= 0 {
		o.Duration = 3 * time.Second
	}
	if len(o.Threads) == 0 {
		o.Threads = []int{64, 256, 512, 1024}
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// run is one simulated run of the report.
type run struct {
	protocol, workload string
	threads            int
	res                *bench.Result
}

// karmaRunner runs the report's simulations on karma-aws8.
type karmaRunner struct {
	opts  Options
	topo  *topology.Topology
	runs  []*run
	total int
	done  int
}

func (k *karmaRunner) sim(proto, wl string, threads int) (*run, error) {
	p, err := protocol.Lookup(proto)
	if err != nil {
		return nil, err
	}
	w, err := workload.Lookup(wl)
	if err != nil {
		return nil, err
	}
	k.done++
	if k.opts.Progress != nil {
		k.opts.Progress(k.done, k.total, fmt.Sprintf("%s, %s, %d threads", proto, wl, threads))
	}
	res, err := bench.RunSim(bench.SimSpec{Protocol: p, Topology: k.topo, Workload: w, Seed: k.opts.Seed,
		Duration: k.opts.Duration, Clients: threads, ServiceTime: 100 * time.Microsecond,
		Jitter: 20 * time.Millisecond, OpTimeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("%s %s %d threads: %w", proto, wl, threads, err)
	}
	r := &run{protocol: proto, workload: wl, threads: threads, res: res}
	k.runs = append(k.runs, r)
	return r, nil
}

// Karma reproduces karma.txt §6 (Figs. 7, 10, 11, 12) and writes
// Dir/report.md.
func Karma(opts Options) error {
	opts = opts.withDefaults()
	topo, err := topology.Preset("karma-aws8")
	if err != nil {
		return err
	}
	protos := []string{"cops", "karma", "karma-nc", "cops-pr"}
	mixes := []string{"ycsb-95-5", "ycsb-80-20", "ycsb-50-50"}
	k := &karmaRunner{opts: opts, topo: topo}
	k.total = len(protos)*len(opts.Threads) + 2*(len(mixes)-1) + 2

	// Fig. 7: saturation sweep at 95/5.
	sat := map[string]*run{}
	for _, p := range protos {
		for _, n := range opts.Threads {
			r, err := k.sim(p, "ycsb-95-5", n)
			if err != nil {
				return err
			}
			if best := sat[p]; best == nil || r.res.ThroughputOpsS > best.res.ThroughputOpsS {
				sat[p] = r
			}
		}
	}
	// Fig. 10: put/get mixes at Karma's saturation thread count.
	n := sat["karma"].threads
	mix := map[string]map[string]*run{"cops": {"ycsb-95-5": nil}, "karma": {"ycsb-95-5": nil}}
	for _, p := range []string{"cops", "karma"} {
		mix[p]["ycsb-95-5"] = k.find(p, "ycsb-95-5", n)
		for _, m := range mixes[1:] {
			r, err := k.sim(p, m, n)
			if err != nil {
				return err
			}
			mix[p][m] = r
		}
	}
	// Fig. 11: DRR fraction at about a third and two thirds of saturation.
	var drr []*run
	for _, f := range []int{3, 6} {
		threads := max(8, n*f/9) // 33 % and 66 % of the saturation threads
		r, err := k.sim("karma", "ycsb-95-5", threads)
		if err != nil {
			return err
		}
		drr = append(drr, r)
	}
	drr = append(drr, sat["karma"])

	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(opts.Dir, "report.md"))
	if err != nil {
		return err
	}
	defer f.Close()
	k.write(f, protos, sat, mixes, mix, drr)
	return f.Close()
}

func (k *karmaRunner) find(proto, wl string, threads int) *run {
	for _, r := range k.runs {
		if r.protocol == proto && r.workload == wl && r.threads == threads {
			return r
		}
	}
	return nil
}

func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%+.0f%%", 100*(a/b-1))
}

func metric(r *run, name string) float64 { return r.res.ProtocolMetrics[name] }

func (k *karmaRunner) write(w io.Writer, protos []string, sat map[string]*run, mixes []string, mix map[string]map[string]*run, drr []*run) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# Karma (karma.txt §6) reproduced in the simulator\n\n")
	p("Topology `karma-aws8` (8 DCs in 3 rings, RTTs of §5), ±20 ms WAN jitter, 100 µs service time per message per node, "+
		"%v of virtual time per run, seed %d. Closed-loop client threads spread over the DCs.\n\n", k.opts.Duration, k.opts.Seed)
	failed := 0
	for _, r := range k.runs {
		if !r.res.Check.OK {
			failed++
		}
	}
	if failed == 0 {
		p("**Every one of the %d runs below passed the causal+ checker, and its replicas converged.**\n\n", len(k.runs))
	} else {
		p("**%d of the %d runs FAILED the causal+ checker** (see the check column).\n\n", failed, len(k.runs))
	}

	p("## Fig. 7 — saturation throughput and get latency, 95/5\n\n")
	p("| protocol | threads | ops/s | get p50 ms | get p99 ms | local | check |\n|---|---|---|---|---|---|---|\n")
	for _, name := range protos {
		for _, n := range k.opts.Threads {
			r := k.find(name, "ycsb-95-5", n)
			p("| %s | %d | %.0f | %.1f | %.1f | %.2f | %s |\n", name, n, r.res.ThroughputOpsS,
				r.res.LatencyMs["get"].P50, r.res.LatencyMs["get"].P99, deref(r.res.LocalFraction), r.res.Check.Verdict())
		}
	}
	kr, pr := sat["karma"].res.ThroughputOpsS, sat["cops-pr"].res.ThroughputOpsS
	p("\n| claim | paper | ours |\n|---|---|---|\n")
	p("| Karma vs COPS-PR, saturation throughput | +43%% | %s |\n", ratio(kr, pr))
	p("| Karma-NC vs COPS-PR | similar | %s |\n", ratio(sat["karma-nc"].res.ThroughputOpsS, pr))
	p("| COPS-Ideal vs Karma | COPS-Ideal higher (all local) | %s |\n\n", ratio(sat["cops"].res.ThroughputOpsS, kr))

	p("## Fig. 10 — put/get mixes (Karma's saturation thread count)\n\n")
	p("| mix | COPS-Ideal ops/s | Karma ops/s | Karma vs COPS-Ideal | paper |\n|---|---|---|---|---|\n")
	paper := map[string]string{"ycsb-95-5": "COPS-Ideal higher", "ycsb-80-20": "within 13%", "ycsb-50-50": "+32%"}
	for _, m := range mixes {
		c, kk := mix["cops"][m].res.ThroughputOpsS, mix["karma"][m].res.ThroughputOpsS
		p("| %s | %.0f | %.0f | %s | %s |\n", strings.TrimPrefix(m, "ycsb-"), c, kk, ratio(kk, c), paper[m])
	}

	p("\n## Fig. 11 — accesses under a dynamic ring restriction (95/5)\n\n")
	p("| load (threads) | drr_fraction | paper |\n|---|---|---|\n")
	for _, r := range drr {
		p("| %d | %.3f | < 0.02 |\n", r.threads, metric(r, "drr_fraction"))
	}
	s := sat["karma"]
	p("\n## Fig. 12 — gets served in the DC (95/5, saturation)\n\n")
	p("| | paper | ours |\n|---|---|---|\n")
	p("| local fraction | ~0.77 | %.2f |\n", deref(s.res.LocalFraction))
	p("| cache hit fraction | — | %.3f |\n\n", metric(s, "cache_hit_fraction"))

	p("## Where and why we differ\n\n")
	p("- Writes take far longer to become stable here than the paper's 300–400 ms (visibility p50 %.0f ms at saturation), "+
		"so hot keys are nearly always in flight: readers are restricted and caches invalidated much more often. "+
		"Causes under study (docs/status.md): per-thread put-after chains across the WAN ring, cache invalidation "+
		"round trips to every caching DC before each acknowledgement, 10,000 zipfian keys instead of 500 million.\n", visP50(s))
	p("- Cache nodes are added beside the 8 storage nodes per DC; §5 took 2 of the 8.\n")
	p("- Closed-loop threads with no client overhead: a thread whose reads are local issues hundreds of operations per second, " +
		"more than the paper's YCSB threads.\n")
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func visP50(r *run) float64 {
	if r.res.VisibilityMs == nil {
		return 0
	}
	return r.res.VisibilityMs.P50
}
