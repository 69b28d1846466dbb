package nemesis

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/causeway/causeway/cluster"
)

// fakeTarget records what the executor asks of it.
type fakeTarget struct{ calls []string }

func (f *fakeTarget) log(format string, args ...any) error {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	return nil
}
func (f *fakeTarget) Kill(_ context.Context, id string) error   { return f.log("kill %s", id) }
func (f *fakeTarget) Pause(_ context.Context, id string) error  { return f.log("pause %s", id) }
func (f *fakeTarget) Resume(_ context.Context, id string) error { return f.log("resume %s", id) }
func (f *fakeTarget) Restart(_ context.Context, ids []string) error {
	return f.log("restart %s", strings.Join(ids, ","))
}
func (f *fakeTarget) Links(_ context.Context, plan map[string]cluster.LinkChange) error {
	var ids []string
	for id := range plan {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return f.log("links %s", strings.Join(ids, ","))
}
func (f *fakeTarget) ResetLinks(context.Context) error { return f.log("reset links") }
func (f *fakeTarget) ClockOffset(_ context.Context, ids []string, ms int64) error {
	return f.log("clock %s %d", strings.Join(ids, ","), ms)
}

// TestExecutorMendsWhatItBroke: link faults skip nodes that are down, a
// node restarted inside a partition gets its rules again, and heal: all
// resumes, restarts and resets everything it broke, once.
func TestExecutorMendsWhatItBroke(t *testing.T) {
	cfg := testConfig(t, "cops")
	s, err := Parse([]byte(`
- {at: 0s, kill: "node:c/s0"}
- {at: 0s, kill: "node:c/s0"}
- {at: 0s, pause: "node:a/s1"}
- {at: 1s, partition: {dc: c}}
- {at: 2s, restart: "node:c/s0"}
- {at: 3s, kill: "node:b/s0"}
- {at: 3s, clock_skew: {target: "node:a/*", ms: 500}}
- {at: 4s, heal: all}
`), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeTarget{}
	x := newExecutor(cfg, f)
	for _, e := range s {
		if err := x.apply(context.Background(), e); err != nil {
			t.Fatalf("%v: %v", e, err)
		}
	}
	want := []string{
		"kill c/s0",
		"pause a/s1",
		"links a/s0,b/s0,b/s1,c/s1", // not the killed c/s0, not the paused a/s1
		"restart c/s0",
		"links c/s0", // its part of the partition, again
		"kill b/s0",
		"clock a/s0 500", // a/s1 is paused
		"resume a/s1",
		"restart b/s0",
		"reset links",
		"clock a/s0,a/s1 0",
	}
	if strings.Join(f.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n  %s\nwant:\n  %s", strings.Join(f.calls, "\n  "), strings.Join(want, "\n  "))
	}
}
