package bench

import (
	"time"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/workload"
)

// simDriver is what RunSim's closed-loop (or open-loop) clients share.
type simDriver struct {
	spec     *SimSpec
	s        *sim.Sim
	rec      *Recorder
	cs       *check.Stream
	hw       *history.Writer // nil: no history file
	byKind   *WANByKind      // nil: not counted (SimSpec.WANByKind)
	interval time.Duration   // between a client's operations (0: closed loop)
	stopped  bool
	// With OpsPerClient: sessions done, and the last completion.
	finished int
	lastEnd  time.Duration
}

// simClient is one client of RunSim: a session, its workload generator and
// its outstanding operation. Its callbacks are bound once (nextFn,
// doneFn), so an operation allocates no closure.
type simClient struct {
	d      *simDriver
	name   string
	dc     string
	id     protocol.NodeID
	gen    *workload.Client
	due    time.Duration // the open loop's schedule
	issued int
	// the outstanding operation
	req             protocol.Request
	intended, start time.Duration
	nextFn          func()
	doneFn          func(now time.Duration, rep protocol.Reply)
}

// next issues the client's next operation, unless the run has stopped or
// the client has issued its OpsPerClient.
func (c *simClient) next() {
	d := c.d
	if d.stopped {
		return
	}
	if d.spec.OpsPerClient > 0 {
		if c.issued == d.spec.OpsPerClient {
			d.finished++
			return
		}
		c.issued++
	}
	c.req = c.gen.Next()
	c.start = d.s.Now()
	c.intended = c.start
	if d.spec.OpenLoop && d.interval > 0 {
		c.intended, c.due = min(c.due, c.start), c.due+d.interval
	} else {
		c.due = c.start + d.interval
	}
	if err := d.s.Submit(c.id, c.req, c.doneFn); err != nil {
		panic(err) // the driver keeps one operation per session
	}
}

// done records the outstanding operation's reply (recorder, OnDone,
// history, checker) and schedules the next one.
func (c *simClient) done(now time.Duration, rep protocol.Reply) {
	d, req := c.d, c.req
	d.rec.DoneIntended(c.dc, req, rep, c.intended, c.start, now)
	if d.spec.OnDone != nil && c.start >= d.spec.Warmup {
		d.spec.OnDone(c.dc, req, rep, c.start, now)
	}
	op := HistoryOp(c.name, c.dc, req, rep, c.start, now)
	if d.hw != nil {
		if err := d.hw.Write(op); err != nil {
			panic(err)
		}
	}
	_ = d.cs.Add(&op) // an error stays in cs: Check returns it
	if d.byKind != nil {
		d.byKind.Ops++
		if op.Op == "put" {
			d.byKind.Puts++
		}
	}
	d.lastEnd = max(d.lastEnd, now)
	if now < c.due {
		d.s.At(c.due, c.nextFn)
	} else {
		c.next()
	}
}
