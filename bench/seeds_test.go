package bench

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"gopkg.in/yaml.v3"
)

// seedCount is how many seeds a randomized test runs: def, unless the
// environment variable CAUSEWAY_SEEDS asks for more (make seeds-long sets
// it to 200) or -short or the race detector ask for fewer (short).
func seedCount(t testing.TB, def, short int) int {
	if s := os.Getenv("CAUSEWAY_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("CAUSEWAY_SEEDS=%q: want a positive number of seeds", s)
		}
		return n
	}
	if testing.Short() || raceEnabled {
		return short
	}
	return def
}

// shrinkRuns bounds the simulations a failed randomized run is shrunk
// with before its replay is printed.
const shrinkRuns = 30

// replay explains how to replay a failed randomized run: shrunk first
// (bench.Shrink; not under -short or the race detector, where it would
// take too long), then as a command line and the fault schedule to save
// beside it.
func replay(t testing.TB, spec SimSpec, res *Result) string {
	t.Helper()
	how := "replay"
	if !testing.Short() && !raceEnabled {
		got, err := Shrink(spec, func(r *Result) bool { return !r.Check.OK }, shrinkRuns)
		if err != nil {
			t.Logf("shrink: %v", err)
		} else {
			how = fmt.Sprintf("shrunk in %d runs to %d fault events (from %d), %v, %d clients, %d operations (from %d), failing with %s; replay",
				got.Runs, len(got.Spec.Faults), len(spec.Faults), got.Spec.Duration, got.Spec.Clients, got.Result.Ops, res.Ops,
				got.Result.Check.FirstViolation())
			spec = got.Spec
		}
	}
	if len(spec.Faults) == 0 {
		return how + ": " + ReplayCommand(spec, "")
	}
	schedule, err := yaml.Marshal(spec.Faults)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s: save the schedule below as shrunk.yaml, then %s\n%s", how, ReplayCommand(spec, "shrunk.yaml"), schedule)
}
