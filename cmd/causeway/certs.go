package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/certs"
)

func certsCmd() *cobra.Command {
	var (
		dir            string
		nodes, clients []string
		hosts          []string
		force          bool
		ifMissing      bool
		addNodes       []string
		addClients     []string
	)
	cmd := &cobra.Command{
		Use:   "certs --dir DIR [--nodes a/s0,b/s0] [--clients client,admin] [--hosts localhost,127.0.0.1] [--force] | --dir DIR --add-node NAME [--add-client NAME] [--hosts ...]",
		Short: "Make the mutual-TLS certificates of a live cluster",
		Long: `Certs makes a private certificate authority and signs with it one
certificate for every node and client of a live cluster, so that every
connection in the cluster is TLS 1.3 in which both ends prove who they are.

It writes into DIR (created, mode 0700, if missing):

  ca.crt, ca.key      the certificate authority
  NAME.crt, NAME.key  for every node and client NAME, a "/" in NAME
                      written as "_" (node a/s0 gets a_s0.crt, a_s0.key)

All keys are ECDSA P-256 and all files PEM. Node certificates serve and
dial (nodes connect to one another) and are valid for the --hosts names
and addresses, which must include whatever the nodes are dialed by;
client certificates only dial. Each certificate's common name is its
NAME. They last one year.

With 'tls: true' in cluster.yaml, each node serves with its own NAME.crt and
NAME.key and accepts only peers whose certificate ca.crt signed; clients
dial with theirs and accept only a server that ca.crt signed for. Give each
host ca.crt and only its own pair. The client named "client" is what client
processes present; the one named "admin" is what the cluster commands
(cluster up|status|partition|heal|delay|links, the nemesis) present to the
nodes' HTTPS admin endpoints, which answer no other certificate: give it
only to operators.

The .key files are secret (written mode 0600): anyone holding a node's
key can pose as that node, and anyone holding ca.key can mint certificates
the whole cluster trusts. Keep ca.key off the nodes if you can.

Certs refuses to run on a DIR that already holds ca.key, since a new CA
would leave every certificate the old one signed untrusted; --force
replaces the CA and every certificate named.

--add-node and --add-client sign more certificates with the CA that DIR
already holds (a node joining the cluster, a new client), leaving the CA
and every other file as they are, so nothing already deployed needs
reissuing. They refuse a NAME whose files exist unless --force, which then
replaces only those pairs. Their certificates end no later than the CA.

--if-missing does nothing, and exits 0, when DIR already holds a CA: a
container that makes a deployment's certificates at start (deploy/) runs
it at every start and makes them once.

Exit status: 0 when the files are written (or, with --if-missing, DIR
already holds a CA), 2 on bad arguments, when DIR already holds a CA
(without --add-node/--add-client) or holds none (with them).`,
		Example: `  causeway certs --dir certs --nodes a/s0,b/s0,c/s0 --clients client
  causeway certs --dir certs --nodes a/s0 --hosts localhost,127.0.0.1,node-a.internal --force
  causeway certs --dir certs --add-node d/s0 --hosts localhost,127.0.0.1,node-d.internal`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return &exitError{2, errors.New("certs: --dir is required")}
			}
			if len(addNodes)+len(addClients) > 0 {
				if cmd.Flags().Changed("nodes") || cmd.Flags().Changed("clients") {
					return usageErrorf("certs: --nodes and --clients make a new CA; --add-node and --add-client sign under the existing one: give one kind or the other")
				}
				return addCerts(cmd.OutOrStdout(), dir, certs.Options{Nodes: addNodes, Clients: addClients, Hosts: hosts, Force: force})
			}
			err := certs.Generate(dir, certs.Options{Nodes: nodes, Clients: clients, Hosts: hosts, Force: force})
			if errors.Is(err, certs.ErrCAExists) && ifMissing {
				fmt.Fprintf(cmd.OutOrStdout(), "%s already holds a CA: nothing written\n", dir)
				return nil
			}
			if errors.Is(err, certs.ErrCAExists) {
				return &exitError{2, fmt.Errorf("%s already holds a CA (ca.key); pass --force to replace it and reissue the certificates, after which every certificate the old CA signed is untrusted", dir)}
			}
			if err != nil {
				return &exitError{2, err}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "wrote to %s:\n", dir)
			fmt.Fprintf(out, "  %-24s certificate authority\n", "ca.crt, ca.key")
			for _, n := range nodes {
				fmt.Fprintf(out, "  %-24s node %s\n", pairFiles(n), n)
			}
			for _, n := range clients {
				fmt.Fprintf(out, "  %-24s client %s\n", pairFiles(n), n)
			}
			if len(nodes) > 0 {
				h := hosts
				if len(h) == 0 {
					h = certs.DefaultHosts
				}
				fmt.Fprintf(out, "node certificates are valid for %s\n", strings.Join(h, ", "))
			}
			fmt.Fprintf(out, "the .key files are secret; give each host %s and only its own pair\n", filepath.Join(dir, "ca.crt"))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the certificates and keys into (required)")
	cmd.Flags().StringSliceVar(&nodes, "nodes", nil, "node names, comma-separated (e.g. a/s0,b/s0)")
	cmd.Flags().StringSliceVar(&clients, "clients", []string{"client", "admin"}, "client names, comma-separated (client for client processes, admin for the cluster commands)")
	cmd.Flags().StringSliceVar(&hosts, "hosts", nil, "DNS names and IP addresses node certificates are valid for, comma-separated (default localhost,127.0.0.1,::1)")
	cmd.Flags().BoolVar(&force, "force", false, "replace a CA that DIR already holds (with --add-node/--add-client: replace those pairs, never the CA)")
	cmd.Flags().BoolVar(&ifMissing, "if-missing", false, "do nothing (exit 0) when DIR already holds a CA")
	cmd.Flags().StringSliceVar(&addNodes, "add-node", nil, "sign a node certificate with DIR's existing CA (comma-separated or repeated)")
	cmd.Flags().StringSliceVar(&addClients, "add-client", nil, "sign a client certificate with DIR's existing CA (comma-separated or repeated)")
	return cmd
}

// pairFiles names the certificate and key files of node or client name.
func pairFiles(name string) string {
	s := certs.FileStem(name)
	return s + ".crt, " + s + ".key"
}

// addCerts signs the pairs of opts with the CA in dir and says what it
// wrote.
func addCerts(out io.Writer, dir string, opts certs.Options) error {
	err := certs.Add(dir, opts)
	switch {
	case errors.Is(err, certs.ErrNoCA):
		return usageErrorf("certs: %s holds no CA (ca.crt and ca.key) to sign with; make one with: causeway certs --dir %s", dir, dir)
	case errors.Is(err, certs.ErrPairExists):
		return usageErrorf("certs: %v; pass --force to replace it (the CA stays)", err)
	case err != nil:
		return usageErrorf("%v", err)
	}
	fmt.Fprintf(out, "signed with the CA in %s:\n", dir)
	for _, n := range opts.Nodes {
		fmt.Fprintf(out, "  %-24s node %s\n", pairFiles(n), n)
	}
	for _, n := range opts.Clients {
		fmt.Fprintf(out, "  %-24s client %s\n", pairFiles(n), n)
	}
	if len(opts.Nodes) > 0 {
		h := opts.Hosts
		if len(h) == 0 {
			h = certs.DefaultHosts
		}
		fmt.Fprintf(out, "node certificates are valid for %s\n", strings.Join(h, ", "))
	}
	fmt.Fprintf(out, "ca.crt and the other certificates are unchanged; give the new host %s and only its own pair\n", filepath.Join(dir, "ca.crt"))
	return nil
}
