package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/cluster/nemesis"
	"github.com/causeway/causeway/protocol"
)

func nemesisCmd() *cobra.Command {
	var dir, schedulePath, wl, historyPath string
	var clients, writers, keys int
	var seed uint64
	var quiesce, tail, opTimeout time.Duration
	var writerRate float64
	var dockerProject, dockerNetwork, dockerSocket string
	var wf workloadFlags
	cmd := &cobra.Command{
		Use:   "nemesis --cluster DIR [--schedule FILE]",
		Short: "Fault a live cluster by a schedule under a checked workload, then read back every acknowledged write",
		Long: `Nemesis runs a fault schedule against the live cluster in DIR (started
with 'causeway cluster up'): kill -9, SIGSTOP/SIGCONT, restarts, partitions
and heals, added delay, clock skew (docs/formats/nemesis.md). Meanwhile a
closed-loop bench of --workload records a history, and ack-log writers
(--writers per DC, each the only writer of --keys keys, at most
--writer-rate puts a second each) put grow-only sets.
After the schedule and --tail, every fault is healed (killed nodes
restarted, paused ones resumed, links and clock offsets reset); then the
bench's history is checked, and every ack-log key is read from every DC
until each read holds every acknowledged put to it, for at most --quiesce.

With --docker-project the cluster is Docker Compose's (deploy/compose.yaml;
DIR holds its cluster.yaml) and every fault is a Docker operation: docker
kill, start, pause, unpause, network disconnect and connect (a partition
cuts a DC off the network, from its clients too); schedules with added
delay, clock skew or partial partitions are refused. A restarted node is
waited for at /healthz as 'causeway cluster status' polls it (with tls:
HTTPS, presenting the admin certificate of certs_dir). 'make docker-nemesis'
runs it in a container on the cluster's network with the Docker socket and
the cluster's certificates.

Without --schedule the built-in schedule runs (about 20 s on local3: every
fault kind at least once; 'causeway nemesis --print-schedule' shows it).

Exit status: 0 when no acknowledged write was lost, every read returned a
value the workload wrote, the cluster healed and (for a protocol that
claims causal+) the history passed the checker; 1 otherwise, or when the
cluster cannot be reached; 2 on bad arguments or a bad schedule.

Example:
  causeway cluster up --dir /tmp/c1 --topology local3 --protocol karma
  causeway nemesis --cluster /tmp/c1 --history h.jsonl
  causeway cluster down --dir /tmp/c1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if p, _ := cmd.Flags().GetBool("print-schedule"); p {
				_, err := io.WriteString(cmd.OutOrStdout(), nemesis.DefaultSchedule)
				return err
			}
			out := cmd.Flag("write-out").Value.String()
			if err := validateOutput("nemesis", out); err != nil {
				return err
			}
			records := wf.records
			if records == 0 {
				records = 1000 // the nemesis's default: few keys would mean more contention
			}
			cfg, w, err := clusterWorkload(dir, wl, records)
			if err != nil {
				return usageErrorf("nemesis: %v", err)
			}
			if w, err = wf.apply(w); err != nil {
				return usageErrorf("nemesis: %v", err)
			}
			if clients < 0 || writers < 1 || keys < 1 || writerRate < 0 {
				return usageErrorf("nemesis: --clients and --writer-rate must be at least 0, --writers and --keys at least 1")
			}
			var sched nemesis.Schedule
			if schedulePath == "" {
				sched, err = nemesis.Parse([]byte(nemesis.DefaultSchedule), cfg)
				if err != nil {
					return usageErrorf("nemesis: the built-in schedule does not fit the cluster in %s (it is written for local3): %v; give --schedule", dir, err)
				}
			} else if sched, err = nemesis.Load(schedulePath, cfg); err != nil {
				return usageErrorf("nemesis: %v", err)
			}
			clusterDir := dir
			if filepath.Base(dir) == cluster.FileName {
				clusterDir = filepath.Dir(dir)
			}
			exe, err := os.Executable()
			if err != nil {
				return failuref("nemesis: %v", err)
			}
			var target nemesis.Target = &nemesis.Local{Dir: clusterDir, Config: cfg, Command: []string{exe, "server", "--admin"}}
			if dockerProject != "" {
				d := &nemesis.Docker{Config: cfg, Project: dockerProject, Network: dockerNetwork, Socket: dockerSocket}
				if err := d.Check(sched); err != nil {
					return usageErrorf("nemesis: --docker-project: %v", err)
				}
				target = d
			}
			spec := nemesis.Spec{Config: cfg, Schedule: sched, Workload: w, Clients: clients, Seed: seed,
				OpTimeout: opTimeout, Tail: tail, Writers: writers, Keys: keys, WriterRate: writerRate, Quiesce: quiesce,
				Target: target}
			if historyPath != "" {
				hf, err := os.Create(historyPath)
				if err != nil {
					return usageErrorf("nemesis: --history: %v", err)
				}
				defer hf.Close()
				spec.History = hf
			}
			stderr := cmd.ErrOrStderr()
			spec.Log = func(format string, args ...any) { fmt.Fprintf(stderr, "nemesis: "+format+"\n", args...) }
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			rep, err := nemesis.Run(ctx, spec)
			if err != nil {
				return failuref("nemesis: %v", err)
			}
			p, _ := protocol.Lookup(cfg.Protocol)
			causal := p != nil && p.Guarantee() == protocol.CausalPlus
			o := cmd.OutOrStdout()
			if out == outputJSON {
				if err := writeJSON(o, struct {
					*nemesis.Report
					OK bool `json:"ok"`
				}{rep, rep.OK(causal)}); err != nil {
					return err
				}
			} else {
				printNemesis(o, rep)
			}
			if !rep.OK(causal) {
				return failuref("nemesis: %s failed the live nemesis (%d acknowledged writes lost, %d bad reads, checker ok %v, heal error %q)",
					cfg.Protocol, len(rep.Lost), len(rep.Bad), rep.Bench == nil || rep.Bench.Check.OK, rep.HealErr)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "cluster", "", "cluster directory (or cluster.yaml) written by 'causeway cluster up' (required)")
	fl.StringVar(&schedulePath, "schedule", "", "the fault schedule, YAML (default: the built-in one for local3)")
	fl.Bool("print-schedule", false, "print the built-in schedule and exit")
	fl.StringVar(&wl, "workload", "ycsb-50-50", "the background bench's workload (see 'causeway workloads')")
	fl.IntVar(&clients, "clients", 6, "closed-loop bench sessions, spread over the DCs (0: no bench, only the ack log)")
	fl.Uint64Var(&seed, "seed", 1, "seed of the bench's workload generators")
	fl.IntVar(&writers, "writers", 1, "ack-log writer sessions per DC")
	fl.IntVar(&keys, "keys", 4, "keys per ack-log writer")
	fl.Float64Var(&writerRate, "writer-rate", 20, "at most this many puts per second per ack-log writer (0: as fast as acknowledged; see the package doc of cluster/nemesis)")
	fl.DurationVar(&tail, "tail", 3*time.Second, "how long the workloads go on after the schedule's last event")
	fl.DurationVar(&quiesce, "quiesce", 60*time.Second, "how long every DC may take, after the heal, to hold every acknowledged write")
	fl.DurationVar(&opTimeout, "op-timeout", 5*time.Second, "an operation that cannot complete within this fails (outcome unknown)")
	fl.StringVar(&dockerProject, "docker-project", "", "fault the containers of this Docker Compose project (deploy/compose.yaml) through the Docker daemon, not local processes: run inside the cluster's network (make docker-nemesis)")
	fl.StringVar(&dockerNetwork, "docker-network", "", "with --docker-project: the cluster's network (default: the first node container's only network)")
	fl.StringVar(&dockerSocket, "docker-socket", nemesis.DefaultDockerSocket, "with --docker-project: the Docker daemon's socket")
	fl.StringVar(&historyPath, "history", "", "write the bench's history (JSON Lines) to this file")
	wf.register(cmd)
	addOutputFlag(cmd)
	return cmd
}

// printNemesis prints a run's events and verdicts as text.
func printNemesis(w io.Writer, r *nemesis.Report) {
	fmt.Fprintf(w, "live nemesis on %s: %d events\n", r.Protocol, len(r.Events))
	for _, e := range r.Events {
		status := "ok"
		if e.Err != "" {
			status = "FAILED: " + e.Err
		}
		fmt.Fprintf(w, "  %7s  %-60s  late %-8v %s\n", e.At, e.Event, e.Late.Round(time.Millisecond), status)
	}
	if r.HealErr != "" {
		fmt.Fprintf(w, "heal: FAILED: %s\n", r.HealErr)
	}
	if b := r.Bench; b != nil {
		errs := int64(0)
		for _, n := range b.Errors {
			errs += n
		}
		verdict := "causal+ (checker passed)"
		if !b.Check.OK {
			verdict = fmt.Sprintf("NOT causal+: %d violations", len(b.Check.Violations))
		}
		fmt.Fprintf(w, "bench: %d ops (%d failed) in %.1fs, %.0f ops/s; history %s\n", b.Ops, errs, b.DurationS, b.ThroughputOpsS, verdict)
	}
	fmt.Fprintf(w, "ack log: %d puts, %d acknowledged, %d keys, read back from %v in %.1fs\n",
		r.Puts, r.Acked, r.Keys, r.ReadBackDCs, r.ReadBack.Seconds())
	fmt.Fprintf(w, "lost acknowledged writes: %d\n", len(r.Lost))
	for i, l := range r.Lost {
		if i == 10 {
			fmt.Fprintf(w, "  … and %d more\n", len(r.Lost)-10)
			break
		}
		fmt.Fprintf(w, "  %s\n", l)
	}
	if len(r.Bad) > 0 {
		fmt.Fprintf(w, "bad reads: %d\n", len(r.Bad))
		for i, b := range r.Bad {
			if i == 10 {
				break
			}
			fmt.Fprintf(w, "  %s\n", b)
		}
	}
}
