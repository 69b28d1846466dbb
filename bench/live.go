package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/node"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/workload"
)

// LiveSpec describes a benchmark against a running cluster.
type LiveSpec struct {
	Cluster  *cluster.Config
	Workload workload.Workload
	// Seed seeds the workload generators (the run's timing is the real
	// clock's and not reproducible).
	Seed uint64
	// Duration is wall-clock time during which clients issue operations.
	Duration time.Duration
	// Clients is the number of closed-loop client sessions, spread
	// round-robin over the datacenters.
	Clients   int
	OpTimeout time.Duration
	// History, when set, receives the history as JSON Lines.
	History io.Writer
	// Progress, when set, is called about once a second.
	Progress func(Progress)
	// Context, when set, interrupts the run when it is done (Ctrl-C):
	// clients issue no new operation, those outstanding complete (within
	// OpTimeout), and the run is recorded and checked up to there; the
	// result says Interrupted. Interrupted during a NoopOnly run, the
	// run returns an error.
	Context context.Context
	// Ceiling is how long, in all, the same clients send no-op Pings,
	// answered by the servers' hosts without the protocol, to measure the
	// ceiling of the transport in this run (karma.txt §5 validates its
	// COPS this way). The pings run in short slices interleaved with the
	// workload's (ceiling.go), so the run lasts Duration + Ceiling and
	// both figures see the same machine. Zero means a quarter of
	// Duration, at least 500 ms and at most 5 s; negative skips it.
	Ceiling time.Duration
	// ClientRate, when positive, caps each session at that many operations
	// per second, as SimSpec.ClientRate does (YCSB's -target divided over
	// its threads): an operation that started at t is followed at
	// t+1/ClientRate, or at once if that has passed. 0: a closed loop.
	ClientRate float64
	// OpenLoop, with ClientRate, fixes each session's schedule and counts
	// latencies from when operations were due, as SimSpec.OpenLoop.
	OpenLoop bool
	// NoopOnly runs only the ceiling phase, for Duration: the result is the
	// "noop" protocol's (causeway bench --protocol noop).
	NoopOnly bool
}

// unavailablePause is how long a live benchmark client waits after its
// session ended unavailable (node.ErrUnavailable) before it starts a new
// one: the node is down, and asking again at once would only fill the
// history with failures.
const unavailablePause = 200 * time.Millisecond

// NoopProtocol is the name under which a ceiling-only live run reports.
const NoopProtocol = "noop"

// ceilingDuration is the length of the ceiling phase spec asks for.
func (spec LiveSpec) ceilingDuration() time.Duration {
	switch {
	case spec.NoopOnly:
		return spec.Duration
	case spec.Ceiling < 0:
		return 0
	case spec.Ceiling > 0:
		return spec.Ceiling
	}
	return min(max(spec.Duration/4, 500*time.Millisecond), 5*time.Second)
}

// measureCeiling has every session's connection ping a node of its DC in a
// closed loop for d and returns the completed round trips per second.
func measureCeiling(ctx context.Context, conns []*node.ClientConn, d, timeout time.Duration) (float64, error) {
	var done, failed atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	deadline := t0.Add(d)
	for i, cc := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				err := cc.Ping(ctx, i)
				cancel()
				if err != nil {
					failed.Add(1)
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return 0, fmt.Errorf("bench: interrupted while measuring the ceiling (--protocol noop)")
	}
	if done.Load() == 0 {
		return 0, fmt.Errorf("bench: no node answered a ping (%d timed out): is the cluster up?", failed.Load())
	}
	return float64(done.Load()) / time.Since(t0).Seconds(), nil
}

// backstop is a context per client that ends when one operation has run
// for d: context.WithTimeout per operation allocated a context and a
// timer each time (about 7% of a 96-client benchmark process's CPU).
// Use start and stop around each operation, from one goroutine.
type backstop struct {
	parent context.Context
	d      time.Duration
	ctx    context.Context
	cancel context.CancelFunc
	timer  *time.Timer
}

// newBackstop makes a backstop whose contexts are parent's children.
func newBackstop(parent context.Context, d time.Duration) *backstop {
	return &backstop{parent: parent, d: d}
}

// start returns the context of an operation starting now.
func (b *backstop) start() context.Context {
	if b.ctx == nil {
		b.ctx, b.cancel = context.WithCancel(b.parent)
		b.timer = time.AfterFunc(b.d, b.cancel)
		return b.ctx
	}
	b.timer.Reset(b.d)
	return b.ctx
}

