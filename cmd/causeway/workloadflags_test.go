package main

import (
	"testing"

	"github.com/causeway/causeway/workload"
)

// TestWorkloadFlagsKeepAPresetsPlacement checks that a preset that
// restricts keys itself (c3-remote) keeps its placement when --local-keys
// is left out, and that --local-keys still restricts any workload.
func TestWorkloadFlagsKeepAPresetsPlacement(t *testing.T) {
	w, err := workload.Lookup("c3-remote")
	if err != nil {
		t.Fatal(err)
	}
	got, err := (&workloadFlags{}).apply(w)
	if err != nil || !got.LocalKeys || got.RemoteRun != workload.C3RemoteRun || got.Name != "c3-remote" {
		t.Errorf("c3-remote without flags: %+v, %v", got, err)
	}
	a, err := workload.Lookup("ycsb-a")
	if err != nil {
		t.Fatal(err)
	}
	got, err = (&workloadFlags{localKeys: true, remoteFraction: 0.1}).apply(a)
	if err != nil || !got.LocalKeys || got.RemoteFraction != 0.1 {
		t.Errorf("ycsb-a --local-keys --remote-fraction 0.1: %+v, %v", got, err)
	}
	if got, _ := (&workloadFlags{}).apply(a); got.LocalKeys {
		t.Error("ycsb-a without --local-keys restricted its keys")
	}
}
