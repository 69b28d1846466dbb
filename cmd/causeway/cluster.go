package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/cluster"
)

func clusterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster up|down|status|partition|heal|delay|links --dir DIR",
		Short: "Start, stop, inspect and disturb a local multi-process cluster",
		Long: `Cluster manages a live cluster on this machine: one 'causeway server'
process per node, on loopback ports, with everything in one directory:

  DIR/cluster.yaml      the cluster file (protocol, topology, addresses)
  DIR/data/NODE/        each node's storage ("/" in NODE written as "_")
  DIR/logs/NODE.log     each node's log
  DIR/pids/NODE.pid     each running node's process ID
  DIR/certs/            certificates (with --tls)

While it runs, partition, heal and delay cut and slow down the emulated
WAN links between its datacenters, and links shows what is cut.`,
		Example: `  causeway cluster up --topology local3 --protocol cops --dir /tmp/c1
  causeway cluster status --dir /tmp/c1
  causeway cluster partition --dir /tmp/c1 --dc c
  causeway cluster heal --dir /tmp/c1
  causeway cluster down --dir /tmp/c1
  causeway cluster up --dir /tmp/c1        # the same cluster again, on its data`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{2, fmt.Errorf("cluster: unknown command %q (valid: up, down, status, partition, heal, delay, links)", args[0])}
			}
			return &exitError{2, errors.New("cluster: a command is needed: up, down, status, partition, heal, delay or links (see causeway cluster --help)")}
		},
	}
	cmd.AddCommand(clusterUpCmd(), clusterDownCmd(), clusterStatusCmd(),
		clusterPartitionCmd(), clusterHealCmd(), clusterDelayCmd(), clusterLinksCmd())
	return cmd
}

