package main

import "github.com/spf13/cobra"

// Environment variables that give flags their defaults, as ETCDCTL_ENDPOINTS
// does for etcdctl: a flag on the command line always wins.
const (
	// envCluster is the cluster directory (or cluster.yaml) of --cluster
	// and of the cluster commands' --dir.
	envCluster = "CAUSEWAY_CLUSTER"
	// envDC is the datacenter of --dc.
	envDC = "CAUSEWAY_DC"
)

// applyEnvDefaults makes $CAUSEWAY_CLUSTER the default of every --cluster
// flag and of the --dir flag of every 'cluster' subcommand, and
// $CAUSEWAY_DC the default of every --dc flag, in the command tree under
// root. getenv reads the environment (os.Getenv); an empty variable
// changes nothing. Each such flag's help names its variable, and a default
// from the environment shows in --help; flags parsed later override it.
func applyEnvDefaults(root *cobra.Command, getenv func(string) string) {
	cl, dc := getenv(envCluster), getenv(envDC)
	var walk func(cmd *cobra.Command, underCluster bool)
	walk = func(cmd *cobra.Command, underCluster bool) {
		set := func(name, env, v string) {
			f := cmd.Flags().Lookup(name)
			if f == nil {
				return
			}
			f.Usage += " [$" + env + "]"
			// Set the value and the default shown in --help, without
			// marking the flag changed.
			if v != "" && f.Value.Set(v) == nil {
				f.DefValue = v
			}
		}
		set("cluster", envCluster, cl)
		if underCluster {
			set("dir", envCluster, cl)
		}
		set("dc", envDC, dc)
		for _, c := range cmd.Commands() {
			walk(c, underCluster || (cmd == root && c.Name() == "cluster"))
		}
	}
	walk(root, false)
}
