package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/bench"
)

// defaultStatusInterval is how often, in wall-clock time, a run prints a
// status line when progress is shown and --status-interval is not given
// (go-ycsb's status.interval).
const defaultStatusInterval = 10 * time.Second

// progressFlags are --progress and --status-interval, shared by sim,
// bench and repro. Progress goes to stderr, never to stdout, so it cannot
// spoil -w json or --json output.
type progressFlags struct {
	progress bool
	interval time.Duration
	cmd      *cobra.Command
}

// register adds the flags to cmd.
func (f *progressFlags) register(cmd *cobra.Command) {
	f.cmd = cmd
	fl := cmd.Flags()
	fl.BoolVar(&f.progress, "progress", false, "show progress on stderr: a bar with the time left when stderr is a terminal, and status lines (default: only when stderr is a terminal; --progress=false: never)")
	fl.DurationVar(&f.interval, "status-interval", 0, fmt.Sprintf("print a status line (ops/s, latency percentiles, errors) on stderr every this much wall-clock time; implies --progress (default %v when progress is shown)", defaultStatusInterval))
}

// validate rejects a negative --status-interval.
func (f *progressFlags) validate(cmdName string) error {
	if f.interval < 0 {
		return usageErrorf("%s: --status-interval %v: must be positive", cmdName, f.interval)
	}
	return nil
}

// reporter returns the progress callback of a run labelled label that
// writes to w, or nil when progress is not to be shown.
func (f *progressFlags) reporter(w io.Writer, label string) func(bench.Progress) {
	term := isTerminal(w)
	show := term
	if f.cmd != nil && f.cmd.Flags().Changed("progress") {
		show = f.progress
	}
	if f.interval > 0 {
		show = true
	}
	if !show {
		return nil
	}
	interval := f.interval
	if interval == 0 {
		interval = defaultStatusInterval
	}
	return newReporter(w, label, term, interval, time.Now).report
}

// progressBar returns a progress callback that draws a bar with the time
// left on w when w is a terminal, and nil otherwise.
func progressBar(w io.Writer, label string) func(bench.Progress) {
	if !isTerminal(w) {
		return nil
	}
	return newReporter(w, label, true, 0, time.Now).report
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// reporter turns a run's progress into a bar redrawn in place (bar) and
// status lines every interval of wall-clock time (0: none). The run's
// own clock (virtual in the simulator) says how far it is; the wall clock
// only says how long that took, to estimate the time left.
type reporter struct {
	w        io.Writer
	label    string
	bar      bool
	interval time.Duration
	now      func() time.Time

	started, lastStatus time.Time
	drawn               bool // a bar is on the current line
}

// newReporter returns a reporter whose run starts now.
func newReporter(w io.Writer, label string, bar bool, interval time.Duration, now func() time.Time) *reporter {
	t := now()
	return &reporter{w: w, label: label, bar: bar, interval: interval, now: now, started: t, lastStatus: t}
}

// report is the bench.Progress callback.
func (r *reporter) report(p bench.Progress) {
	now := r.now()
	finished := p.Done >= p.Total
	if r.interval > 0 && (now.Sub(r.lastStatus) >= r.interval || finished) {
		r.lastStatus = now
		r.clear()
		fmt.Fprintln(r.w, r.statusLine(p, p.Window(), now))
	}
	if !r.bar {
		return
	}
	if finished {
		r.clear()
		return
	}
	const width = 30
	n := int(float64(width) * fraction(p))
	fmt.Fprintf(r.w, "\r%-12s [%s%s] %5.1f%% of %v  ETA %s", r.label, strings.Repeat("#", n), strings.Repeat(".", width-n),
		100*fraction(p), p.Total, r.eta(p, now))
	r.drawn = true
}

// clear erases the bar from the current line.
func (r *reporter) clear() {
	if r.drawn {
		fmt.Fprint(r.w, "\r\033[K")
		r.drawn = false
	}
}

// fraction is how much of the run is done, in [0, 1].
func fraction(p bench.Progress) float64 {
	if p.Total <= 0 {
		return 1
	}
	return min(1, max(0, float64(p.Done)/float64(p.Total)))
}

// eta estimates the wall-clock time left from the pace so far.
func (r *reporter) eta(p bench.Progress, now time.Time) string {
	f := fraction(p)
	if f <= 0 {
		return "?"
	}
	spent := now.Sub(r.started)
	return (time.Duration(float64(spent) * (1 - f) / f)).Round(time.Second).String()
}

// statusLine is one go-ycsb-style line: the run's clock, the time left,
// operations so far, and the window's rate, latencies and errors.
func (r *reporter) statusLine(p bench.Progress, w bench.Window, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v/%v %3.0f%% ETA %s: %d ops", r.label, p.Done.Round(time.Millisecond), p.Total,
		100*fraction(p), r.eta(p, now), p.Ops)
	if span := (p.Done - w.Since).Seconds(); span > 0 {
		fmt.Fprintf(&b, ", %.1f ops/s", float64(w.Ops)/span)
	}
	ops := make([]string, 0, len(w.LatencyMs))
	for op := range w.LatencyMs {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	for _, op := range ops {
		l := w.LatencyMs[op]
		fmt.Fprintf(&b, "; %s min/p50/p99/p999 %.1f/%.1f/%.1f/%.1f ms", op, l.Min, l.P50, l.P99, l.P999)
	}
	fmt.Fprintf(&b, "; %d errors", w.Errors)
	return b.String()
}
