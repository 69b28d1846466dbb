package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/runtime/node"
)

func serverCmd() *cobra.Command {
	var (
		cfgPath, nodeID             string
		noSync, admin, metricsInsec bool
		maxSessions, maxQueued      int
	)
	cmd := &cobra.Command{
		Use:   "server --config cluster.yaml --node NODE",
		Short: "Run one node of a live cluster",
		Long: `Server runs node NODE of the cluster described by cluster.yaml (as
written by 'causeway cluster up') in this process, until it receives
SIGTERM or SIGINT.

The node keeps its data in a Pebble store in its data directory (a node
restarted on the same directory recovers what it had made durable), talks
to the other nodes and to clients over gRPC on its addr (mutual TLS when
the file says tls: true), and serves on its http address (HTTPS only with
tls: true, see below):

  /healthz   200 "ok" once the node has started
  /metrics   Prometheus metrics: messages received and sent by type,
             storage writes, disk space, queue depth
  /status    JSON: node, protocol, ready, incarnation, start time,
             uptime, data_bytes (what 'causeway cluster status' shows)
  /admin/links  with --admin only: cut and delay the links between this
             node and other datacenters at run time (what 'causeway
             cluster partition|heal|delay' use); /admin/clock likewise
             skews its clock (the nemesis)

With tls: true the http address is part of the cluster's trust boundary:
it serves HTTPS only (a plain HTTP request gets no answer), /admin/* answer
only a client presenting the cluster's "admin" certificate (what the
cluster commands present), and /healthz, /metrics and /status a client
presenting any certificate of the cluster's CA. --metrics-insecure opens
those three to clients without a certificate, over HTTPS still: the usual
Prometheus setup, which scrapes without a client certificate.

Without tls: true anyone who reaches the http address can use /admin/*:
the node logs that loudly at start when --admin is given. Give it only
where the http address is reachable by trusted hosts alone.

Clients reach the node over gRPC on its addr, and the node answers each
client session on the connection its requests arrived on: it never dials
a client. --max-sessions bounds the client sessions connected at once and
--max-queued-per-session the requests one session may have waiting in the
node's queue; a request over either, or with a key over 4 KiB or a value
over 1 MiB, is refused with an error naming the limit (docs/formats/limits.md).

It logs JSON lines (log/slog) to stderr.

--no-sync is UNSAFE: the node then never fsyncs, so writes it has
acknowledged can be lost to a power failure or kernel crash. It exists
only to benchmark everything but the disk.

Unless GODEBUG sets schedtrace, the process first runs itself again with
schedtrace=2147483647 added to GODEBUG: it keeps the Go runtime's sysmon
thread from polling every 20 µs each time the process is woken (on a
machine up more than 24.9 days it also prints one scheduler line to
standard error at start).

Exit status: 0 after a clean shutdown, 1 when the node fails, 2 on bad
arguments or a bad cluster file.`,
		Example: `  causeway server --config /tmp/c1/cluster.yaml --node a/s0`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfgPath == "" {
				return &exitError{2, errors.New("server: --config is required")}
			}
			cfg, err := cluster.Load(cfgPath)
			if err != nil {
				return &exitError{2, err}
			}
			if nodeID == "" {
				return &exitError{2, fmt.Errorf("server: --node is required (nodes: %s)", strings.Join(cfg.NodeIDs(), ", "))}
			}
			if cfg.Node(nodeID) == nil {
				return &exitError{2, fmt.Errorf("server: %q is not a node of %s (nodes: %s)", nodeID, cfgPath, strings.Join(cfg.NodeIDs(), ", "))}
			}
			logger := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			if err := node.RunWithOptions(ctx, cfg, nodeID, logger, node.Options{Sync: !noSync, Admin: admin,
				MetricsInsecure: metricsInsec, MaxSessions: maxSessions, MaxQueuedPerSession: maxQueued}); err != nil {
				logger.Error("server stopped", "node", nodeID, "err", err)
				return &exitError{1, err}
			}
			logger.Info("server stopped", "node", nodeID)
			return nil
		},
	}
	cmd.Flags().StringVar(&cfgPath, "config", "", "the cluster file (cluster.yaml, or the directory holding it)")
	cmd.Flags().StringVar(&nodeID, "node", "", "the ID of the node to run, e.g. a/s0")
	cmd.Flags().BoolVar(&noSync, "no-sync", false, "UNSAFE: never fsync (acknowledged writes can be lost to a power failure)")
	cmd.Flags().BoolVar(&admin, "admin", false, "serve the link and clock controls (/admin/*) on the http address (unauthenticated without tls)")
	cmd.Flags().BoolVar(&metricsInsec, "metrics-insecure", false, "with tls, serve /healthz, /metrics and /status to clients without a certificate (over HTTPS)")
	cmd.Flags().IntVar(&maxSessions, "max-sessions", node.DefaultMaxSessions, "client sessions connected at once; more are refused")
	cmd.Flags().IntVar(&maxQueued, "max-queued-per-session", node.DefaultMaxQueuedPerSession, "requests of one session waiting in the node's queue; more are refused")
	return cmd
}
