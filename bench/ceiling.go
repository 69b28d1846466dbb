package bench

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/causeway/causeway/runtime/node"
)

// The interleaved ceiling.
//
// A live run's ceiling_fraction compares the workload's throughput with
// the no-op ceiling: what the same clients achieve when the servers'
// hosts answer Pings without running the protocol. On a shared machine
// the capacity left to the run drifts by tens of percent within seconds,
// so a ceiling measured in a window of its own (before the workload)
// compared two different machines, and identical runs reported
// fractions from 0.3 to 1.15. So the ceiling is measured in the same
// window as the workload: the run alternates short ceiling slices and
// workload slices ([C W C W …], ceilingSlices pairs), every client pinging
// during a C slice and running the workload during a W slice, and the
// fraction compares operations per second of W time with round trips per
// second of C time. Drift slower than a slice pair affects both alike.

// ceilingSlices is the number of ceiling/workload slice pairs of a run
// of duration d: one per half second, at least 1 and at most 40.
func ceilingSlices(d time.Duration) int {
	return min(max(int(d/(500*time.Millisecond)), 1), 40)
}

// interleave is the schedule of a run with an interleaved ceiling,
// starting at t0: slices pairs, each a ceiling slice of length ceil
// followed by a workload slice of length work.
type interleave struct {
	t0         time.Time
	ceil, work time.Duration
	slices     int
}

// newInterleave splits the workload's duration and the ceiling's into
// slice pairs from t0 (ceiling 0: no ceiling slices).
func newInterleave(t0 time.Time, workload, ceiling time.Duration) interleave {
	n := ceilingSlices(workload)
	return interleave{t0: t0, ceil: ceiling / time.Duration(n), work: workload / time.Duration(n), slices: n}
}

// end is when the schedule ends.
func (s interleave) end() time.Time {
	return s.t0.Add(time.Duration(s.slices) * (s.ceil + s.work))
}

// ceilingUntil reports whether t falls in a ceiling slice, and when that
// slice ends.
func (s interleave) ceilingUntil(t time.Time) (time.Time, bool) {
	if s.ceil <= 0 || t.Before(s.t0) || !t.Before(s.end()) {
		return time.Time{}, false
	}
	pair := s.ceil + s.work
	k := t.Sub(s.t0) / pair
	start := s.t0.Add(k * pair)
	if t.Sub(start) < s.ceil {
		return start.Add(s.ceil), true
	}
	return time.Time{}, false
}

// ceilingBefore is the ceiling time of the schedule before t.
func (s interleave) ceilingBefore(t time.Time) time.Duration {
	if s.ceil <= 0 || !t.After(s.t0) {
		return 0
	}
	pair := s.ceil + s.work
	e := min(t.Sub(s.t0), time.Duration(s.slices)*pair)
	k := e / pair
	return k*s.ceil + min(e-k*pair, s.ceil)
}

// pingUntil has a client ping a node of its DC in a closed loop until end
// (or ctx ends), counting the round trips completed in done.
func pingUntil(ctx context.Context, cc *node.ClientConn, id int, end time.Time, timeout time.Duration, done *atomic.Int64) {
	for time.Now().Before(end) && ctx.Err() == nil {
		pctx, cancel := context.WithTimeout(ctx, timeout)
		err := cc.Ping(pctx, id)
		cancel()
		if err == nil {
			done.Add(1)
		}
	}
}
