// Package live is Causeway's live runtime: it drives the same protocol
// state machines as the simulator (runtime/sim), but on the real clock,
// with one goroutine — an event loop — per node.
//
// Nodes talk over an in-process transport that injects the topology's
// wide-area network (WAN) delay: a message from DC a to DC b is due
// RTT(a,b)/2 after it was sent, plus a uniform jitter in ±Jitter on links
// between DCs (the same model as the simulator, without faults). Every
// message is encoded with the wire codec when it is sent and decoded by the
// receiver, so nodes never share memory.
//
// Each node owns a mailbox: an unbounded queue of inputs ordered by the time
// they become due — messages in flight, timers set through
// protocol.Ready.SetTimer, client submissions and internal calls. The node's
// loop sleeps until the earliest input is due, hands it to the state machine
// and carries out the Ready it returns, in the order the protocol contract
// demands: Ready.Persist is applied to the node's storage.Engine (synced if
// asked) before any message of Ready.After is sent, any timer set, any
// reply delivered or any visibility reported. Senders never block and
// nothing is dropped while a node runs; with zero jitter every link is FIFO.
//
// The clock a node sees (the now of Start, Step, Tick and Submit) is the
// time since Start was called. A node's randomness is seeded from
// Config.Seed and its ID exactly as in the simulator; the timing of a live
// run is of course not reproducible.
//
// A server node's incarnation (protocol.NodeConfig.Incarnation) is the
// boot counter kept in its storage engine (runtime.NextIncarnation): 1 on
// the default fresh engines, one more each time a runtime starts on an
// engine an earlier one used.
//
// Client sessions are added with NewSession; Session.Do runs one operation
// and waits for its reply, Session.SubmitAsync is the callback form for
// load generators. Stop ends every goroutine and closes the engines.
package live

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
)

// Config configures a live runtime.
type Config struct {
	Topology *topology.Topology
	Protocol protocol.Protocol
	// Seed seeds every node's randomness and the network jitter.
	Seed uint64
	// OpTimeout is given to client sessions (default 5s).
	OpTimeout time.Duration
	// Jitter bounds the uniform one-way jitter on links between DCs; 0
	// uses the topology's jitter_ms, negative means none.
	Jitter time.Duration
	// NewStorage opens the engine of a server node (default: a fresh
	// storage.Mem per node).
	NewStorage func(id protocol.NodeID) (storage.Engine, error)
	// Observer is told about messages and visibility (optional). It is
	// called from many goroutines at once.
	Observer runtime.Observer
	// Logger receives protocol and transport errors (default: discard).
	Logger *slog.Logger
}

// Stats counts what the transport did.
type Stats struct {
	Messages    int64 // messages handed to the network
	WANMessages int64 // of which crossed between DCs
	WANBytes    int64 // payload bytes (proto.Size) that crossed between DCs
	// Dropped counts messages that were never handed to a node: sent to an
	// unknown or closed node, undecodable, or still in flight at Stop.
	Dropped int64
}

// ErrStopped is returned by operations on a stopped runtime.
var ErrStopped = errors.New("live: runtime stopped")

// Runtime runs every node of one protocol deployment in this process. Its
// methods are safe for concurrent use.
type Runtime struct {
	cfg    Config
	topo   *topology.Topology
	jitter time.Duration
	obs    runtime.Observer
	log    *slog.Logger
	start  time.Time
	seq    atomic.Uint64

	mu       sync.RWMutex
	nodes    map[protocol.NodeID]*node
	servers  []*node // in protocol.Nodes order
	stopping bool
	failures []error

	wg       sync.WaitGroup
	done     chan struct{} // closed by Stop: loops return
	stopped  chan struct{} // closed once every loop has returned
	stopOnce sync.Once
	stopErr  error

	messages, wanMessages, wanBytes, dropped atomic.Int64
	inFlight                                 atomic.Int64
}

