package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// simFlags are the knobs shared by sim and demo.
type simFlags struct {
	protocol, topology, workload string
	duration                     time.Duration
	seed                         uint64
	clients                      int
	clientsPerDC                 int
	serviceTime                  time.Duration
	cost                         string
	opTimeout                    time.Duration
	jitter                       time.Duration
	faults                       string
	opsPerClient                 int
	warmup                       time.Duration
	warmReads                    int
	// replicationFactor, when positive, replaces the topology's
	// placement.replication_factor (K2's f: k2, paris, rad).
	replicationFactor int
	// cacheFraction, when positive, replaces the topology's
	// placement.cache_fraction (K2's DC cache as a share of the keys).
	cacheFraction float64
	wl            workloadFlags
	// flags are the command's, to tell a flag given as 0 from one left
	// out.
	flags *pflag.FlagSet
}

func (f *simFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&f.duration, "duration", f.duration, "virtual time during which clients issue operations (Go duration: 30s, 2m)")
	fl.Uint64Var(&f.seed, "seed", f.seed, "seed of the run: the same seed gives the same run, byte for byte")
	fl.IntVar(&f.clients, "clients", f.clients, "closed-loop client sessions in all (default: --clients-per-dc times the number of DCs)")
	fl.IntVar(&f.clientsPerDC, "clients-per-dc", f.clientsPerDC, "client sessions per datacenter when --clients is not given")
	fl.DurationVar(&f.serviceTime, "service-time", f.serviceTime, "time a server node spends on each message (0: infinitely fast servers)")
	fl.StringVar(&f.cost, "cost", "", "cost model pricing each input in units of --service-time by node role, message kind and bytes: 'default', 'simple' (or empty: every input costs --service-time) or a YAML file overriding the default")
	fl.DurationVar(&f.opTimeout, "op-timeout", f.opTimeout, "an operation that cannot complete within this returns an error")
	fl.DurationVar(&f.jitter, "jitter", f.jitter, "uniform one-way wide-area jitter bound (0: none; default: the topology's jitter_ms)")
	f.flags = fl
	fl.DurationVar(&f.warmup, "warmup", 0, "leave the operations issued in this first part of --duration out of the results (throughput, latency, metrics): they run and are checked, e.g. to warm K2's cache (k2.txt §VII-B)")
	fl.IntVar(&f.warmReads, "warm-reads", 0, "start as if this many read operations per DC had run first, with no write among them, and were not simulated: caches start as they would have left them (k2's LRU holds the loaded values of the most recently read keys; a fast warm-up for K2's cache, k2.txt §VII-B)")
	fl.StringVar(&f.faults, "faults", "", "fault schedule: a YAML (or JSON) file, e.g. a result's fault_schedule saved, or 'random' (drawn from the seed)")
	fl.IntVar(&f.opsPerClient, "ops-per-client", 0, "each client stops after this many operations, as YCSB's operationcount (c3.txt §5.2 fixes it); the run ends when all are done, --duration is then a cap (0: run for --duration)")
	f.wl.register(cmd)
	fl.BoolVar(&f.wl.noLoad, "no-load", false, "skip the load phase: keys start absent instead of holding the workload's loaded values")
}

// spec resolves names into a bench.SimSpec.
func (f *simFlags) spec() (bench.SimSpec, error) {
	p, err := protocol.Lookup(f.protocol)
	if err != nil {
		return bench.SimSpec{}, err
	}
	t, err := topology.Lookup(f.topology)
	if err != nil {
		return bench.SimSpec{}, err
	}
	if rf := f.replicationFactor; rf != 0 {
		if rf < 1 || rf > len(t.Datacenters) {
			return bench.SimSpec{}, fmt.Errorf("--replication-factor %d: want 1 to the %d datacenters of %s", rf, len(t.Datacenters), t.Name)
		}
		t.Placement.ReplicationFactor = rf
	}
	if cf := f.cacheFraction; cf != 0 {
		if !(cf > 0 && cf <= 1) {
			return bench.SimSpec{}, fmt.Errorf("--cache-fraction %v: want a share of the keys in (0, 1]", cf)
		}
		t.Placement.CacheFraction = cf
	}
	w, err := workload.Lookup(f.workload)
	if err != nil {
		return bench.SimSpec{}, err
	}
	if w, err = f.wl.apply(w); err != nil {
		return bench.SimSpec{}, err
	}
	if f.warmReads < 0 || (f.warmReads > 0 && f.wl.noLoad) {
		return bench.SimSpec{}, fmt.Errorf("--warm-reads %d: want 0 or more, and the load phase (not --no-load)", f.warmReads)
	}
	if f.opsPerClient < 0 {
		return bench.SimSpec{}, fmt.Errorf("--ops-per-client %d: must be positive (0: run for --duration)", f.opsPerClient)
	}
	clients := f.clients
	if clients <= 0 {
		clients = f.clientsPerDC * len(t.Datacenters)
	}
	jitter := f.jitter
	if jitter == 0 && f.flags != nil && f.flags.Changed("jitter") {
		jitter = -1 // --jitter 0: none (sim.Config's 0 is the topology's)
	}
	spec := bench.SimSpec{Protocol: p, Topology: t, Workload: w, Seed: f.seed, Duration: f.duration,
		Clients: clients, ServiceTime: f.serviceTime, Jitter: jitter, OpTimeout: f.opTimeout, NoLoad: f.wl.noLoad,
		ClientRate: f.wl.clientRate(clients), OpenLoop: f.wl.target > 0, OpsPerClient: f.opsPerClient, Warmup: f.warmup,
		WarmReads: f.warmReads}
	if spec.Cost, err = sim.LoadCostModel(f.cost); err != nil {
		return bench.SimSpec{}, err
	}
	switch f.faults {
	case "":
	case "random":
		spec.Faults = faults.Random(sim.NewRand(f.seed, "fault-schedule"), t, p.Nodes(t), f.duration)
	default:
		spec.Faults, err = faults.Load(f.faults, t)
		if err != nil {
			return bench.SimSpec{}, err
		}
	}
	return spec, nil
}

