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
//
// A client finishes the operation it has outstanding when a C slice
// begins (a few milliseconds, or hundreds under load, against slices of
// about a hundred), and the ping it has outstanding when the slice ends.
// So the slices' nominal lengths are not what the clients spent: each
// client adds up its own time pinging (from its first ping of a slice to
// the end of its last) and the rest of its time, and the rates are
// counts per client-second times the number of clients (sliceTimes). For
// a closed loop that is the rate of the same clients doing only that.

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

// sliceTimes adds up what the clients of an interleaved run did: round
// trips and time spent pinging, and time spent on the workload (its
// operations and any wait between them), in nanoseconds.
type sliceTimes struct {
	pings, pingTime, work atomic.Int64
}

// ping has a client that has run the workload since mark ping a node of
// its DC in a closed loop until end (or ctx ends), and returns when it
// stopped: the client's new mark.
func (s *sliceTimes) ping(ctx context.Context, cc *node.ClientConn, id int, mark, end time.Time, timeout time.Duration) time.Time {
	start := time.Now()
	s.work.Add(int64(start.Sub(mark)))
	bs := newBackstop(ctx, timeout)
	defer bs.close()
	for time.Now().Before(end) && ctx.Err() == nil {
		err := cc.Ping(bs.start(), id)
		bs.stop()
		if err == nil {
			s.pings.Add(1)
		}
	}
	stop := time.Now()
	s.pingTime.Add(int64(stop.Sub(start)))
	return stop
}

// rates returns, for n clients, the workload's length per client (the
// duration throughput is computed over) and the ceiling in round trips
// per second (0 if no client pinged).
func (s *sliceTimes) rates(n int) (time.Duration, float64) {
	work := time.Duration(s.work.Load() / int64(n))
	var ceiling float64
	if pt := time.Duration(s.pingTime.Load()); pt > 0 {
		ceiling = float64(s.pings.Load()) * float64(n) / pt.Seconds()
	}
	return work, ceiling
}