// Start creates every server node of cfg.Protocol on cfg.Topology, each
// with its own storage engine and goroutine, and starts them.
func Start(cfg Config) (*Runtime, error) {
	if cfg.Topology == nil || cfg.Protocol == nil {
		return nil, fmt.Errorf("live: Config needs a Topology and a Protocol")
	}
	if err := cfg.Protocol.Validate(cfg.Topology); err != nil {
		return nil, fmt.Errorf("live: protocol %s on topology %s: %w", cfg.Protocol.Name(), cfg.Topology.Name, err)
	}
	if cfg.OpTimeout <= 0 {
		cfg.OpTimeout = 5 * time.Second
	}
	if cfg.NewStorage == nil {
		cfg.NewStorage = func(protocol.NodeID) (storage.Engine, error) { return storage.NewMem(), nil }
	}
	rt := &Runtime{
		cfg:     cfg,
		topo:    cfg.Topology,
		obs:     cfg.Observer,
		log:     cfg.Logger,
		nodes:   map[protocol.NodeID]*node{},
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	if rt.obs == nil {
		rt.obs = runtime.NopObserver{}
	}
	if rt.log == nil {
		rt.log = slog.New(slog.DiscardHandler)
	}
	switch {
	case cfg.Jitter < 0:
		rt.jitter = 0
	case cfg.Jitter == 0:
		rt.jitter = cfg.Topology.Jitter()
	default:
		rt.jitter = cfg.Jitter
	}
	closeAll := func() {
		for _, n := range rt.servers {
			_ = n.engine.Close()
		}
	}
	for _, spec := range cfg.Protocol.Nodes(cfg.Topology) {
		if _, dup := rt.nodes[spec.ID]; dup {
			closeAll()
			return nil, fmt.Errorf("live: protocol %s lists node %s twice", cfg.Protocol.Name(), spec.ID)
		}
		if !cfg.Topology.HasDC(spec.ID.DC()) {
			closeAll()
			return nil, fmt.Errorf("live: protocol %s lists node %s in an unknown datacenter", cfg.Protocol.Name(), spec.ID)
		}
		eng, err := cfg.NewStorage(spec.ID)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("live: storage of node %s: %w", spec.ID, err)
		}
		n := rt.newNode("node", spec.ID)
		n.role = spec.RoleOrStorage()
		n.engine = eng
		rt.nodes[spec.ID] = n
		rt.servers = append(rt.servers, n)
	}
	// Every node exists (and is addressable) before any of them runs. The
	// clock starts now, so that creating the nodes does not eat into it.
	for _, n := range rt.servers {
		// A node started on storage an earlier runtime used is a restart:
		// its engine keeps the boot counter (runtime.NextIncarnation).
		inc, err := runtime.NextIncarnation(n.engine)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("live: node %s: %w", n.id, err)
		}
		n.sm = cfg.Protocol.NewNode(protocol.NodeConfig{ID: n.id, Role: n.role, Incarnation: inc,
			Topology: rt.topo, Storage: n.engine, Rand: n.rng})
	}
	rt.start = time.Now()
	for _, n := range rt.servers {
		rt.wg.Add(1)
		go n.run()
	}
	return rt, nil
}

// Now returns the runtime clock: the time since Start.
func (rt *Runtime) Now() time.Duration { return time.Since(rt.start) }

// Topology returns the topology the runtime runs on.
func (rt *Runtime) Topology() *topology.Topology { return rt.topo }

// Stats returns the transport counters so far.
func (rt *Runtime) Stats() Stats {
	return Stats{Messages: rt.messages.Load(), WANMessages: rt.wanMessages.Load(),
		WANBytes: rt.wanBytes.Load(), Dropped: rt.dropped.Load()}
}

// NodeIDs lists the server nodes in creation order.
func (rt *Runtime) NodeIDs() []protocol.NodeID {
	ids := make([]protocol.NodeID, len(rt.servers))
	for i, n := range rt.servers {
		ids[i] = n.id
	}
	return ids
}

