package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/client"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/runtime/node"
)

// kvFlags are the flags of the one-shot client commands.
type kvFlags struct {
	dir     string
	dc      string
	timeout time.Duration
}

func (f *kvFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "cluster", "", "cluster directory (or cluster.yaml) written by 'causeway cluster up' (required)")
	cmd.Flags().StringVar(&f.dc, "dc", "", "datacenter the client session lives in (required)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 10*time.Second, "give up after this long (the outcome of a put is then unknown)")
}

// session dials the cluster and opens one client session in f.dc.
func (f *kvFlags) session() (*client.Session, func(), error) {
	if f.dir == "" || f.dc == "" {
		return nil, nil, &exitError{2, errors.New("--cluster and --dc are required")}
	}
	cfg, err := cluster.Load(f.dir)
	if err != nil {
		return nil, nil, &exitError{2, err}
	}
	if !cfg.Topology.HasDC(f.dc) {
		return nil, nil, &exitError{2, fmt.Errorf("unknown datacenter %q (valid: %v)", f.dc, cfg.Topology.DCNames())}
	}
	cc, err := node.DialWithOptions(cfg, f.dc, node.DialOptions{OpTimeout: f.timeout})
	if err != nil {
		return nil, nil, &exitError{1, err}
	}
	conn, err := cc.NewSession()
	if err != nil {
		_ = cc.Close()
		return nil, nil, &exitError{1, err}
	}
	s := client.New(conn, cfg.Protocol, f.dc)
	return s, func() { _ = s.Close(); _ = cc.Close() }, nil
}

func putCmd() *cobra.Command {
	var f kvFlags
	cmd := &cobra.Command{
		Use:   "put --cluster DIR --dc D KEY VALUE",
		Short: "Write one key from a client session in datacenter D of a live cluster",
		Long: `Put opens a client session in datacenter D of the cluster in DIR, writes
KEY=VALUE and waits for the acknowledgement. Exit status 0 when the write was
acknowledged, 1 when it failed or timed out (a timed-out write may or may not
have taken effect), 2 on bad arguments.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, done, err := f.session()
			if err != nil {
				return err
			}
			defer done()
			ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
			defer cancel()
			if err := s.Put(ctx, args[0], []byte(args[1])); err != nil {
				return &exitError{1, err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok")
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

func getCmd() *cobra.Command {
	var f kvFlags
	cmd := &cobra.Command{
		Use:   "get --cluster DIR --dc D KEY",
		Short: "Read one key from a client session in datacenter D of a live cluster",
		Long: `Get opens a client session in datacenter D of the cluster in DIR and reads
KEY. It prints the value, or "(not found)" for a key never written. Exit
status 0 when it got an answer, 1 when the read failed or timed out, 2 on
bad arguments.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, done, err := f.session()
			if err != nil {
				return err
			}
			defer done()
			ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
			defer cancel()
			v, found, err := s.Get(ctx, args[0])
			if err != nil {
				return &exitError{1, err}
			}
			if !found {
				fmt.Fprintln(cmd.OutOrStdout(), "(not found)")
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout(), string(v))
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