// stop ends the operation's timing. If the timer went off (or is going
// off), the context is done: the next operation gets a new one.
func (b *backstop) stop() {
	if !b.timer.Stop() {
		b.cancel()
		b.ctx = nil
	}
}

// close releases the context.
func (b *backstop) close() {
	if b.ctx != nil {
		b.timer.Stop()
		b.cancel()
	}
}

// sleepUntil waits until t and reports whether ctx let it.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// RunLive drives spec's workload against a live cluster from this process
// and returns the checked result. Replica convergence, message counts and
// visibility are not observable from the clients, so they are absent.
func RunLive(spec LiveSpec) (*Result, error) {
	if spec.Clients <= 0 || spec.Duration <= 0 {
		return nil, fmt.Errorf("bench: need at least one client and a positive duration")
	}
	p, err := protocol.Lookup(spec.Cluster.Protocol)
	if err != nil {
		return nil, err
	}
	topo := spec.Cluster.Topology
	ctx := spec.Context
	if ctx == nil {
		ctx = context.Background()
	}
	timeout := spec.OpTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	rec := NewRecorder(p, topo)
	conns := map[string]*node.ClientConn{}
	defer func() {
		for _, cc := range conns {
			_ = cc.Close()
		}
	}()
	var mu sync.Mutex // guards hw
	var histBuf bytes.Buffer
	hw := history.NewWriter(&histBuf)
	dcs := topo.DCNames()
	type client struct {
		name, dc string
		conn     *node.Session
		gen      *workload.Client
	}
	var clients []client
	// A live cluster keeps what was loaded (causeway load) and what earlier
	// runs wrote, which this run's history knows nothing of. The run reads
	// and writes the workload's keys, but names its values after itself,
	// and the history gains the values from before the run that it read
	// (see preRun).
	run := fmt.Sprintf("r%08x-", rand.Uint32())
	pre := newPreRun(run)
	for i := 0; i < spec.Clients; i++ {
		dc := dcs[i%len(dcs)]
		if conns[dc] == nil {
			cc, err := node.DialWithOptions(spec.Cluster, dc, node.DialOptions{OpTimeout: timeout})
			if err != nil {
				return nil, fmt.Errorf("bench: dial %s: %w", dc, err)
			}
			conns[dc] = cc
		}
		s, err := conns[dc].NewSession()
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("c%d", i)
		gen := spec.Workload.NewClient(run+name, sim.NewRand(spec.Seed, "workload/"+name))
		gen.SetPlacement(Placement(p, topo, dc))
		clients = append(clients, client{name: name, dc: dc, conn: s, gen: gen})
	}
	var ceiling float64
	if spec.NoopOnly {
		var perClient []*node.ClientConn
		for _, c := range clients {
			perClient = append(perClient, conns[c.dc])
		}
		if ceiling, err = measureCeiling(ctx, perClient, spec.Duration, timeout); err != nil {
			return nil, err
		}
		one := 1.0
		return &Result{Protocol: NoopProtocol, Guarantee: "none", Topology: topo.Name,
			Workload: NoopProtocol, Seed: spec.Seed, Runtime: "live", DurationS: round3(spec.Duration.Seconds()),
			Clients: spec.Clients, Ops: int64(ceiling * spec.Duration.Seconds()), ThroughputOpsS: round3(ceiling),
			CeilingOpsS: &ceiling, CeilingFraction: &one, Errors: map[string]int64{}, Check: CheckResult{OK: true}}, nil
	}
	if spec.Progress != nil {
		rec.watch()
	}
	// The ceiling is measured in slices interleaved with the workload's
	// (ceiling.go).
	t0 := time.Now()
	sched := newInterleave(t0, spec.Duration, spec.ceilingDuration())
	deadline := sched.end()
	var times sliceTimes
	var wg sync.WaitGroup
	var writeErr error
	var interval time.Duration
	if spec.ClientRate > 0 {
		interval = time.Duration(float64(time.Second) / spec.ClientRate)
	}
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mark := time.Now() // since when this client has run the workload
			defer func() { times.work.Add(int64(time.Since(mark))) }()
			// The session times an operation out after timeout; this
			// backstop abandons it a second later should it not.
			bs := newBackstop(context.Background(), timeout+time.Second)
			defer bs.close()
			// Sessions with a rate start spread over the first interval.
			due := t0.Add(interval * time.Duration(i) / time.Duration(len(clients)))
			base, restarts := c.name, 0
			// An operation started before an interrupt completes: its
			// outcome belongs in the history.
			for time.Now().Before(deadline) && ctx.Err() == nil {
				if end, ok := sched.ceilingUntil(time.Now()); ok {
					mark = times.ping(ctx, conns[c.dc], i, mark, end, timeout)
					if spec.OpenLoop {
						due = due.Add(sched.ceil) // the schedule resumes where it paused
					}
					continue
				}
				if !due.Before(deadline) || !sleepUntil(ctx, due) {
					break
				}
				req := c.gen.Next()
				start := time.Since(t0)
				intended := start
				if spec.OpenLoop && interval > 0 {
					intended = min(due.Sub(t0), start)
					due = due.Add(interval)
				} else {
					due = t0.Add(start + interval)
				}
				rep, err := c.conn.Do(bs.start(), req)
				bs.stop()
				end := time.Since(t0)
				ended := errors.Is(err, node.ErrUnavailable) || errors.Is(err, node.ErrNotSent)
				switch {
				case errors.Is(err, node.ErrUnavailable):
					rep = protocol.Reply{Op: req.Op, Err: protocol.ErrUnavailable}
				case err != nil:
					rep = protocol.Reply{Op: req.Op, Err: protocol.ErrTimeout}
				}
				rec.DoneIntended(c.dc, req, rep, intended, start, end)
				mu.Lock()
				if err := hw.Write(HistoryOp(c.name, c.dc, req, pre.note(req, rep), start, end)); err != nil && writeErr == nil {
					writeErr = err
				}
				mu.Unlock()
				if ended {
					// The session ended (its node unreachable). Back off as
					// a real client would, then carry on in a new session:
					// a new history session too, since it does not share
					// the old one's causal past.
					if !sleepUntil(ctx, time.Now().Add(min(unavailablePause, max(time.Until(deadline), 0)))) {
						return
					}
					s, err := conns[c.dc].NewSession()
					if err != nil {
						return
					}
					_ = c.conn.Close()
					restarts++
					c.conn, c.name = s, fmt.Sprintf("%s.%d", base, restarts)
				}
			}
		}()
	}
	// Clients stop at the deadline or at the interrupt, whichever comes
	// first; operations outstanding then still complete.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(time.Second)
	ctxDone := ctx.Done()
	interrupted := false
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			if spec.Progress != nil {
				total := deadline.Sub(t0)
				spec.Progress(rec.progress(min(time.Since(t0), total), total))
			}
		case <-ctxDone:
			interrupted = time.Now().Before(deadline)
			ctxDone = nil
		}
	}
	tick.Stop()
	// Throughput is per second of workload, the ceiling per second of
	// pinging, each from the time the clients actually spent on it
	// (ceiling.go).
	elapsed := time.Since(t0)
	if sched.ceil > 0 {
		elapsed, ceiling = times.rates(len(clients))
	}
	for _, op := range pre.writes() {
		if err := hw.Write(op); err != nil && writeErr == nil {
			writeErr = err
		}
	}
	if writeErr != nil {
		return nil, writeErr
	}
	if err := hw.Flush(); err != nil {
		return nil, err
	}
	res := &Result{Protocol: p.Name(), Guarantee: p.Guarantee().String(), Topology: topo.Name,
		Workload: spec.Workload.Name, Seed: spec.Seed, Runtime: "live", DurationS: round3(elapsed.Seconds()), Clients: spec.Clients,
		Interrupted: interrupted}
	rec.fill(res, elapsed)
	res.dropVisibility() // the servers' visibility reports do not reach the clients
	if ceiling > 0 {
		c := round3(ceiling)
		f := round3(res.ThroughputOpsS / ceiling)
		res.CeilingOpsS, res.CeilingFraction = &c, &f
	}
	if spec.History != nil {
		if _, err := spec.History.Write(histBuf.Bytes()); err != nil {
			return nil, err
		}
	}
	h, err := history.Parse(bytes.NewReader(histBuf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("bench: the recorded history does not parse (a bug): %w", err)
	}
	res.Check = checkRun(h, nil)
	res.Check.Converged = nil
	return res, nil
}
