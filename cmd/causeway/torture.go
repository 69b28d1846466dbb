package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/workload"
)

// tortureFlags are torture's own options beside the simulator's.
type tortureFlags struct {
	protocols  string
	seeds      int
	nemesis    string
	out        string
	workers    int
	shrinkRuns int
	// shrinkUnavailable shrinks runs that are only unavailable too.
	shrinkUnavailable bool
	// availability, when set, is where to write the availability page.
	availability string
	// requireCaught fails the campaign when a protocol that does not
	// claim causal+ was never caught (CI: the checker still bites).
	requireCaught bool
}

func tortureCmd() *cobra.Command {
	f := defaultSimFlags()
	// Short runs on few, hot keys: contention finds ordering bugs, and
	// a thousand seeds per protocol fit in an hour on two cores. A 2s
	// operation timeout leaves Karma's ring failover (a get resent after
	// 500ms, then another ring's round trip) time to answer; with 1s,
	// gets under a zone partition or congestion timed out.
	f.protocol, f.topology, f.duration, f.clientsPerDC, f.opTimeout = "", "local3", 5*time.Second, 2, 2*time.Second
	// Plain reads and writes, and get-transactions (karma.txt §4.5;
	// protocols without them answer unsupported, which is no failure).
	f.workload = "ycsb-95-5,read-txn"
	tf := tortureFlags{protocols: "all", seeds: 20, nemesis: "all", shrinkRuns: 30}
	var output *string
	cmd := &cobra.Command{
		Use:   "torture",
		Short: "Run protocols over many seeds under the nemesis catalogue's faults and judge every run",
		Long: `Torture runs each protocol over --seeds seeds in the simulator. Each run gets
a fault schedule drawn from the seed by one nemesis of the catalogue
(--nemesis; the nemesis is drawn from the seed too) over the protocol's
own nodes, zones and rings, and a workload of --workload (drawn from the
seed as well; by default plain YCSB or get-transactions, on 100 hot
keys). Each run is judged three ways:

  checker       the history is causal+ (pass), or not: a violation for a
                protocol that claims causal+, "caught" for eventual (the
                checker doing its job, not a failure)
  convergence   after the schedule heals (it always does, by 70% of
                --duration), replicas agree and every node's invariants at
                quiescence hold
  availability  operations that failed although their client's DC and, for
                each key, a replica were reachable: up, not cut off from the
                client's DC, without loss or added delay, for the
                operation's whole life and the grace after a fault ends
                (--op-timeout + 1s). Unsupported operations do not count.

A run fails when a causal protocol violates causal+ or does not converge.
A failed run is shrunk (fault events, duration, clients; at most
--shrink-runs simulations) and, with --out, its smallest failing schedule
is saved as DIR/PROTOCOL-seedN.yaml, headed by the command that replays
it. Unavailability is reported, not failed: which protocol should stay
available under which fault is the papers' claim, not a rule for all. An
unavailable run is saved as it ran; with --shrink-unavailable it is
shrunk the same way first, down to the smallest run in which an
operation still fails although its DC and replicas were reachable under
that run's own schedule. The JSON
breaks each protocol's runs down by nemesis (by_nemesis).

--availability writes docs/availability.md (or the file given): a table of
each protocol's availability class under each nemesis (available: no
reachable operation failed; degraded: at most 1% did; unavailable: more),
with the failed and reachable operations, and the papers' availability
claims (karma.txt §4.4 Claims 1 and 2, COPS-PR's static binding, full
replication) judged on the same runs. A contradicted claim fails the
command (exit 1) after the page is written. Give a --duration long enough
for faults to outlast --op-timeout (a fault lasts 10% to 40% of the first
70% of the run: 1 to 4 s of a 15s run): a client that waits out a shorter
fault is answered, and every protocol looks available.

Runs go on GOMAXPROCS workers (--workers); every run depends only on its
protocol and seed, so the report is the same whatever the parallelism.
Progress goes to stderr; the summary table (or -w json, for CI) to stdout.

Nemeses:` + nemesisList() + `

Ctrl-C stops the campaign: runs under way finish, no other starts, and
the summary covers those that finished (exit status 130 when none
failed).

Exit status: 0 when no run failed; 1 when one did (or, with
--require-caught, when a canary protocol (eventual) was never caught, or with --availability
when a claim is contradicted); 2 on bad arguments;
130 when interrupted.

Examples:
  causeway torture --protocol all --seeds 20
  causeway torture --protocol cops,karma --seeds 200 --nemesis isolate-dc,crash-node --out torture-out -w json
  causeway torture --protocol all --seeds 60 --duration 15s --availability
  causeway torture --protocol karma --topology karma-aws8 --workload read-txn --seeds 50 --duration 10s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := validateOutput("torture", *output); err != nil {
				return err
			}
			ts, err := tf.spec(&f)
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			start := time.Now()
			ctx, stop := interruptContext(cmd.Context(), stderr, "torture")
			defer stop()
			ts.Context = ctx
			ts.Progress = tortureProgress(stderr)
			fmt.Fprintf(stderr, "torture: %d protocols × %d seeds on %s, %s, %v each, %d nemeses\n",
				len(ts.Protocols), ts.Seeds, ts.Base.Topology.Name, workloadNames(ts.Workloads), ts.Base.Duration, len(ts.Nemeses))
			rep, err := bench.Torture(ts)
			if err != nil {
				return failuref("torture: %v", err)
			}
			fmt.Fprintf(stderr, "torture: %d runs in %s\n", len(rep.Runs), time.Since(start).Round(time.Second))
			w := cmd.OutOrStdout()
			if *output == outputJSON {
				if err := writeJSON(w, rep); err != nil {
					return err
				}
			} else if err := writeTortureTable(w, rep); err != nil {
				return err
			}
			if !rep.OK() {
				return failuref("torture: runs failed (see the replays above)")
			}
			if tf.requireCaught && !rep.Interrupted {
				if err := requireCaught(ts, rep); err != nil {
					return err
				}
			}
			if tf.availability != "" && !rep.Interrupted {
				if err := writeAvailability(tf.availability, rep, ts, tortureCommand(cmd)); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "torture: availability table written to %s\n", tf.availability)
			}
			if rep.Interrupted {
				return &exitError{exitInterrupted, fmt.Errorf("torture: interrupted after %d runs: the summary covers them", len(rep.Runs))}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&tf.protocols, "protocol", tf.protocols, "protocols to torture: 'all' or a comma-separated list (see 'causeway protocols')")
	fl.IntVar(&tf.seeds, "seeds", tf.seeds, "runs per protocol")
	fl.StringVar(&tf.nemesis, "nemesis", tf.nemesis, "nemeses to draw from: 'all' or a comma-separated list of: "+strings.Join(faults.NemesisNames(), ", "))
	fl.StringVar(&tf.out, "out", "", "directory to save each failed run's shrunk schedule and replay command in")
	fl.StringVar(&tf.availability, "availability", "", "write the availability table per protocol and nemesis, and the papers' claims judged on these runs, to this file (alone: docs/availability.md); exit 1 when a claim is contradicted")
	fl.Lookup("availability").NoOptDefVal = "docs/availability.md"
	fl.BoolVar(&tf.requireCaught, "require-caught", false, "exit 1 when a canary protocol (eventual: one that breaks causal+ in ordinary runs) is never caught by the checker: the check that the checker still finds violations (CI)")
	fl.IntVar(&tf.workers, "workers", 0, "simulations run at once (0: GOMAXPROCS)")
	fl.IntVar(&tf.shrinkRuns, "shrink-runs", tf.shrinkRuns, "at most this many simulations shrinking one failed or unavailable run (0: do not shrink)")
	fl.BoolVar(&tf.shrinkUnavailable, "shrink-unavailable", false, "shrink runs that are only unavailable too (each up to --shrink-runs more simulations), not just failed ones")
	fl.StringVar(&f.topology, "topology", f.topology, "topology preset or YAML file (see 'causeway topologies')")
	fl.StringVar(&f.workload, "workload", f.workload, "workloads, comma-separated: each run draws one from its seed (see 'causeway workloads')")
	f.register(cmd)
	_ = fl.MarkHidden("faults") // the nemesis draws every schedule
	fl.Lookup("seed").Usage = "first seed: each protocol runs seeds --seed, --seed+1, … (--seeds of them)"
	fl.Lookup("records").Usage = "number of keys (few: hot keys, contention)"
	f.wl.records, fl.Lookup("records").DefValue = 100, "100" // register set it to 0
	output = addOutputFlag(cmd)
	// --protocol and --workload take lists ("all" too), checked in spec;
	// 0 workers is GOMAXPROCS, 0 shrink runs no shrinking.
	selfChecked(fl, "protocol", "workload")
	allowZero(fl, "workers", "shrink-runs")
	return cmd
}

// nemesisList is the catalogue as help text.
func nemesisList() string {
	var b strings.Builder
	for _, n := range faults.Nemeses() {
		fmt.Fprintf(&b, "\n  %-15s %s", n.Name, n.Summary)
	}
	return b.String()
}

// spec resolves the flags into a campaign.
func (tf *tortureFlags) spec(f *simFlags) (bench.TortureSpec, error) {
	if tf.seeds <= 0 {
		return bench.TortureSpec{}, usageErrorf("torture: --seeds %d: must be positive", tf.seeds)
	}
	if tf.workers < 0 {
		return bench.TortureSpec{}, usageErrorf("torture: --workers %d: must not be negative", tf.workers)
	}
	if f.faults != "" {
		return bench.TortureSpec{}, usageErrorf("torture: --faults: the nemesis draws each run's schedule (see --nemesis)")
	}
	if f.duration <= 0 {
		return bench.TortureSpec{}, usageErrorf("torture: --duration %v: must be positive", f.duration)
	}
	names := protocol.Names()
	if tf.protocols != "all" {
		if err := checkProtocols(tf.protocols); err != nil {
			return bench.TortureSpec{}, usageErrorf("torture: --protocol %q: %v", tf.protocols, err)
		}
		names = splitList(tf.protocols)
	}
	var ps []protocol.Protocol
	for _, n := range names {
		p, err := protocol.Lookup(n)
		if err != nil {
			return bench.TortureSpec{}, usageErrorf("torture: --protocol: %v", err)
		}
		ps = append(ps, p)
	}
	f.protocol = names[0]
	var wls []workload.Workload
	var base bench.SimSpec
	for _, w := range splitList(f.workload) {
		if _, err := workload.Lookup(w); err != nil {
			return bench.TortureSpec{}, usageErrorf("torture: --workload %q: %v", w, err)
		}
		f.workload = w
		spec, err := f.spec()
		if err != nil {
			return bench.TortureSpec{}, usageErrorf("torture: %v", err)
		}
		base = spec
		wls = append(wls, spec.Workload)
	}
	if len(wls) == 0 {
		return bench.TortureSpec{}, usageErrorf("torture: --workload: no workload given")
	}
	kept := ps[:0]
	for _, p := range ps {
		if err := p.Validate(base.Topology); err != nil {
			if tf.protocols != "all" {
				return bench.TortureSpec{}, usageErrorf("torture: --protocol %s: %v", p.Name(), err)
			}
			continue // all: the protocols that run on this topology
		}
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		return bench.TortureSpec{}, usageErrorf("torture: no protocol runs on topology %s", base.Topology.Name)
	}
	ns := faults.Nemeses()
	if tf.nemesis != "all" {
		ns = nil
		for _, n := range splitList(tf.nemesis) {
			nm, err := faults.LookupNemesis(n)
			if err != nil {
				return bench.TortureSpec{}, usageErrorf("torture: --nemesis: %v", err)
			}
			ns = append(ns, nm)
		}
		if len(ns) == 0 {
			return bench.TortureSpec{}, usageErrorf("torture: --nemesis: no nemesis given")
		}
	}
	shrink := tf.shrinkRuns
	if shrink <= 0 {
		shrink = -1
	}
	return bench.TortureSpec{Protocols: kept, Base: base, Workloads: wls, FirstSeed: f.seed, Seeds: tf.seeds, Nemeses: ns,
		Workers: tf.workers, ShrinkRuns: shrink, ShrinkUnavailable: tf.shrinkUnavailable, Out: tf.out}, nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// tortureProgress reports on w every failed, errored or unavailable run
// as it finishes, and a count every 5% of the runs.
func tortureProgress(w io.Writer) func(bench.TortureRun, int, int) {
	step := 1
	return func(r bench.TortureRun, done, total int) {
		if step == 1 {
			step = max(1, total/20)
		}
		switch {
		case r.Err != "":
			fmt.Fprintf(w, "[%d/%d] %s seed %d (%s): error: %s\n", done, total, r.Protocol, r.Seed, r.Nemesis, r.Err)
		case r.Failed:
			fmt.Fprintf(w, "[%d/%d] %s seed %d (%s): FAILED: checker %s, converged %v: %s\n", done, total, r.Protocol, r.Seed, r.Nemesis,
				r.Checker, r.Converged, oneLine(r.FirstViolation))
			if r.Replay != nil {
				fmt.Fprintf(w, "    shrunk to %d fault events (from %d); replay: %s\n", r.Replay.Events, r.Replay.FromEvents, r.Replay.Command)
			}
		case !r.Availability.OK():
			fmt.Fprintf(w, "[%d/%d] %s seed %d (%s): %d of %d reachable operations failed, e.g. %s\n", done, total, r.Protocol, r.Seed, r.Nemesis,
				r.Availability.Failed, r.Availability.Eligible, r.Availability.Examples[0])
		case done%step == 0 || done == total:
			fmt.Fprintf(w, "[%d/%d]\n", done, total)
		}
	}
}

func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// writeTortureTable prints the summary (protocol × verdict counts) and
// every failed run's replay.
func writeTortureTable(w io.Writer, rep *bench.TortureReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "protocol\tclaims\truns\tchecker pass\tviolations\tcaught\tnot converged\tunavailable runs\tfailed ops / reachable\tfailed\terrors")
	for _, s := range rep.Summary {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d / %d\t%d\t%d\n", s.Protocol, s.Guarantee, s.Runs, s.Pass, s.Violations,
			s.Caught, s.NotConverged, s.Unavailable, s.FailedOps, s.EligibleOps, s.Failed, s.Errors)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.Runs {
		switch {
		case r.Failed:
			fmt.Fprintf(w, "\n%s seed %d (%s) failed: %s\n", r.Protocol, r.Seed, r.Nemesis, firstOf(r))
		case !r.Availability.OK():
			fmt.Fprintf(w, "\n%s seed %d (%s) unavailable: %d of %d reachable operations failed, first: %s\n", r.Protocol, r.Seed, r.Nemesis,
				r.Availability.Failed, r.Availability.Eligible, r.Availability.Examples[0])
		default:
			continue
		}
		if r.Replay != nil {
			if r.Replay.File != "" {
				fmt.Fprintf(w, "  schedule: %s (%d events, from %d)\n", r.Replay.File, r.Replay.Events, r.Replay.FromEvents)
			}
			fmt.Fprintf(w, "  replay: %s\n", r.Replay.Command)
		}
	}
	return nil
}

func firstOf(r bench.TortureRun) string {
	if r.Err != "" {
		return r.Err
	}
	return indent(r.FirstViolation)
}

// workloadNames joins the names of ws with commas.
func workloadNames(ws []workload.Workload) string {
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.Name
	}
	return strings.Join(names, ",")
}
