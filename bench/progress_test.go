package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/runtime/node/nodetest"
	"github.com/causeway/causeway/workload"
)

// runJSON runs spec and returns its result JSON and history.
func runJSON(t *testing.T, spec SimSpec) (res *Result, js, hist []byte) {
	t.Helper()
	var h bytes.Buffer
	spec.History = &h
	res, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err = json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return res, js, h.Bytes()
}

// TestProgressDoesNotChangeTheResult runs the same faulty karma run
// without progress and with a callback that takes every window: the
// result JSON and the history must be byte-identical, and the windows
// must add up to the run's operations.
func TestProgressDoesNotChangeTheResult(t *testing.T) {
	spec := smallSpec(t, "karma", "local3", 3, true)
	_, plain, plainHist := runJSON(t, spec)

	var calls int
	var windowOps, lastOps int64
	var last time.Duration
	spec.Progress = func(p Progress) {
		calls++
		if p.Done <= last || p.Total != spec.Duration || p.Ops < lastOps {
			t.Errorf("progress %v/%v with %d ops after %v with %d ops", p.Done, p.Total, p.Ops, last, lastOps)
		}
		w := p.Window()
		if w.Since != last && calls > 1 {
			t.Errorf("window since %v, want %v", w.Since, last)
		}
		windowOps += w.Ops
		last, lastOps = p.Done, p.Ops
	}
	res, watched, watchedHist := runJSON(t, spec)
	if !bytes.Equal(plain, watched) {
		t.Errorf("result JSON differs with progress:\n%s\n%s", plain, watched)
	}
	if !bytes.Equal(plainHist, watchedHist) {
		t.Error("history differs with progress")
	}
	if calls != progressSteps || last != spec.Duration {
		t.Errorf("progress called %d times up to %v, want %d up to %v", calls, last, progressSteps, spec.Duration)
	}
	// Operations completing while the run drains come after the last
	// progress call.
	if windowOps != lastOps || lastOps == 0 || lastOps > res.Ops {
		t.Errorf("windows add up to %d operations, progress saw %d, the run %d", windowOps, lastOps, res.Ops)
	}
}

// TestInterruptedSimIsCheckedUpToThere cancels a run's context a quarter
// of the way: the run stops there, says so, and its history holds only
// the operations until then and passes the checker.
func TestInterruptedSimIsCheckedUpToThere(t *testing.T) {
	spec := smallSpec(t, "cops", "local3", 1, false)
	full, _, _ := runJSON(t, spec)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec.Context = ctx
	var at time.Duration
	spec.Progress = func(p Progress) {
		if p.Done >= spec.Duration/4 && at == 0 {
			at = p.Done
			cancel()
		}
	}
	res, _, hist := runJSON(t, spec)
	if !res.Interrupted || res.DurationS != at.Seconds() {
		t.Errorf("interrupted %v after %vs, want true after %vs", res.Interrupted, res.DurationS, at.Seconds())
	}
	if res.Ops == 0 || res.Ops >= full.Ops/2 {
		t.Errorf("interrupted run completed %d operations, the full run %d", res.Ops, full.Ops)
	}
	h, err := history.Parse(bytes.NewReader(hist))
	if err != nil {
		t.Fatal(err)
	}
	if cr := check.Check(h, check.Options{}); !cr.OK || cr.Operations < int(res.Ops) || !res.Check.OK {
		t.Errorf("interrupted history: ok %v, %d operations for %d completed", cr.OK, cr.Operations, res.Ops)
	}
}

// TestInterruptedLiveBenchLeavesACheckableHistory cancels a live run's
// context at its first progress report (the path Ctrl-C takes): the run
// ends long before its duration, says it was interrupted, and the history
// it wrote is whole lines that pass the checker.
func TestInterruptedLiveBenchLeavesACheckableHistory(t *testing.T) {
	w, err := workload.Lookup("ycsb-80-20")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 20
	cfg, err := cluster.Load(nodetest.StartLocal(t, "local3", "cops"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var hist bytes.Buffer
	res, err := RunLive(LiveSpec{Cluster: cfg, Workload: w, Seed: 1, Duration: time.Hour, Clients: 6, Ceiling: -1,
		History: &hist, Context: ctx, Progress: func(Progress) { cancel() }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.DurationS > 600 || res.Ops == 0 {
		t.Errorf("interrupted %v after %vs with %d operations", res.Interrupted, res.DurationS, res.Ops)
	}
	if n := bytes.Count(hist.Bytes(), []byte("\n")); n < int(res.Ops) || !bytes.HasSuffix(hist.Bytes(), []byte("\n")) {
		t.Errorf("history has %d lines for %d operations", n, res.Ops)
	}
	h, err := history.Parse(bytes.NewReader(hist.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if cr := check.Check(h, check.Options{}); !cr.OK || cr.Operations == 0 {
		t.Errorf("interrupted live history: ok %v, %d operations", cr.OK, cr.Operations)
	}
}
