package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/client"
	"github.com/causeway/causeway/cluster"
)

// tokenHelp is the part of the one-shot client commands' help about
// session tokens.
const tokenHelp = `
Session tokens: with --print-token, after a successful operation the
command prints the session's token on stderr, as the line

  session-token: TOKEN

(stdout keeps only the result; with -w json the token is the document's
"session_token" instead). Passing it to a later put, get, del or txn with
--session-token TOKEN, in any datacenter of the same cluster, continues the
same causal session there: that command first waits until its datacenter
holds everything the session wrote or read, so that it reads its own writes
and never goes back in time (it fails with a timeout if the datacenter does
not catch up within --timeout, e.g. during a partition). A token can be used
any number of times. For karma, karma-nc and cops-pr what the command waits
for is that the session's writes, and the in-flight values it read, are in
every ring. A protocol that cannot move sessions prints no token (a warning
says so) and refuses --session-token.

--cluster defaults to $CAUSEWAY_CLUSTER and --dc to $CAUSEWAY_DC.`

// kvFlags are the flags of the one-shot client commands.
type kvFlags struct {
	dir        string
	dc         string
	timeout    time.Duration
	token      string
	printToken bool
	output     *string
}

func (f *kvFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "cluster", "", "cluster directory (or cluster.yaml) written by 'causeway cluster up' (required)")
	cmd.Flags().StringVar(&f.dc, "dc", "", "datacenter the client session lives in (required)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 10*time.Second, "give up after this long (the outcome of a write is then unknown)")
	cmd.Flags().StringVar(&f.token, "session-token", "", "continue the session this token (printed by an earlier command's --print-token) was taken from")
	cmd.Flags().BoolVar(&f.printToken, "print-token", false, "print the session's token after the operation (on stderr; in -w json as session_token)")
	f.output = addOutputFlag(cmd)
}

// validate checks the flags before any work starts.
func (f *kvFlags) validate(name string) error {
	if err := validateOutput(name, *f.output); err != nil {
		return err
	}
	if f.dir == "" || f.dc == "" {
		return usageErrorf("%s: --cluster (or $%s) and --dc (or $%s) are required", name, envCluster, envDC)
	}
	return nil
}

// session dials the cluster and opens one client session in f.dc: a new
// one, or the one f.token continues.
func (f *kvFlags) session(name string) (*client.Session, func(), error) {
	cfg, err := cluster.Load(f.dir)
	if err != nil {
		return nil, nil, usageErrorf("%s: %v", name, err)
	}
	if !cfg.Topology.HasDC(f.dc) {
		return nil, nil, usageErrorf("%s: unknown datacenter %q (valid: %v)", name, f.dc, cfg.Topology.DCNames())
	}
	cl, err := client.DialConfig(cfg, f.dc, client.DialOptions{OpTimeout: f.timeout})
	if err != nil {
		return nil, nil, failuref("%s: %v", name, err)
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
			return nil, nil, usageErrorf("%s: %v", name, err)
		}
		return nil, nil, failuref("%s: %v", name, err)
	}
	return s, func() { _ = s.Close(); _ = cl.Close() }, nil
}

// kvResult is what a one-shot client command prints: a table for people
// (-w table) or one JSON document (-w json), which carries the session
// token when --print-token asks for it.
type kvResult interface {
	table(w io.Writer) error
	setToken(token string)
}

// tokenField is the session_token of a kvResult's JSON.
type tokenField struct {
	SessionToken string `json:"session_token,omitempty"`
}

func (t *tokenField) setToken(token string) { t.SessionToken = token }

// run validates the flags, opens the session, runs op with a context
// bounded by --timeout and prints its result, and the session's token
// when --print-token asks for it.
func (f *kvFlags) run(cmd *cobra.Command, op func(ctx context.Context, s *client.Session) (kvResult, error)) error {
	name := cmd.Name()
	if err := f.validate(name); err != nil {
		return err
	}
	s, done, err := f.session(name)
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
	defer cancel()
	res, err := op(ctx, s)
	if err != nil {
		if errors.Is(err, client.ErrInvalidKey) {
			return usageErrorf("%s: %v", name, err) // bad input, refused before sending
		}
		return &exitError{1, err} // the client's error names the operation: `get "k": unavailable`
	}
	token := ""
	if f.printToken {
		t, err := s.Token(ctx)
		switch {
		case errors.Is(err, client.ErrUnsupported):
			fmt.Fprintf(cmd.ErrOrStderr(), "causeway: %s: warning: no session token: %v\n", name, err)
		case err != nil:
			fmt.Fprintf(cmd.ErrOrStderr(), "causeway: %s: warning: %v\n", name, err)
		default:
			token = t
		}
	}
	if *f.output == outputJSON {
		res.setToken(token)
		return writeJSON(cmd.OutOrStdout(), res)
	}
	if err := res.table(cmd.OutOrStdout()); err != nil {
		return err
	}
	if token != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "session-token:", token)
	}
	return nil
}

