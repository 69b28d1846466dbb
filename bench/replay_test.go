package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// TestReplayCommandJitter: the replay command says the run's jitter in
// the CLI's terms, which refuse negative values: none is --jitter 0, the
// topology's own is the flag left out.
func TestReplayCommandJitter(t *testing.T) {
	p, err := protocol.Lookup("cops")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		t.Fatal(err)
	}
	spec := SimSpec{Protocol: p, Topology: topo, Workload: w, Duration: time.Second, Clients: 3, OpTimeout: time.Second}
	for jitter, want := range map[time.Duration]string{-1: " --jitter 0", 0: "", 20 * time.Millisecond: " --jitter 20ms"} {
		spec.Jitter = jitter
		cmd := ReplayCommand(spec, "")
		if want == "" && strings.Contains(cmd, "--jitter") || want != "" && !strings.Contains(cmd, want) || strings.Contains(cmd, "--jitter -") {
			t.Errorf("jitter %v: %s; want %q", jitter, cmd, want)
		}
	}
}
