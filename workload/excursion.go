package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// C3's workloads (c3.txt §5.2): YCSB with 50% reads and 50% writes over a
// zipfian key space, each client on keys its home DC stores (local mode),
// or making remote excursions (remote mode). The paper gives neither the
// key count, the value size nor the zipf constant; we take 100,000 keys,
// 1 KB values and YCSB's 0.99.
const (
	// C3Records is the key count of the c3 workloads.
	C3Records = 100_000
	// C3ValueSize is their value size in bytes.
	C3ValueSize = 1024
	// C3LocalRun and C3RemoteRun are the means of the Poisson run lengths
	// of the remote mode: 95 local operations, a migration, 5 remote
	// operations, a migration back (§5.2).
	C3LocalRun  = 95
	C3RemoteRun = 5
)

func init() {
	local := preset("c3-local", "c3.txt §5.2 local mode: 50% reads / 50% updates, zipfian over 100k keys of 1 KB, every key stored in the client's DC",
		0.5, 0.5, 0, 0, DistZipfian)
	local.RecordCount, local.ValueSize, local.LocalKeys = C3Records, C3ValueSize, true
	remote := local
	remote.Name = "c3-remote"
	remote.Summary = "c3.txt §5.2 remote mode: c3-local's mix and keys in runs of Poisson(95) local operations and Poisson(5) operations on one remote replica group"
	remote.LocalRun, remote.RemoteRun = C3LocalRun, C3RemoteRun
	presets[local.Name], presets[remote.Name] = local, remote
}

// validateRuns checks LocalRun and RemoteRun.
func (w Workload) validateRuns() error {
	ok := func(f float64) bool { return f >= 0 && f <= 1e6 }
	if !ok(w.LocalRun) || !ok(w.RemoteRun) {
		return fmt.Errorf("workload %q: LocalRun %v and RemoteRun %v must be in [0, 1e6]", w.Name, w.LocalRun, w.RemoteRun)
	}
	return nil
}

// SetGroup gives the client its replica-group oracle: two keys with the
// same group are stored in the same DCs. A remote excursion (RemoteRun)
// then draws every key from the group of its first key, so that a client
// of a migrating protocol migrates once per excursion; without it, an
// excursion's keys are only remote.
func (c *Client) SetGroup(group func(key string) string) {
	c.group = group
}

// runState is where a client is in its alternation of local runs and
// remote excursions.
type runState struct {
	// started is set once the first local run was drawn.
	started bool
	// remote is set during an excursion; left is the number of operations
	// left in the current run.
	remote bool
	left   int
	// group is the replica group of the current excursion ("" until its
	// first key is drawn).
	group string
}

// nextInRun advances the alternation by one operation and reports
// whether that operation is local. A run of length 0 is skipped.
func (c *Client) nextInRun() bool {
	r := &c.runs
	for r.left == 0 {
		switch {
		case !r.started:
			// A client starts at a random point of its first local run
			// (uniform over a Poisson(LocalRun) run), as in a steady
			// state: started at its beginning, a client that runs fewer
			// operations than LocalRun (c3.txt §5.2's 71 per thread at 350
			// threads) would mostly never leave home.
			r.started = true
			r.left = c.rng.IntN(poisson(c.rng, c.w.LocalRun) + 1)
		case r.remote:
			r.remote = false
			r.left = poisson(c.rng, c.w.LocalRun)
		default:
			r.remote, r.group = true, ""
			r.left = poisson(c.rng, c.w.RemoteRun)
		}
	}
	r.left--
	return !r.remote
}

// joinExcursion fixes the current excursion's group to key's, if the
// excursion has none yet and key is remote.
func (c *Client) joinExcursion(key string) {
	if c.w.RemoteRun > 0 && c.runs.remote && c.runs.group == "" && c.group != nil && !c.local(key) {
		c.runs.group = c.group(key)
	}
}

// poisson draws from a Poisson distribution of mean lambda ≥ 0: Knuth's
// product of uniforms (O(lambda) draws), splitting large means so that
// e^-lambda stays a normal float64.
func poisson(r *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	if lambda > 500 {
		half := lambda / 2
		return poisson(r, half) + poisson(r, lambda-half)
	}
	limit := math.Exp(-lambda)
	n, p := 0, r.Float64()
	for p > limit {
		n++
		p *= r.Float64()
	}
	return n
}
