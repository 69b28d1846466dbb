package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/client"
	"github.com/causeway/causeway/cluster"
)

// tokenHelp is the part of the one-shot client commands' help about
// session tokens.
const tokenHelp = `
Session tokens: after a successful operation the command prints the
session's token on stderr, as the line

  session-token: TOKEN

(stdout keeps only the result). Passing it to a later put, get or txn with
--session-token TOKEN, in any datacenter of the same cluster, continues the
same causal session there: that command first waits until its datacenter
holds everything the session wrote or read, so that it reads its own writes
and never goes back in time (it fails with a timeout if the datacenter does
not catch up within --timeout, e.g. during a partition). A token can be used
any number of times. For karma, karma-nc and cops-pr what the command waits
for is that the session's writes, and the in-flight values it read, are in
every ring. A protocol that cannot move sessions prints no token and refuses
--session-token.`

// kvFlags are the flags of the one-shot client commands.
type kvFlags struct {
	dir     string
	dc      string
	timeout time.Duration
	token   string
}

func (f *kvFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "cluster", "", "cluster directory (or cluster.yaml) written by 'causeway cluster up' (required)")
	cmd.Flags().StringVar(&f.dc, "dc", "", "datacenter the client session lives in (required)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 10*time.Second, "give up after this long (the outcome of a write is then unknown)")
	cmd.Flags().StringVar(&f.token, "session-token", "", "continue the session this token (printed by an earlier put, get or txn) was taken from")
}

// session dials the cluster and opens one client session in f.dc: a new
// one, or the one f.token continues.
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
	cl, err := client.DialConfig(cfg, f.dc, client.DialOptions{OpTimeout: f.timeout})
	if err != nil {
		return nil, nil, &exitError{1, err}
	}
	var s *client.Session
	if f.token != "" {
		s, err = cl.Resume(f.token)
	} else {
		s, err = cl.NewSession()
	}
	if err != nil {
		_ = cl.Close()
		if errors.Is(err, client.ErrBadToken) {
			return nil, nil, &exitError{2, err}
		}
		return nil, nil, &exitError{1, err}
	}
	return s, func() { _ = s.Close(); _ = cl.Close() }, nil
}

// run opens the session, runs op with a context bounded by --timeout and,
// when op succeeds, prints the session's token on stderr.
func (f *kvFlags) run(cmd *cobra.Command, op func(ctx context.Context, s *client.Session) error) error {
	s, done, err := f.session()
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
	defer cancel()
	if err := op(ctx, s); err != nil {
		if errors.Is(err, client.ErrInvalidKey) {
			return &exitError{2, err} // bad input, refused before sending
		}
		return &exitError{1, err}
	}
	token, err := s.Token(ctx)
	switch {
	case errors.Is(err, client.ErrUnsupported):
		// The protocol cannot move sessions: there is no token to print.
	case err != nil:
		fmt.Fprintln(cmd.ErrOrStderr(), "causeway: warning:", err)
	default:
		fmt.Fprintln(cmd.ErrOrStderr(), "session-token:", token)
	}
	return nil
}

func putCmd() *cobra.Command {
	var f kvFlags
	cmd := &cobra.Command{
		Use:   "put --cluster DIR --dc D [--session-token TOKEN] KEY VALUE",
		Short: "Write one key from a client session in datacenter D of a live cluster",
		Long: `Put opens a client session in datacenter D of the cluster in DIR, writes
KEY=VALUE and waits for the acknowledgement; it prints "ok". Exit status 0
when the write was acknowledged, 1 when it failed or timed out (a timed-out
write may or may not have taken effect), 2 on bad arguments.
` + tokenHelp,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, func(ctx context.Context, s *client.Session) error {
				if err := s.Put(ctx, args[0], []byte(args[1])); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "ok")
				return nil
			})
		},
	}
	f.register(cmd)
	return cmd
}

func getCmd() *cobra.Command {
	var f kvFlags
	cmd := &cobra.Command{
		Use:   "get --cluster DIR --dc D [--session-token TOKEN] KEY",
		Short: "Read one key from a client session in datacenter D of a live cluster",
		Long: `Get opens a client session in datacenter D of the cluster in DIR and reads
KEY. It prints the value, or "(not found)" for a key never written. Exit
status 0 when it got an answer, 1 when the read failed or timed out, 2 on
bad arguments.
` + tokenHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, func(ctx context.Context, s *client.Session) error {
				v, found, err := s.Get(ctx, args[0])
				if err != nil {
					return err
				}
				if !found {
					fmt.Fprintln(cmd.OutOrStdout(), "(not found)")
					return nil
				}
				fmt.Fprintln(cmd.OutOrStdout(), string(v))
				return nil
			})
		},
	}
	f.register(cmd)
	return cmd
}

func txnCmd() *cobra.Command {
	var f kvFlags
	cmd := &cobra.Command{
		Use:   "txn --cluster DIR --dc D [--session-token TOKEN] (get KEY... | put KEY=VALUE...)",
		Short: "Run a read-only or write-only transaction from a client session in datacenter D",
		Long: `Txn opens a client session in datacenter D of the cluster in DIR and runs
one transaction:

  txn ... get K1 K2 ...        reads the keys from one causal snapshot and
                               prints a line K=VALUE, or "K (not found)" for
                               a key never written, per key in the order
                               given
  txn ... put K1=V1 K2=V2 ...  writes the keys atomically (a read-only
                               transaction sees all of them or none) and
                               prints "ok"

Exit status 0 on success, 1 when the transaction failed or timed out (a
timed-out write transaction may or may not have taken effect) or the
cluster's protocol does not implement transactions, 2 on bad arguments.
` + tokenHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 || (args[0] != "get" && args[0] != "put") {
				return &exitError{2, errors.New("txn needs 'get KEY...' or 'put KEY=VALUE...'")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			keys := args[1:]
			if args[0] == "get" {
				return f.run(cmd, func(ctx context.Context, s *client.Session) error {
					vals, err := s.ReadTxn(ctx, keys...)
					if err != nil {
						return err
					}
					for _, k := range keys {
						if v, ok := vals[k]; ok {
							fmt.Fprintf(cmd.OutOrStdout(), "%s=%s\n", k, v)
						} else {
							fmt.Fprintf(cmd.OutOrStdout(), "%s (not found)\n", k)
						}
					}
					return nil
				})
			}
			writes := make(map[string][]byte, len(keys))
			for _, kv := range keys {
				k, v, ok := strings.Cut(kv, "=")
				switch {
				case !ok || k == "":
					return &exitError{2, fmt.Errorf("txn put: %q is not KEY=VALUE", kv)}
				case v == "":
					return &exitError{2, fmt.Errorf("txn put: key %q: %w", k, client.ErrEmptyValue)}
				case writes[k] != nil:
					return &exitError{2, fmt.Errorf("txn put: key %q is written twice", k)}
				}
				writes[k] = []byte(v)
			}
			return f.run(cmd, func(ctx context.Context, s *client.Session) error {
				if err := s.WriteTxn(ctx, writes); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "ok")
				return nil
			})
		},
	}
	f.register(cmd)
	return cmd
}
