package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/node"
	"github.com/causeway/causeway/workload"
)

// LoadSpec describes the load phase of a live cluster (causeway load):
// writing every record of a workload's Dataset, as YCSB's load phase does,
// so that a later bench reads data rather than absent keys.
type LoadSpec struct {
	Cluster  *cluster.Config
	Workload workload.Workload
	// Workers is the number of parallel client sessions, spread
	// round-robin over the datacenters (0: 4 per datacenter).
	Workers   int
	OpTimeout time.Duration
	// Progress, when set, is called as records are written and then
	// verified, with the count done of the phase's total.
	Progress func(phase string, done, total int64)
}

// LoadResult is what a load did.
type LoadResult struct {
	// Records is the number of records written.
	Records int64
	// Retries counts puts that failed and were sent again.
	Retries int64
	// Write and Verify are the durations of the two phases.
	Write, Verify time.Duration
}

// loadAttempts bounds the tries of one put, and verifyWait how long the
// verification waits for a record to become readable in a datacenter.
const (
	loadAttempts = 5
	verifyWait   = 2 * time.Minute
)

// RunLoad writes every record of spec.Workload.Dataset() to the cluster
// with real puts (the value Dataset.Value(key), which histories record as
// the initial state), then reads every record back from every datacenter
// until it is readable there, so that the load has replicated everywhere
// before a bench starts: a bench write then follows the loaded version at
// its replicas rather than racing it.
func RunLoad(spec LoadSpec) (*LoadResult, error) {
	topo := spec.Cluster.Topology
	dcs := topo.DCNames()
	workers := spec.Workers
	if workers <= 0 {
		workers = 4 * len(dcs)
	}
	timeout := spec.OpTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ds := spec.Workload.Dataset()
	conns := map[string]*node.ClientConn{}
	defer func() {
		for _, cc := range conns {
			_ = cc.Close()
		}
	}()
	conn := func(dc string) (*node.ClientConn, error) {
		if conns[dc] == nil {
			cc, err := node.DialWithOptions(spec.Cluster, dc, node.DialOptions{OpTimeout: timeout})
			if err != nil {
				return nil, fmt.Errorf("load: dial %s: %w", dc, err)
			}
			conns[dc] = cc
		}
		return conns[dc], nil
	}
	res := &LoadResult{Records: ds.Records}
	var retries atomic.Int64
	// do runs fn(worker, session, key index) for every record, the keys
	// split among workers sessions of the DCs dcOf gives.
	do := func(phase string, dcOf func(w int) string, fn func(s *node.Session, key string) error) error {
		sessions := make([]*node.Session, workers)
		for w := range sessions {
			cc, err := conn(dcOf(w))
			if err != nil {
				return err
			}
			if sessions[w], err = cc.NewSession(); err != nil {
				return err
			}
		}
		var done atomic.Int64
		var wg sync.WaitGroup
		errs := make([]error, workers)
		stop := make(chan struct{})
		if spec.Progress != nil {
			go func() {
				tick := time.NewTicker(500 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						spec.Progress(phase, done.Load(), ds.Records)
					}
				}
			}()
		}
		for w := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int64(w); i < ds.Records; i += int64(workers) {
					if err := fn(sessions[w], workload.Key(i)); err != nil {
						errs[w] = err
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		close(stop)
		if spec.Progress != nil {
			spec.Progress(phase, done.Load(), ds.Records)
		}
		return errors.Join(errs...)
	}

	t0 := time.Now()
	err := do("write", func(w int) string { return dcs[w%len(dcs)] }, func(s *node.Session, key string) error {
		req := protocol.Request{Op: protocol.OpPut, Key: key, Value: ds.Value(key)}
		var last error
		for range loadAttempts {
			ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Second)
			rep, err := s.Do(ctx, req)
			cancel()
			if err == nil && rep.Err == protocol.OK {
				return nil
			}
			if last = err; last == nil {
				last = fmt.Errorf("%v", rep.Err)
			}
			retries.Add(1)
		}
		return fmt.Errorf("load: put %s: %w", key, last)
	})
	res.Write = time.Since(t0)
	res.Retries = retries.Load()
	if err != nil {
		return res, err
	}

	// Verify from every DC: each record must read as data (its loaded
	// value, or a value written since) before the load counts as done.
	t1 := time.Now()
	for _, dc := range dcs {
		err := do("verify "+dc, func(int) string { return dc }, func(s *node.Session, key string) error {
			deadline := time.Now().Add(verifyWait)
			for {
				ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Second)
				rep, err := s.Do(ctx, protocol.Request{Op: protocol.OpGet, Key: key})
				cancel()
				if err == nil && rep.Err == protocol.OK && rep.Value != nil {
					return nil
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("load: %s not readable in %s after %v", key, dc, verifyWait)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
		if err != nil {
			return res, err
		}
	}
	res.Verify = time.Since(t1)
	return res, nil
}
