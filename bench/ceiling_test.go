package bench

import (
	"testing"
	"time"
)

// TestInterleaveSchedule checks the slices of an interleaved ceiling: they
// alternate ceiling then workload and cover Duration + Ceiling.
func TestInterleaveSchedule(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := newInterleave(t0, 10*time.Second, 2500*time.Millisecond)
	if s.slices != 20 || s.ceil != 125*time.Millisecond || s.work != 500*time.Millisecond {
		t.Fatalf("schedule = %d slices of %v + %v, want 20 of 125ms + 500ms", s.slices, s.ceil, s.work)
	}
	if got := s.end().Sub(t0); got != 12500*time.Millisecond {
		t.Errorf("ends %v after t0, want 12.5s", got)
	}
	for _, c := range []struct {
		at      time.Duration
		ceiling bool
		until   time.Duration // end of the ceiling slice
	}{
		{0, true, 125 * time.Millisecond},
		{100 * time.Millisecond, true, 125 * time.Millisecond},
		{125 * time.Millisecond, false, 0},
		{600 * time.Millisecond, false, 0},
		{625 * time.Millisecond, true, 750 * time.Millisecond},
		{700 * time.Millisecond, true, 750 * time.Millisecond},
		{12400 * time.Millisecond, false, 0},
		{13 * time.Second, false, 0}, // after the end
		{-time.Second, false, 0},
	} {
		until, ok := s.ceilingUntil(t0.Add(c.at))
		if ok != c.ceiling || (ok && until.Sub(t0) != c.until) {
			t.Errorf("at %v: ceiling %v until %v, want %v until %v", c.at, ok, until.Sub(t0), c.ceiling, c.until)
		}
	}
	// No ceiling: never in a ceiling slice, the run lasts Duration.
	n := newInterleave(t0, 3*time.Second, 0)
	if _, ok := n.ceilingUntil(t0); ok || n.end().Sub(t0) != 3*time.Second {
		t.Errorf("a schedule without ceiling: %+v", n)
	}
}

// TestSliceTimesRates checks the rates of an interleaved run from the
// clients' own time: 4 clients that pinged 1000 times in 2 client-seconds
// in all had a ceiling of 2000 round trips/s, and 8 client-seconds of
// workload are 2 s per client.
func TestSliceTimesRates(t *testing.T) {
	var s sliceTimes
	s.pings.Store(1000)
	s.pingTime.Store(int64(2 * time.Second))
	s.work.Store(int64(8 * time.Second))
	work, ceiling := s.rates(4)
	if work != 2*time.Second || ceiling != 2000 {
		t.Errorf("rates = %v, %v; want 2s, 2000", work, ceiling)
	}
	var none sliceTimes
	if _, c := none.rates(4); c != 0 {
		t.Errorf("ceiling with no pings = %v, want 0", c)
	}
}
