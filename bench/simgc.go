package bench

import (
	"os"
	"runtime/debug"
	"sync"
)

// SimGCPercent is the garbage collector's target (debug.SetGCPercent)
// while RunSim runs, unless the GOGC environment variable is set, which
// then decides as usual. A simulation allocates fast (messages, events,
// replies: ~200 MB in BenchmarkSimulator's 2 s run) and keeps little (the
// history's columns, the servers' stores, ~50 MB at the end of that run),
// so at Go's default of 100 it collects every few dozen MB, seven times
// in that run, and the collector is about a tenth of its CPU. At 400 the
// heap may grow to five times what is live before a collection instead of
// twice: fewer collections, the same work per collection, and memory
// still proportional to what the run keeps (peak RSS in
// docs/performance.md, "Simulator, sixth round"). RunSims running at once
// share the setting; the last to finish restores what was set before the
// first began.
const SimGCPercent = 400

// simGC counts the RunSims under way that set SimGCPercent, and keeps the
// setting the first found.
var simGC struct {
	sync.Mutex
	running int
	prev    int
}

// tuneGCForSim sets SimGCPercent for a RunSim (unless GOGC is set) and
// returns the function that undoes it when the run is over.
func tuneGCForSim() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	simGC.Lock()
	if simGC.running == 0 {
		simGC.prev = debug.SetGCPercent(SimGCPercent)
	}
	simGC.running++
	simGC.Unlock()
	return func() {
		simGC.Lock()
		simGC.running--
		if simGC.running == 0 {
			debug.SetGCPercent(simGC.prev)
		}
		simGC.Unlock()
	}
}
