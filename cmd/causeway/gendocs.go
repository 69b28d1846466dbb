package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/internal/docgen"
)

// genDocsCmd is the hidden `causeway gen-docs [DIR]` behind `make docs`:
// it regenerates the CLI reference, the protocol pages and the generated
// blocks of the hand-written pages of DIR (default docs) from the code
// (package internal/docgen). With --check it changes nothing and fails,
// listing the stale files, when DIR is not up to date.
func genDocsCmd() *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:    "gen-docs [DIR]",
		Short:  "Regenerate docs/ (CLI reference, protocol pages, generated blocks) from the code",
		Hidden: true,
		Args:   cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "docs"
			if len(args) == 1 {
				dir = args[0]
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return usageErrorf("gen-docs: %s is not a directory", dir)
			}
			moduleDir, err := findModuleRoot(dir)
			if err != nil {
				return usageErrorf("gen-docs: %v", err)
			}
			files, err := docgen.Generate(cmd.Root(), moduleDir, dir)
			if err != nil {
				return failuref("gen-docs: %v", err)
			}
			if check {
				stale, err := docgen.Stale(dir, files)
				if err != nil {
					return failuref("gen-docs: %v", err)
				}
				if len(stale) > 0 {
					return failuref("gen-docs: %s is stale (%s); run `%s`", dir, strings.Join(stale, ", "), docgen.RegenerateCommand)
				}
				return nil
			}
			changed, err := docgen.Write(dir, files)
			if err != nil {
				return failuref("gen-docs: %v", err)
			}
			for _, c := range changed {
				fmt.Fprintln(cmd.OutOrStdout(), filepath.Join(dir, filepath.FromSlash(c)))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "change nothing; fail listing the stale files")
	return cmd
}

// findModuleRoot returns the directory holding go.mod at or above dir.
func findModuleRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("run it inside the repository: no go.mod at or above " + abs)
		}
	}
}