func clusterUpCmd() *cobra.Command {
	var (
		dir, topo, proto string
		tls, wanDelay    bool
		admin            bool
		timeout          time.Duration
	)
	cmd := &cobra.Command{
		Use:   "up --dir DIR [--topology T --protocol P] [--tls] [--admin] [--wan-delay=false]",
		Short: "Start a local cluster, or restart the one in DIR",
		Long: `Up starts one 'causeway server' process per node and waits until every
node answers /healthz.

When DIR holds no cluster.yaml, --topology (a preset or a YAML file) and
--protocol are required: up picks free loopback ports for every node,
writes DIR/cluster.yaml, and starts the nodes on empty data. With --tls it
also makes a CA and certificates in DIR/certs (one per node, plus the
client certificates "client" for client processes and "admin" for the
cluster commands), every connection uses mutual TLS, and the nodes' http
addresses serve HTTPS only (see 'causeway server').

When DIR/cluster.yaml exists, up restarts the same nodes on the same ports
and data; nodes already running are left alone. --topology, --protocol,
--tls and --wan-delay may then be given, but must agree with the file.

--wan-delay (on by default) makes every process delay what it sends by the
topology's one-way delay (RTT/2) to the destination's datacenter.

Each node process gets GOMAXPROCS set to the machine's cores divided by
the cluster's nodes (at least 1), unless the environment sets GOMAXPROCS:
the nodes share this machine, and more threads than cores only switch
between each other. Each also gets schedtrace=2147483647 added to its
GODEBUG, unless the environment's GODEBUG sets schedtrace: it keeps the
Go runtime's sysmon thread from polling every 20 µs each time a node
wakes (a node started on a machine up more than 24.9 days logs one
scheduler line at start and every 24.9 days).

If a node exits or is not ready within --timeout, up stops the nodes it
started and prints the end of the failing node's log.

With --tls the nodes run with 'causeway server --admin': their http
addresses also take the link changes of cluster partition, heal and delay,
from the holder of the admin certificate alone. Without --tls those
endpoints would take them from anyone who reaches the (loopback) port, so
the nodes serve them only when --admin is given (and log it loudly).

Exit status: 0 when every node is up, 1 when a node failed to start, 2 on
bad arguments or a cluster file they contradict.`,
		Example: `  causeway cluster up --topology local3 --protocol cops --dir /tmp/c1
  causeway cluster up --topology karma-aws8 --protocol karma --dir /tmp/k --tls`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return &exitError{2, errors.New("cluster up: --dir is required")}
			}
			exe, err := os.Executable()
			if err != nil {
				return &exitError{1, fmt.Errorf("cluster up: finding this executable: %w", err)}
			}
			command := []string{exe, "server"}
			if admin || tls || existingTLS(dir) {
				command = append(command, "--admin")
			}
			opts := cluster.UpOptions{Topology: topo, Protocol: proto, Timeout: timeout, Command: command}
			if cmd.Flags().Changed("tls") {
				opts.TLS = &tls
			}
			if cmd.Flags().Changed("wan-delay") {
				opts.WANDelay = &wanDelay
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rep, err := cluster.Up(ctx, dir, opts)
			if err != nil {
				var ce *cluster.ConfigError
				if errors.As(err, &ce) {
					return &exitError{2, err}
				}
				return &exitError{1, err}
			}
			out := cmd.OutOrStdout()
			verb := "restarted"
			if rep.Created {
				verb = "created"
			}
			cfg := rep.Config
			fmt.Fprintf(out, "%s cluster in %s: protocol %s on topology %s, %d nodes (%d started, %d already running)\n",
				verb, dir, cfg.Protocol, cfg.Topology.Name, len(cfg.Nodes), len(rep.Started), len(rep.Running))
			_, st, err := cluster.Status(ctx, dir)
			if err != nil {
				return &exitError{1, err}
			}
			printStatus(out, st)
			fmt.Fprintf(out, "stop it with: causeway cluster down --dir %s\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the cluster's directory (required)")
	cmd.Flags().StringVar(&topo, "topology", "", "topology preset or YAML file (required for a new cluster)")
	cmd.Flags().StringVar(&proto, "protocol", "", "protocol (required for a new cluster; see causeway protocols)")
	cmd.Flags().BoolVar(&tls, "tls", false, "mutual TLS between every process (certificates made in DIR/certs)")
	cmd.Flags().BoolVar(&wanDelay, "wan-delay", true, "emulate the topology's one-way WAN delays")
	cmd.Flags().BoolVar(&admin, "admin", false, "serve the link controls (cluster partition|heal|delay) without tls, unauthenticated (on with --tls, behind the admin certificate)")
	cmd.Flags().DurationVar(&timeout, "timeout", cluster.DefaultUpTimeout, "how long to wait for every node to be ready")
	return cmd
}

func clusterDownCmd() *cobra.Command {
	var (
		dir     string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "down --dir DIR",
		Short: "Stop the local cluster in DIR",
		Long: `Down sends SIGTERM to every node process of the cluster in DIR, waits up
to --timeout for them to exit, then sends SIGKILL to those still running,
and removes their pid files. Data, logs and cluster.yaml stay: 'cluster up
--dir DIR' starts the same cluster again.

Exit status: 0 when no node is left running, 1 otherwise, 2 on bad
arguments.`,
		Example: `  causeway cluster down --dir /tmp/c1`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := needCluster("down", dir); err != nil {
				return err
			}
			res, err := cluster.Down(dir, timeout)
			out := cmd.OutOrStdout()
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			for _, r := range res {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, pidText(r.PID), r.Result)
			}
			_ = tw.Flush()
			if err != nil {
				return &exitError{1, err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the cluster's directory (required)")
	cmd.Flags().DurationVar(&timeout, "timeout", cluster.DefaultDownTimeout, "how long to wait after SIGTERM before SIGKILL")
	return cmd
}

func clusterStatusCmd() *cobra.Command {
	var dir string
	var output *string
	cmd := &cobra.Command{
		Use:   "status --dir DIR [-w table|json]",
		Short: "Show each node of the local cluster in DIR: health, process, uptime, data size",
		Long: `Status prints one line per node: its ID, transport address, process ID
("-" when no process runs), health ("up" when its /healthz answers, "starting"
while it recovers, "down" when it does not answer), incarnation (1 on its
first start, one more at each restart), uptime and the disk space of its
storage (Pebble's write-ahead log and tables) — the last three as the node
reports them at /status.

With -w json it prints the same as one JSON array.

Exit status: 0 when every node is up, 1 when some node is not, 2 on bad
arguments.`,
		Example: `  causeway cluster status --dir /tmp/c1
  causeway cluster status --dir /tmp/c1 -w json | jq '.[] | {node, health, data_bytes}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := validateOutput("cluster status", *output); err != nil {
				return err
			}
			if err := needCluster("status", dir); err != nil {
				return err
			}
			_, st, err := cluster.Status(cmd.Context(), dir)
			if err != nil {
				return usageErrorf("cluster status: %v", err)
			}
			if *output == outputJSON {
				if err := writeJSON(cmd.OutOrStdout(), statusRecords(st)); err != nil {
					return failuref("cluster status: %v", err)
				}
			} else {
				printStatus(cmd.OutOrStdout(), st)
			}
			down := 0
			for _, s := range st {
				if !s.Up {
					down++
				}
			}
			if down > 0 {
				return failuref("cluster status: %d of %d nodes not up", down, len(st))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the cluster's directory (required)")
	output = addOutputFlag(cmd)
	return cmd
}

// needCluster checks that dir was given and holds a cluster file.
func needCluster(verb, dir string) error {
	if dir == "" {
		return &exitError{2, fmt.Errorf("cluster %s: --dir is required", verb)}
	}
	path := filepath.Join(dir, cluster.FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return &exitError{2, fmt.Errorf("cluster %s: no cluster in %s (%s does not exist; create one with cluster up)", verb, dir, path)}
	}
	return nil
}

func pidText(pid int) string {
	if pid == 0 {
		return "-"
	}
	return strconv.Itoa(pid)
}

// existingTLS reports whether dir holds a cluster file that says tls:
// true (the nodes of a cluster restarted by up then serve the admin
// endpoints, behind the admin certificate).
func existingTLS(dir string) bool {
	cfg, err := cluster.Load(filepath.Join(dir, cluster.FileName))
	return err == nil && cfg.TLS
}
