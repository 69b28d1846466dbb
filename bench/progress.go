package bench

import "time"

// Progress is how far a run has got, handed to SimSpec.Progress and
// LiveSpec.Progress as the run's clock advances: virtual time in the
// simulator (every 1/50 of the duration, whether or not anyone listens,
// so that listening changes nothing), the wall clock in a live run
// (about once a second). What a caller does with it — a bar, an estimate
// of the time left, status lines — is up to it (cmd/causeway/progress.go).
type Progress struct {
	// Done and Total are the run's clock and its duration.
	Done, Total time.Duration
	// Ops and Errors count the operations completed so far without and
	// with an error.
	Ops, Errors int64
	rec         *Recorder
}

// Window is what completed since the previous Progress.Window call (or
// since the run started): the go-ycsb status line's figures.
type Window struct {
	// Since is the run's clock at the start of the window.
	Since time.Duration
	// Ops and Errors count the operations completed in the window.
	Ops, Errors int64
	// LatencyMs summarises their latencies by operation type.
	LatencyMs map[string]Latency
}

// Window returns what completed since the previous call and starts a new
// window at p.Done. The run's result does not depend on it: windows are
// kept apart from the run's own statistics.
func (p Progress) Window() Window {
	if p.rec == nil {
		return Window{LatencyMs: map[string]Latency{}}
	}
	return p.rec.takeWindow(p.Done)
}

// watch starts the first window; call it before the run's first
// operation when the run reports progress.
func (r *Recorder) watch() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.window = newOpStats()
}

// progress returns the recorder's counts at done of total.
func (r *Recorder) progress(done, total time.Duration) Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Progress{Done: done, Total: total, Ops: r.all.ok, Errors: r.all.errs, rec: r}
}

// takeWindow returns the current window and starts the next at now.
func (r *Recorder) takeWindow(now time.Duration) Window {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.window
	if w == nil {
		w = newOpStats()
	}
	out := Window{Since: r.windowStart, Ops: w.ok, Errors: w.errs, LatencyMs: w.latency()}
	r.window, r.windowStart = newOpStats(), now
	return out
}