// Err reports the nodes that failed (a storage error stops a node, since
// it may not act on a Ready it could not persist), or nil.
func (rt *Runtime) Err() error {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return errors.Join(rt.failures...)
}

// Stop ends every node's and session's goroutine, drops the messages still
// in flight and closes the storage engines. It waits for the goroutines to
// return and reports engine close errors. Stop is idempotent.
func (rt *Runtime) Stop() error {
	rt.stopOnce.Do(func() {
		rt.mu.Lock()
		rt.stopping = true
		rt.mu.Unlock()
		close(rt.done)
		rt.wg.Wait()
		var errs []error
		for _, n := range rt.servers {
			if err := n.engine.Close(); err != nil {
				errs = append(errs, fmt.Errorf("live: closing storage of %s: %w", n.id, err))
			}
		}
		rt.stopErr = errors.Join(errs...)
		close(rt.stopped)
	})
	return rt.stopErr
}

// Quiesce waits until a whole step passes with no message sent and none in
// flight, and reports ctx's error if it ends first. Protocols with periodic
// messages (heartbeats) may never be quiet; bound ctx accordingly.
func (rt *Runtime) Quiesce(ctx context.Context, step time.Duration) error {
	t := time.NewTimer(step)
	defer t.Stop()
	for {
		before := rt.messages.Load()
		select {
		case <-ctx.Done():
			return fmt.Errorf("live: quiesce: %w", ctx.Err())
		case <-rt.stopped:
			return nil
		case <-t.C:
		}
		if rt.messages.Load() == before && rt.inFlight.Load() == 0 {
			return nil
		}
		t.Reset(step)
	}
}

// Replicas collects, from every server node implementing
// protocol.Inspector, the value each key has there (for divergence
// checks). While the runtime runs it asks each node on its own goroutine, so
// the answer of each node is consistent but nodes are read at slightly
// different moments: call it after Quiesce or Stop. Values are copies.
func (rt *Runtime) Replicas() map[protocol.NodeID]map[string][]byte {
	out := map[protocol.NodeID]map[string][]byte{}
	for _, n := range rt.servers {
		in, ok := n.sm.(protocol.Inspector)
		if !ok {
			continue
		}
		m := map[string][]byte{}
		rt.onLoop(n, func() {
			in.Replicas(func(k string, v []byte) {
				if v != nil {
					v = append([]byte{}, v...)
				}
				m[k] = v
			})
		})
		out[n.id] = m
	}
	return out
}

// onLoop runs fn on n's goroutine and waits for it; once the runtime has
// stopped (or the node has failed) no goroutine touches n, and fn runs
// directly.
func (rt *Runtime) onLoop(n *node, fn func()) {
	ran := make(chan struct{})
	if n.box.push(event{at: rt.Now(), seq: rt.seq.Add(1), kind: evCall, call: func() { fn(); close(ran) }}) {
		select {
		case <-ran:
			return
		case <-n.exited:
		}
	}
	// The loop has returned: fn either ran before it did or never will.
	<-n.exited
	select {
	case <-ran:
	default:
		fn()
	}
}

// fail records that n stopped because of err.
func (rt *Runtime) fail(n *node, err error) {
	rt.log.Error("live: node failed", "node", n.id, "err", err)
	rt.mu.Lock()
	rt.failures = append(rt.failures, fmt.Errorf("live: node %s: %w", n.id, err))
	rt.mu.Unlock()
}

// lookup finds a node by ID.
func (rt *Runtime) lookup(id protocol.NodeID) *node {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.nodes[id]
}

// newRand returns the PRNG of subsystem name for a run seeded with seed,
// derived exactly as runtime/sim.NewRand does, so that a node draws the
// same random numbers in both runtimes.
func newRand(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	x := h.Sum64()
	return rand.New(rand.NewPCG(seed^x, x*0x9e3779b97f4a7c15+seed))
}
