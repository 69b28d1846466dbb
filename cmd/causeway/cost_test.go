package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimCostFlag runs sim with the default cost model and with a YAML
// file, and refuses a file that does not parse.
func TestSimCostFlag(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cost.yaml")
	if err := os.WriteFile(file, []byte("classes: {control: 0.1}\nper_kb: 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cost := range []string{"default", file} {
		code, out, errOut := causeway(t, "sim", "--protocol", "cops", "--topology", "local3", "--duration", "200ms",
			"--clients", "3", "--cost", cost, "--json")
		if code != 0 || !strings.Contains(out, `"metadata_bytes_per_write"`) {
			t.Errorf("sim --cost %s: exit %d, want 0 and metadata_bytes_per_write in the result\n%s\n%s", cost, code, out, errOut)
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("classes: {acks: 0.1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cost := range []string{bad, filepath.Join(dir, "missing.yaml")} {
		if code, _, errOut := causeway(t, "sim", "--cost", cost); code != 2 || errOut == "" {
			t.Errorf("sim --cost %s: exit %d, stderr %q; want 2 and an error", cost, code, errOut)
		}
	}
}
