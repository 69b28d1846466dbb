package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
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
	Progress func(done, total time.Duration)
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
		clients = append(clients, client{name: name, dc: dc, conn: s,
			gen: spec.Workload.NewClient(name, sim.NewRand(spec.Seed, "workload/"+name))})
	}
	t0 := time.Now()
	deadline := t0.Add(spec.Duration)
	var wg sync.WaitGroup
	var writeErr error
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				req := c.gen.Next()
				start := time.Since(t0)
				ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Second)
				rep, err := c.conn.Do(ctx, req)
				cancel()
				end := time.Since(t0)
				if err != nil {
					rep = protocol.Reply{Op: req.Op, Err: protocol.ErrTimeout}
				}
				rec.Done(req, rep, start, end)
				mu.Lock()
				if err := hw.Write(HistoryOp(c.name, c.dc, req, rep, start, end)); err != nil && writeErr == nil {
					writeErr = err
				}
				mu.Unlock()
			}
		}()
	}
	if spec.Progress != nil {
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		tick := time.NewTicker(time.Second)
	loop:
		for {
			select {
			case <-done:
				break loop
			case <-tick.C:
				spec.Progress(min(time.Since(t0), spec.Duration), spec.Duration)
			}
		}
		tick.Stop()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	if writeErr != nil {
		return nil, writeErr
	}
	if err := hw.Flush(); err != nil {
		return nil, err
	}
	res := &Result{Protocol: p.Name(), Guarantee: p.Guarantee().String(), Topology: topo.Name,
		Workload: spec.Workload.Name, Seed: spec.Seed, Runtime: "live", DurationS: round3(elapsed.Seconds()), Clients: spec.Clients}
	rec.fill(res, elapsed)
	res.VisibilityMs = nil // the servers' visibility reports do not reach the clients
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
