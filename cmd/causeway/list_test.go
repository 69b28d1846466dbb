package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestListingsJSON: -w json lists the same names as the tables, as
// records programs can read.
func TestListingsJSON(t *testing.T) {
	for cmd, want := range map[string]string{"protocols": "karma", "topologies": "karma-aws8", "workloads": "ycsb-95-5"} {
		code, out, errOut := causeway(t, cmd, "-w", "json")
		var recs []map[string]any
		if err := json.Unmarshal([]byte(out), &recs); err != nil || code != 0 {
			t.Errorf("%s -w json: exit %d, %v\n%s%s", cmd, code, err, out, errOut)
			continue
		}
		_, table, _ := causeway(t, cmd)
		if lines := strings.Count(table, "\n"); lines != len(recs) {
			t.Errorf("%s: %d records in JSON, %d lines in the table", cmd, len(recs), lines)
		}
		found := false
		for _, r := range recs {
			if r["name"] == want {
				found = true
				if cmd == "topologies" && r["servers"] != float64(64) {
					t.Errorf("karma-aws8: servers %v, want 64", r["servers"])
				}
				if cmd == "protocols" && r["claims"] != "causal+" {
					t.Errorf("karma: claims %v, want causal+", r["claims"])
				}
			}
		}
		if !found {
			t.Errorf("%s -w json does not list %s:\n%s", cmd, want, out)
		}
		if code, _, errOut := causeway(t, cmd, "-w", "csv"); code != 2 || !strings.Contains(errOut, cmd+": --write-out") {
			t.Errorf("%s -w csv: exit %d, stderr %q; want 2 naming the command", cmd, code, errOut)
		}
	}
}