func defaultSimFlags() simFlags {
	return simFlags{protocol: "cops", topology: "karma-aws8", workload: "ycsb-95-5",
		duration: 30 * time.Second, seed: 1, clientsPerDC: 8, serviceTime: 100 * time.Microsecond,
		opTimeout: 5 * time.Second}
}

func simCmd() *cobra.Command {
	f := defaultSimFlags()
	var out, historyPath string
	var output *string
	var jsonOut, perDC, byKind bool
	var sh shrinkFlags
	var pf progressFlags
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Run one protocol on a topology and workload in the deterministic simulator",
		Long: `Sim runs closed-loop clients of a workload against a protocol on a topology in
the discrete-event simulator (virtual time), records the history, checks it
for causal+ consistency and prints a summary table.

The result JSON (--out, --json) carries the run's fault schedule as
"fault_schedule" in the faults-file format: saved to a file (e.g. with
jq .fault_schedule r.json > f.json) it replays a --faults random run with
--faults f.json and the same seed.

With --shrink, a run that fails the checker (or its convergence or
quiescence checks) is shrunk by delta debugging: fault events are dropped
(a crash with its restart, a partition with its heal), then the duration
and the clients halved, while the run still fails. The smallest failing
schedule is written to --shrink-out and the command that replays it is
printed.

Progress (a bar with the time left, and with --status-interval go-ycsb's
status lines) goes to stderr when it is a terminal or with --progress; it is
driven by the simulator's virtual time and changes nothing in the result.
Ctrl-C stops the clients at the next step, lets the run drain and be
checked, prints the summary so far (marked interrupted) and writes a
complete history; a second Ctrl-C aborts at once (no history file is left
then: it is written under a temporary name and renamed when complete).

Exit status: 0 when the run completed and, for a protocol that claims
causal+ consistency, the checker found nothing; 1 when such a protocol
failed the checker; 2 on bad arguments; 130 when interrupted (and checked).

Examples:
  causeway sim --protocol cops --topology karma-aws8 --workload ycsb-95-5 --duration 30s --seed 7 --faults random --out r.json --history h.jsonl
  causeway sim --protocol eventual --topology local3 --duration 3s --seed 2 --faults random --shrink --shrink-out shrunk.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, err := f.spec()
			if err != nil {
				return &exitError{2, err}
			}
			if err := pf.validate("sim"); err != nil {
				return err
			}
			warnLateFaults(cmd.ErrOrStderr(), "sim", spec)
			if historyPath != "" {
				hf, err := createPending(historyPath)
				if err != nil {
					return &exitError{2, err}
				}
				defer hf.discard()
				spec.History = hf
			}
			ctx, stop := interruptContext(cmd.Context(), cmd.ErrOrStderr(), "sim")
			defer stop()
			spec.Context = ctx
			spec.Progress = pf.reporter(cmd.ErrOrStderr(), spec.Protocol.Name())
			spec.WANByKind = byKind
			res, err := bench.RunSim(spec)
			if err != nil {
				return &exitError{2, err}
			}
			if hf, ok := spec.History.(*pendingFile); ok {
				if err := hf.commit(); err != nil {
					return failuref("sim: --history: %v", err)
				}
			}
			if out != "" {
				if err := writeJSONFile(out, res); err != nil {
					return &exitError{2, err}
				}
			}
			w := cmd.OutOrStdout()
			if jsonOut || *output == outputJSON {
				if err := res.WriteJSON(w); err != nil {
					return err
				}
			} else {
				if err := writeResultTables(w, []*bench.Result{res}); err != nil {
					return err
				}
				if perDC {
					fmt.Fprintln(w)
					if err := bench.WriteDCTable(w, res); err != nil {
						return err
					}
				}
				if byKind {
					fmt.Fprintln(w)
					if err := bench.WriteKindTable(w, res); err != nil {
						return err
					}
				}
				printVerdicts(w, []*bench.Result{res})
			}
			if sh.enabled && !res.Interrupted {
				if err := sh.shrink(w, spec, res); err != nil {
					return &exitError{2, err}
				}
			}
			if !res.Check.OK && spec.Protocol.Guarantee() == protocol.CausalPlus {
				return &exitError{1, fmt.Errorf("%s claims causal+ consistency but failed the checker (seed %d)", res.Protocol, res.Seed)}
			}
			return interrupted("sim", res)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.protocol, "protocol", f.protocol, "protocol to run (see 'causeway protocols')")
	fl.StringVar(&f.topology, "topology", f.topology, "topology preset or YAML file (see 'causeway topologies')")
	fl.StringVar(&f.workload, "workload", f.workload, "workload (see 'causeway workloads')")
	fl.Float64Var(&f.cacheFraction, "cache-fraction", 0, "K2's per-DC cache as a share of the keys (k2; k2.txt §VII-B: 0.05, Fig. 9 also 0.01 and 0.15), replacing the topology's placement.cache_fraction (0: the topology's, else 0.05)")
	fl.IntVar(&f.replicationFactor, "replication-factor", 0, "DCs storing each key's value (K2's f; k2, paris, rad), replacing the topology's placement.replication_factor (0: the topology's)")
	fl.StringVar(&out, "out", "", "write the result JSON to this file")
	fl.BoolVar(&perDC, "per-dc", false, "also print one line per datacenter (its sessions' operations, its writes' visibility); the JSON always has them under per_dc")
	fl.BoolVar(&byKind, "wan-by-kind", false, "also count the messages delivered between DCs by kind and print their bytes per message, per put and per operation (in the JSON under wan_by_kind)")
	fl.StringVar(&historyPath, "history", "", "write the history (JSON Lines) to this file; check it with 'causeway check'")
	fl.BoolVar(&jsonOut, "json", false, "print the result JSON instead of the table (the same as -w json)")
	output = addOutputFlag(cmd)
	f.register(cmd)
	sh.register(cmd)
	pf.register(cmd)
	return cmd
}

// writeResultTables prints the summary table, then the latency
// distributions (min to p999) and the protocols' own metrics.
func writeResultTables(w io.Writer, results []*bench.Result) error {
	if err := bench.WriteTable(w, results); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := bench.WriteLatencyTable(w, results); err != nil {
		return err
	}
	var withMetrics bool
	for _, r := range results {
		withMetrics = withMetrics || len(r.ProtocolMetrics) > 0
	}
	if withMetrics {
		fmt.Fprintln(w)
		if err := bench.WriteMetricsTable(w, results); err != nil {
			return err
		}
	}
	for _, r := range results {
		if r.Interrupted {
			fmt.Fprintf(w, "\n%s: interrupted after %.1fs: these figures and the history cover the run until then.\n", r.Protocol, r.DurationS)
		}
	}
	return nil
}

// interrupted is the exit error of a run that Ctrl-C stopped early (exit
// status 130), nil for a run that ran its full length.
func interrupted(cmdName string, res *bench.Result) error {
	if !res.Interrupted {
		return nil
	}
	return &exitError{exitInterrupted, fmt.Errorf("%s: interrupted after %.1fs: the summary and history cover the run until then", cmdName, res.DurationS)}
}

func writeJSONFile(path string, res *bench.Result) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := res.WriteJSON(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// printVerdicts explains, for each result, what the checker concluded.
func printVerdicts(w io.Writer, results []*bench.Result) {
	for _, r := range results {
		fmt.Fprintln(w)
		switch {
		case r.Check.OK && r.Check.Converged != nil:
			fmt.Fprintf(w, "%s (claims %s): checker passed %d operations; replicas converged.\n", r.Protocol, r.Guarantee, r.Check.Operations)
		case r.Check.OK:
			fmt.Fprintf(w, "%s (claims %s): checker passed %d operations.\n", r.Protocol, r.Guarantee, r.Check.Operations)
		default:
			fmt.Fprintf(w, "%s (claims %s): checker found %d violations in %d operations. First:\n  %s\n",
				r.Protocol, r.Guarantee, r.Check.Total, r.Check.Operations, indent(r.Check.FirstViolation()))
		}
	}
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

var errNoProtocols = errors.New("no protocols given")

// costFlag is the --cost argument of a replay command ("" when unset).
func costFlag(cost string) string {
	if cost == "" {
		return ""
	}
	return "--cost " + cost + " "
}
