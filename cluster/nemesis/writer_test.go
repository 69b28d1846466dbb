package nemesis

import (
	"context"
	"errors"
	"testing"
	"time"
)

// instantPutter answers every put at once, with err; with stop set, it
// closes stop at its limit-th put.
type instantPutter struct {
	err   error
	puts  int
	limit int
	stop  chan struct{}
}

func (p *instantPutter) Put(context.Context, string, []byte) error {
	p.puts++
	if p.stop != nil && p.puts == p.limit {
		close(p.stop)
	}
	return p.err
}

// pauses runs a writer against p until it has asked for n pauses, and
// returns them.
func pauses(t *testing.T, p putter, rate float64, n int) []time.Duration {
	t.Helper()
	var got []time.Duration
	stop := make(chan struct{})
	w := writerSpec{name: "w", dc: "a", keys: 2, timeout: time.Second, rate: rate,
		wait: func(d time.Duration, _ <-chan struct{}) bool {
			got = append(got, d)
			return len(got) < n
		}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		write(p, w, &AckLog{}, stop, time.Now())
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		close(stop)
		<-done
		t.Fatalf("rate %g: the writer asked for %d pauses in 10 s, want %d", rate, len(got), n)
	}
	return got
}

// TestWriterKeepsToItsRate: a writer with a rate pauses after each put so
// that the next starts one interval (1/rate) after it, however fast the
// store answers; one without a rate puts again at once (no pause); a
// failed put pauses at least 100 ms whatever the rate.
func TestWriterKeepsToItsRate(t *testing.T) {
	for _, d := range pauses(t, &instantPutter{}, 50, 5) {
		if d <= 15*time.Millisecond || d > 20*time.Millisecond {
			t.Errorf("rate 50/s: paused %v after an instant put, want just under 20ms", d)
		}
	}
	p := &instantPutter{limit: 1000, stop: make(chan struct{})}
	var asked []time.Duration
	w := writerSpec{name: "w", dc: "a", keys: 2, timeout: time.Second,
		wait: func(d time.Duration, _ <-chan struct{}) bool { asked = append(asked, d); return true }}
	write(p, w, &AckLog{}, p.stop, time.Now())
	if len(asked) != 0 {
		t.Errorf("no rate: paused %d times (%v…), want never", len(asked), asked[0])
	}
	for _, d := range pauses(t, &instantPutter{err: errors.New("unavailable")}, 50, 3) {
		if d < 100*time.Millisecond {
			t.Errorf("a failed put: paused %v, want at least 100ms", d)
		}
	}
}
