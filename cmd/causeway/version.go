package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// versionInfo is what `causeway version` prints.
type versionInfo struct {
	// Version is the main module's version: a tag or pseudo-version for
	// `go install …@version`, "(devel)" for a build from a checkout.
	Version string `json:"version"`
	// Commit, CommitTime and Modified come from the VCS stamp of a build
	// from a checkout (absent under `go run` and `go test`).
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	GoVersion  string `json:"go_version"`
	Platform   string `json:"platform"`
}

// buildVersion reads the binary's build information.
func buildVersion() versionInfo {
	v := versionInfo{Version: "unknown", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func versionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version of this binary",
		Long: `Version prints the module version of this binary ("(devel)" for a build
from a checkout), the commit it was built from with its time and whether
the tree had local changes (from the build's VCS stamp: absent under go
run), the Go version and the platform. -w json prints the same as one
document (version, commit, commit_time, modified, go_version, platform).`,
		Args: cobra.NoArgs,
	}
	w := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := validateOutput("version", *w); err != nil {
			return err
		}
		v := buildVersion()
		if *w == outputJSON {
			return writeJSON(cmd.OutOrStdout(), v)
		}
		tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "version\t%s\n", v.Version)
		if v.Commit != "" {
			mod := ""
			if v.Modified {
				mod = " (modified)"
			}
			fmt.Fprintf(tw, "commit\t%s%s\n", v.Commit, mod)
		}
		if v.CommitTime != "" {
			fmt.Fprintf(tw, "commit time\t%s\n", v.CommitTime)
		}
		fmt.Fprintf(tw, "go\t%s\n", v.GoVersion)
		fmt.Fprintf(tw, "platform\t%s\n", v.Platform)
		return tw.Flush()
	}
	return cmd
}
