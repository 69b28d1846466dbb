package bench

import (
	"testing"
	"time"
)

// TestInterleaveSchedule checks the slices of an interleaved ceiling: they
// alternate ceiling then workload, cover Duration + Ceiling, and the
// ceiling time before any instant is what its slices add up to.
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
		before  time.Duration // ceiling time before at
	}{
		{0, true, 125 * time.Millisecond, 0},
		{100 * time.Millisecond, true, 125 * time.Millisecond, 100 * time.Millisecond},
		{125 * time.Millisecond, false, 0, 125 * time.Millisecond},
		{600 * time.Millisecond, false, 0, 125 * time.Millisecond},
		{625 * time.Millisecond, true, 750 * time.Millisecond, 125 * time.Millisecond},
		{700 * time.Millisecond, true, 750 * time.Millisecond, 200 * time.Millisecond},
		{12400 * time.Millisecond, false, 0, 2500 * time.Millisecond},
		{13 * time.Second, false, 0, 2500 * time.Millisecond}, // after the end
		{-time.Second, false, 0, 0},
	} {
		until, ok := s.ceilingUntil(t0.Add(c.at))
		if ok != c.ceiling || (ok && until.Sub(t0) != c.until) {
			t.Errorf("at %v: ceiling %v until %v, want %v until %v", c.at, ok, until.Sub(t0), c.ceiling, c.until)
		}
		if got := s.ceilingBefore(t0.Add(c.at)); got != c.before {
			t.Errorf("ceiling time before %v = %v, want %v", c.at, got, c.before)
		}
	}
	// No ceiling: never in a ceiling slice, the run lasts Duration.
	n := newInterleave(t0, 3*time.Second, 0)
	if _, ok := n.ceilingUntil(t0); ok || n.end().Sub(t0) != 3*time.Second || n.ceilingBefore(t0.Add(time.Hour)) != 0 {
		t.Errorf("a schedule without ceiling: %+v", n)
	}
}
