package nemesis

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/causeway/causeway/faults"
)

// TestDefaultSimScheduleFollowsDefault checks that the simulator twin of
// the default live schedule (testdata/default_sim.yaml) parses as a fault
// schedule for local3 and has a fault at every time the live schedule
// has an event (a timed delay's end counts: it is a resume), with the same time of the final heal: a change to
// default.yaml that is not carried over fails here.
func TestDefaultSimScheduleFollowsDefault(t *testing.T) {
	cfg := testConfig(t, "karma")
	live, err := Parse([]byte(DefaultSchedule), cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/default_sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := faults.Parse(data, cfg.Topology)
	if err != nil {
		t.Fatal(err)
	}
	var simAt []time.Duration
	for _, e := range sim {
		simAt = append(simAt, e.At)
		if e.Delay != nil && e.Delay.For > 0 {
			simAt = append(simAt, e.At+e.Delay.For) // a pause's resume
		}
	}
	for _, e := range live {
		if !slices.Contains(simAt, e.At) {
			t.Errorf("live event %s has no simulator counterpart at %v", e, e.At)
		}
	}
	if last := sim[len(sim)-1]; last.At != live.End() {
		t.Errorf("simulator schedule ends at %v, the live one at %v", last.At, live.End())
	}
}