// okResult is the result of a put, del or write transaction.
type okResult struct {
	// Op is "put", "del" or "write_txn".
	Op string `json:"op"`
	// Keys are the keys written, sorted.
	Keys []string `json:"keys"`
	// Tombstone is a del's tombstone ID (client.Session.Delete).
	Tombstone string `json:"tombstone,omitempty"`
	tokenField
}

func (r *okResult) table(w io.Writer) error {
	_, err := fmt.Fprintln(w, "ok")
	return err
}

func putCmd() *cobra.Command {
	var f kvFlags
	var file string
	cmd := &cobra.Command{
		Use:   "put [flags] KEY (VALUE | - | --file FILE)",
		Short: "Write one key from a client session in datacenter D of a live cluster",
		Long: `Put opens a client session in datacenter D of the cluster in DIR, writes
KEY and waits for the acknowledgement; it prints "ok". The value is VALUE,
or standard input when VALUE is "-", or the contents of FILE with --file:
any bytes, up to ` + fmt.Sprint(maxValueBytes>>20) + ` MiB, not empty, and not starting with the
tombstone prefix deletes use (a NUL byte, "causeway-tombstone", a NUL
byte). Exit status 0 when the write was acknowledged, 1 when it failed or
timed out (a timed-out write may or may not have taken effect), 2 on bad
arguments.

-w json prints {"op":"put","keys":[KEY]}.
` + tokenHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case file != "" && len(args) != 1:
				return usageErrorf("put: with --file, give only KEY (got %d arguments)", len(args))
			case file == "" && len(args) != 2:
				return usageErrorf("put: want KEY VALUE, KEY - (stdin) or KEY --file FILE (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.validate("put"); err != nil {
				return err
			}
			value, err := readValue(cmd, args, file)
			if err != nil {
				return err
			}
			return f.run(cmd, func(ctx context.Context, s *client.Session) (kvResult, error) {
				if err := s.Put(ctx, args[0], value); err != nil {
					return nil, err
				}
				return &okResult{Op: "put", Keys: []string{args[0]}}, nil
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&file, "file", "", "write the contents of FILE (binary-safe) instead of VALUE")
	return cmd
}

// getResult is the result of a get.
type getResult struct {
	value
	tokenField
	file string
}

func (r *getResult) table(w io.Writer) error {
	if !r.Found {
		_, err := fmt.Fprintln(w, "(not found)")
		return err
	}
	if r.file != "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "%s\n", r.raw)
	return err
}

func getCmd() *cobra.Command {
	var f kvFlags
	var file string
	cmd := &cobra.Command{
		Use:   "get [flags] KEY",
		Short: "Read one key from a client session in datacenter D of a live cluster",
		Long: `Get opens a client session in datacenter D of the cluster in DIR and reads
KEY. It prints the value and a newline, or "(not found)" for a key never
written or deleted; with --file FILE it writes the value, exactly, to FILE
instead (and prints nothing when found). Exit status 0 when it got an
answer, 1 when the read failed or timed out, 2 on bad arguments.

-w json prints {"key":KEY,"found":true,"value":VALUE}, with the value as
"value_base64" instead when it is not valid UTF-8, and "found":false
without a value for a key never written or deleted.
` + tokenHelp,
		Args: exactArgs("get", "KEY", 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, func(ctx context.Context, s *client.Session) (kvResult, error) {
				v, found, err := s.Get(ctx, args[0])
				if err != nil {
					return nil, err
				}
				res := &getResult{value: makeValue(args[0], v, found), file: file}
				if found && file != "" {
					if err := writeValueFile(file, v); err != nil {
						return nil, err
					}
				}
				return res, nil
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&file, "file", "", "write the value to FILE, exactly (binary-safe), instead of printing it")
	return cmd
}

func delCmd() *cobra.Command {
	var f kvFlags
	cmd := &cobra.Command{
		Use:   "del [flags] KEY",
		Short: "Delete one key from a client session in datacenter D of a live cluster",
		Long: `Del opens a client session in datacenter D of the cluster in DIR, deletes
KEY and waits for the acknowledgement; it prints "ok". A delete is a write
of a tombstone with an ID of its own: it is replicated and ordered exactly
as a put (a later put brings the key back, an earlier one never does), and
reads that see it answer "(not found)". Deleting a key never written is
fine. Exit status 0 when the delete was acknowledged, 1 when it failed or
timed out (a timed-out delete may or may not have taken effect), 2 on bad
arguments.

-w json prints {"op":"del","keys":[KEY],"tombstone":ID}; histories
(causeway check) record a delete as op "del" with that ID.
` + tokenHelp,
		Args: exactArgs("del", "KEY", 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, func(ctx context.Context, s *client.Session) (kvResult, error) {
				id, err := s.Delete(ctx, args[0])
				if err != nil {
					return nil, err
				}
				return &okResult{Op: "del", Keys: []string{args[0]}, Tombstone: id}, nil
			})
		},
	}
	f.register(cmd)
	return cmd
}

// readTxnResult is the result of a read transaction.
type readTxnResult struct {
	Reads []value `json:"reads"`
	tokenField
}

func (r *readTxnResult) table(w io.Writer) error {
	for _, v := range r.Reads {
		var err error
		if v.Found {
			_, err = fmt.Fprintf(w, "%s=%s\n", v.Key, v.raw)
		} else {
			_, err = fmt.Fprintf(w, "%s (not found)\n", v.Key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func txnCmd() *cobra.Command {
	var f kvFlags
	cmd := &cobra.Command{
		Use:   "txn [flags] (get KEY... | put KEY=VALUE...)",
		Short: "Run a read-only or write-only transaction from a client session in datacenter D",
		Long: `Txn opens a client session in datacenter D of the cluster in DIR and runs
one transaction:

  txn ... get K1 K2 ...        reads the keys from one causal snapshot and
                               prints a line K=VALUE, or "K (not found)" for
                               a key never written or deleted, per key in
                               the order given
  txn ... put K1=V1 K2=V2 ...  writes the keys atomically (a read-only
                               transaction sees all of them or none) and
                               prints "ok"

-w json prints {"reads":[{"key":K,"found":true,"value":V},…]} (values
that are not valid UTF-8 as "value_base64") for get, and
{"op":"write_txn","keys":[…]} for put.

Exit status 0 on success, 1 when the transaction failed or timed out (a
timed-out write transaction may or may not have taken effect) or the
cluster's protocol does not implement transactions, 2 on bad arguments.
` + tokenHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 || (args[0] != "get" && args[0] != "put") {
				return usageErrorf("txn: txn needs 'get KEY...' or 'put KEY=VALUE...'")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			keys := args[1:]
			if args[0] == "get" {
				return f.run(cmd, func(ctx context.Context, s *client.Session) (kvResult, error) {
					vals, err := s.ReadTxn(ctx, keys...)
					if err != nil {
						return nil, err
					}
					res := &readTxnResult{Reads: make([]value, len(keys))}
					for i, k := range keys {
						v, ok := vals[k]
						res.Reads[i] = makeValue(k, v, ok)
					}
					return res, nil
				})
			}
			if err := f.validate("txn"); err != nil {
				return err
			}
			writes := make(map[string][]byte, len(keys))
			for _, kv := range keys {
				k, v, ok := strings.Cut(kv, "=")
				switch {
				case !ok || k == "":
					return usageErrorf("txn put: %q is not KEY=VALUE", kv)
				case writes[k] != nil:
					return usageErrorf("txn put: key %q is written twice", k)
				}
				if err := checkValue([]byte(v)); err != nil {
					return usageErrorf("txn put: key %q: %v", k, err)
				}
				writes[k] = []byte(v)
			}
			return f.run(cmd, func(ctx context.Context, s *client.Session) (kvResult, error) {
				if err := s.WriteTxn(ctx, writes); err != nil {
					return nil, err
				}
				return &okResult{Op: "write_txn", Keys: slices.Sorted(maps.Keys(writes))}, nil
			})
		},
	}
	f.register(cmd)
	return cmd
}

// exactArgs wants n arguments, named what in the error.
func exactArgs(name, what string, n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s: want %s (got %d arguments)", name, what, len(args))
		}
		return nil
	}
}
