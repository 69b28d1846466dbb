// Package node is Causeway's multi-process runtime: Run hosts one server
// node of a cluster (cluster.Config) in this process, and Dial runs client
// sessions in a client process; they talk over the gRPC transport
// (package transport).
//
// # The node host
//
// Run opens the node's Pebble store in its data directory, counts one more
// start in the boot counter it keeps there (runtime.NextIncarnation: the
// node's incarnation, synced before the node is created), re-creates the
// protocol node from what the store holds (protocol.NewNode with the store as its
// recovered storage), listens on the node's transport address and serves
// /healthz and /metrics on its HTTP address. One goroutine owns the state
// machine, as in runtime/live: it takes the frames the transport hands over
// (queued without bound, so that the transport never blocks on the node)
// and the node's timers one at a time, and carries out each Ready in the
// order the protocol contract demands — the storage writes first
// (storage.Engine.Apply, synced when the protocol asks), and only once they
// are done the messages and visibility reports. Synced writes are group
// committed: the loop applies them at once, parks the step's effects and
// goes on with the next inputs while another goroutine syncs, and every
// synced write applied meanwhile shares the next sync; the effects go out,
// in step order, once a sync covers them (commit.go). A storage error
// stops the node (Run returns it): acting on a Ready it could not persist
// might acknowledge a write that is not durable.
//
// Options.Sync (on by default) makes the node fsync when the protocol asks
// for it. Turning it off is unsafe: the node then acknowledges writes that
// only reached the operating system's buffers, and a power failure or
// kernel crash loses them (a crash of the process alone does not).
//
// # Addresses and replies
//
// A message to another server node goes to that node's addr in the
// cluster file. A client session runs in the client process (Dial), not
// in the node, and the client process does not listen: it dials the nodes
// of its datacenter, and a node sends whatever it has for a session back
// on the stream the session's frames arrived on (transport.Transport.Reply,
// the transport's "Replies"). A node therefore never opens a connection
// to an address a client names. Session IDs have the form
//
//	DC/c<n>-<tag>
//
// where tag is 128 random bits drawn when the client process dials
// (SessionID). The first connection to send a frame from a session ID
// owns its reply route on that node until the connection closes or the
// session ends (the client sends a transportpb.Goodbye): frames from that
// ID on any other connection are dropped, so a client cannot receive the
// replies of a session another client holds (a reconnection of the same
// client process takes its sessions over at once, see the transport's
// "Replies"). A reply for a session whose
// connection has closed is dropped at once (counted as session_gone).
//
// # Limits
//
// A node refuses a client session's frame, answering it with a
// transportpb.Refusal that ends the session's outstanding operation with
// ErrRefused and names the limit, when a string in it is over MaxKeyBytes
// or a byte string over MaxValueBytes, when the node already serves
// Options.MaxSessions sessions (a new session's first frame), or when the
// session already has Options.MaxQueuedPerSession frames waiting in the
// node's queue. Clients check the key and value sizes themselves first
// (CheckLimits), so a well-behaved client never sends such a frame.
//
// # WAN emulation
//
// With the cluster's wan_delay, every process delays each frame it sends
// to another datacenter by the topology's one-way delay between its own
// datacenter and the destination's (transport.Config.Delay): a node knows
// the datacenter of every other node from the cluster file and that of a
// session from its ID. Inside a datacenter the network between the
// processes is the real one, so nothing is added unless the topology sets
// intra_dc_rtt_ms itself (the simulator's default of 0.5 ms is not
// emulated): a frame with no delay skips the transport's delay line and
// costs nothing for the emulation.
//
// # Link controls
//
// With Options.Admin the node also serves cluster.AdminLinksPath on its
// http address: partitions (cut links, one way or both) and added delay
// between this node and the nodes and client sessions of other
// datacenters, changed while it runs (links.go; `causeway cluster
// partition|heal|delay`). The delay is added to the WAN delay above.
//
// # Clock
//
// The clock the state machines see is the time since the cluster's epoch
// (cluster.Config.Epoch, else the Unix epoch), read from the wall clock
// once when a node or client starts and advanced by the monotonic clock,
// so that processes agree on it and a restarted node's clock continues
// where the old one left off.
package node

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/certs"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/transport"
	"github.com/causeway/causeway/wire/transportpb"
)

// Options tunes a node host.
type Options struct {
	// Sync makes storage writes the protocol asks to be durable fsynced
	// before the node acts on them. DefaultOptions turns it on; false is
	// UNSAFE (acknowledged writes can be lost to a power failure or kernel
	// crash) and meant only for benchmarks of everything but the disk.
	Sync bool
	// Admin serves the link and clock controls (cluster.AdminLinksPath,
	// cluster.AdminClockPath: cut and delay the WAN links, skew the clock
	// at run time) on the node's http address. With tls they answer only
	// a client presenting the cluster.AdminCertName certificate (https.go);
	// without tls anyone who reaches the address can use them, which the
	// node logs loudly at start. DefaultOptions leaves it off.
	Admin bool
	// MetricsInsecure, with tls, lets clients without a certificate read
	// /healthz, /metrics and /status (still over HTTPS), as Prometheus is
	// usually set up: scraping with no client certificate. Without it they
	// need a certificate of the cluster's CA too.
	MetricsInsecure bool
	// MaxSessions bounds the client sessions connected to the node at
	// once (default DefaultMaxSessions); a frame from one more session is
	// refused (transportpb.Refusal, ErrRefused at the client).
	MaxSessions int
	// MaxQueuedPerSession bounds the frames of one client session waiting
	// in the node's queue (default DefaultMaxQueuedPerSession); one more
	// is refused.
	MaxQueuedPerSession int
}

// DefaultOptions are the options Run uses: Sync on.
func DefaultOptions() Options { return Options{Sync: true} }

// shutdownGrace bounds how long the HTTP server waits for requests in
// progress at shutdown.
const shutdownGrace = 2 * time.Second

// Run hosts node nodeID of cfg with DefaultOptions until ctx ends (then it
// shuts down and returns nil) or the node fails (it returns why).
func Run(ctx context.Context, cfg *cluster.Config, nodeID string, logger *slog.Logger) error {
	return RunWithOptions(ctx, cfg, nodeID, logger, DefaultOptions())
}

// RunWithOptions is Run with options. On return the transport, the HTTP
// server and the storage are closed.
func RunWithOptions(ctx context.Context, cfg *cluster.Config, nodeID string, logger *slog.Logger, opts Options) (err error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg == nil {
		return errors.New("node: no cluster configuration")
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("node: %w", err)
	}
	self := cfg.Node(nodeID)
	if self == nil {
		return fmt.Errorf("node: %q is not a node of the cluster (nodes: %s)", nodeID, strings.Join(cfg.NodeIDs(), ", "))
	}
	p, err := protocol.Lookup(cfg.Protocol)
	if err != nil {
		return fmt.Errorf("node: %w", err)
	}
	id := protocol.NodeID(nodeID)
	spec, ok := protocol.FindNode(p.Nodes(cfg.Topology), id)
	if !ok {
		return fmt.Errorf("node: protocol %s has no node %q on topology %s", p.Name(), nodeID, cfg.Topology.Name)
	}
	log := logger.With("node", nodeID)

	var serverTLS, clientTLS *tls.Config
	if cfg.TLS {
		if serverTLS, err = certs.ServerConfig(cfg.CertsDir, nodeID); err != nil {
			return fmt.Errorf("node %s: %w", nodeID, err)
		}
		if clientTLS, err = certs.ClientConfig(cfg.CertsDir, nodeID, ""); err != nil {
			return fmt.Errorf("node %s: %w", nodeID, err)
		}
	}

	if err := os.MkdirAll(self.Data, 0o700); err != nil {
		return fmt.Errorf("node %s: data directory: %w", nodeID, err)
	}
	eng, err := storage.OpenPebble(self.Data, storage.PebbleOptions{})
	if err != nil {
		return fmt.Errorf("node %s: %w", nodeID, err)
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("node %s: closing storage: %w", nodeID, cerr))
		}
	}()

	// The boot counter, synced before the node is created: a restarted
	// node is a new incarnation (protocol.NodeConfig.Incarnation).
	inc, err := runtime.NextIncarnation(eng)
	if err != nil {
		return fmt.Errorf("node %s: %w", nodeID, err)
	}

	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxQueuedPerSession <= 0 {
		opts.MaxQueuedPerSession = DefaultMaxQueuedPerSession
	}
	book := newAddressBook(cfg, id.DC())
	h := &host{id: id, log: log, book: book, sync: opts.Sync, admin: opts.Admin, eng: eng, box: newInbox(),
		protocol: cfg.Protocol, incarnation: inc, started: time.Now(), https: cfg.TLS, metricsInsecure: opts.MetricsInsecure,
		maxQueued: opts.MaxQueuedPerSession, queued: map[protocol.NodeID]int{}}
	h.metrics = newMetrics(nodeID, func() float64 { return float64(h.box.len()) }, func() float64 {
		if h.tr == nil {
			return 0
		}
		return float64(h.tr.Stats().Routes)
	})
	h.metrics.incarnation.Set(float64(inc))
	h.registerDiskGauge()
	h.m = &machine{
		id:      id,
		sm:      p.NewNode(protocol.NodeConfig{ID: id, Role: spec.RoleOrStorage(), Incarnation: inc, Topology: cfg.Topology, Storage: eng, Rand: newRand()}),
		clock:   newClock(cfg.Epoch),
		box:     h.box,
		log:     log,
		persist: h.persist,
		send:    h.send,
		visible: func(protocol.Visibility) { h.metrics.visible.Inc() },
	}
	if opts.Sync {
		// Group commit (commit.go): Apply(nil, true) syncs every write
		// applied before it.
		h.m.gc = newGroupCommit(func() error { return eng.Apply(nil, true) }, h.metrics.syncs.Inc)
	}

	h.m.clock.skew = &h.skew

	hl, err := net.Listen("tcp", self.HTTPListenAddr())
	if err != nil {
		return fmt.Errorf("node %s: http: %w", nodeID, err)
	}
	srv := &http.Server{Handler: h.authorize(h.httpHandler()), ReadHeaderTimeout: 5 * time.Second, ConnContext: connContext}
	if cfg.TLS {
		hl = tlsOnlyListener{Listener: hl, cfg: httpTLS(serverTLS)}
	} else if opts.Admin {
		log.Warn("UNAUTHENTICATED ADMIN ENDPOINTS: this node serves /admin/links and /admin/clock over plain HTTP to anyone who reaches " + self.HTTP +
			": they can cut or delay every link of the cluster and skew its clock. Run the cluster with tls: true, or keep that address private.")
	}
	serveDone := make(chan struct{})
	go func() {
		defer close(serveDone)
		if err := srv.Serve(hl); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server stopped", "addr", self.HTTP, "err", err)
		}
	}()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if serr := srv.Shutdown(sctx); serr != nil {
			_ = srv.Close()
		}
		<-serveDone
	}()

	tcfg := transport.Config{
		Self:      self.ListenAddr(),
		Logger:    log.With("component", "transport"),
		TLS:       serverTLS,
		ClientTLS: clientTLS,
		Handler:   h.receive,
		// A frame for another node reached this one: its sender's link is
		// to the wrong process (a restarted container's old address), and
		// must dial again rather than lose every frame here.
		Accept: func(to string) bool { return protocol.NodeID(to) == h.id },
		// Client sessions get reply routes; other nodes are reached by
		// their addresses.
		Routable:  func(from string) bool { return !book.isNode(protocol.NodeID(from)) },
		MaxRoutes: opts.MaxSessions,
		// With tls only a node's own certificate may send as that node: a
		// client's certificate cannot forge node-to-node messages.
		Sender: func(from, peer string) bool {
			return !cfg.TLS || !book.isNode(protocol.NodeID(from)) || peer == from
		},
	}
	// Always set: the link controls may add delay without wan_delay.
	tcfg.Delay = book.delay
	tr, err := transport.New(tcfg)
	if err != nil {
		return fmt.Errorf("node %s: %w", nodeID, err)
	}
	h.tr = tr
	book.cut = func(addr string, cut bool) {
		if cut {
			tr.Cut(addr)
		} else {
			tr.Heal(addr)
		}
	}
	// Deferred after the storage's Close, so it runs first: no frame is
	// handled once the storage is closed.
	defer func() { _ = tr.Close() }()

	stop := make(chan struct{})
	loopDone := make(chan error, 1)
	go func() {
		loopDone <- h.m.run(stop, func() {
			h.ready.Store(true)
			log.Info("node started", "protocol", cfg.Protocol, "topology", cfg.Topology.Name,
				"incarnation", inc, "addr", tr.Addr(), "http", hl.Addr().String(), "data", self.Data, "tls", cfg.TLS,
				"wan_delay", cfg.WANDelay, "sync", opts.Sync, "admin", opts.Admin)
		})
	}()
	select {
	case <-ctx.Done():
		close(stop)
		err = <-loopDone
		log.Info("node stopping", "reason", context.Cause(ctx))
	case err = <-loopDone:
		log.Error("node failed", "err", err)
		err = fmt.Errorf("node %s: %w", nodeID, err)
	}
	h.ready.Store(false)
	return err
}

// host is the environment of one server node.
type host struct {
	id    protocol.NodeID
	log   *slog.Logger
	book  *addressBook
	sync  bool
	admin bool // serve the link controls
	// https is whether the http address serves HTTPS (tls), and
	// metricsInsecure whether it lets clients without a certificate read
	// the metrics then (https.go).
	https, metricsInsecure bool
	eng                    storage.Engine
	box                    *inbox
	m                      *machine
	tr                     *transport.Transport
	metrics                *metrics
	ready                  atomic.Bool
	// protocol, incarnation and started are what /status reports.
	protocol    string
	incarnation uint64
	started     time.Time
	// droppedIn counts frames dropped because their sender's datacenter
	// is cut off (the link controls' cut_in).
	droppedIn atomic.Uint64
	// skew is the clock offset set at cluster.AdminClockPath, in
	// nanoseconds (clockadmin.go).
	skew atomic.Int64
	// droppedOut counts replies dropped because their session's
	// datacenter is cut off (the link controls' cut_out).
	droppedOut atomic.Uint64
	// queued counts each client session's frames in box, bounded by
	// maxQueued (guarded by queuedMu).
	queuedMu  sync.Mutex
	queued    map[protocol.NodeID]int
	maxQueued int
}

// receive is the transport's Handler: it queues a frame for the node.
func (h *host) receive(from, to string, msg proto.Message) {
	if protocol.NodeID(to) != h.id {
		h.metrics.dropped.WithLabelValues(dropWrongNode).Inc()
		h.log.Warn("frame for another node dropped", "from", from, "to", to, "type", typeName(msg))
		return
	}
	if h.book.cutIn(protocol.NodeID(from).DC()) {
		h.droppedIn.Add(1)
		h.metrics.dropped.WithLabelValues(dropLinkCut).Inc()
		return
	}
	h.metrics.received.inc(msg)
	if p, ok := msg.(*transportpb.Ping); ok {
		// The benchmark ceiling: answered here, never by the protocol.
		h.send(protocol.Message{From: h.id, To: protocol.NodeID(from), Body: &transportpb.Pong{Id: p.Id}})
		return
	}
	in := input{kind: inMessage, from: protocol.NodeID(from), msg: msg}
	if !h.book.isNode(in.from) {
		if why := checkClientMessage(msg); why != "" {
			h.refuse(in.from, "%s: %s", typeName(msg), why)
			return
		}
		if !h.admitQueued(in.from) {
			h.refuse(in.from, "session has %d frames queued at node %s, the limit", h.maxQueued, h.id)
			return
		}
		in.taken = func() { h.unqueue(in.from) }
	}
	if !h.box.push(in) {
		h.metrics.dropped.WithLabelValues(dropQueueClosed).Inc()
	}
}

// admitQueued counts one more queued frame of session id, unless it has
// maxQueued already.
func (h *host) admitQueued(id protocol.NodeID) bool {
	h.queuedMu.Lock()
	defer h.queuedMu.Unlock()
	if h.queued[id] >= h.maxQueued {
		return false
	}
	h.queued[id]++
	return true
}

// unqueue counts one queued frame of session id less.
func (h *host) unqueue(id protocol.NodeID) {
	h.queuedMu.Lock()
	defer h.queuedMu.Unlock()
	if h.queued[id]--; h.queued[id] <= 0 {
		delete(h.queued, id)
	}
}

// refuse answers a client session's frame with a Refusal saying why, on
// the session's connection, and counts the frame as refused.
func (h *host) refuse(to protocol.NodeID, format string, args ...any) {
	reason := fmt.Sprintf(format, args...)
	h.metrics.dropped.WithLabelValues(dropRefused).Inc()
	h.log.Warn("client frame refused", "session", to, "reason", reason)
	h.send(protocol.Message{From: h.id, To: to, Body: &transportpb.Refusal{Reason: reason}})
}

// persist applies a Ready's writes. Writes that ask for a sync are applied
// unsynced all the same when the machine syncs them by group commit
// (h.sync); its metrics still count them as synced batches.
func (h *host) persist(writes []storage.Write, sync bool) error {
	sync = sync && h.sync
	if err := h.eng.Apply(writes, sync && h.m.gc == nil); err != nil {
		return err
	}
	h.metrics.writes.Add(float64(len(writes)))
	h.metrics.batches.WithLabelValues(strconv.FormatBool(sync)).Inc()
	return nil
}

// send hands one message to the transport: to another node's address,
// or back on a client session's own connection (never to an address a
// client names).
func (h *host) send(m protocol.Message) {
	if h.book.isNode(m.To) {
		sendVia(h.tr, h.book, h.log, h.metrics, m)
		return
	}
	if !h.book.topo.HasDC(m.To.DC()) {
		h.metrics.dropped.WithLabelValues(dropUnknownNode).Inc()
		h.log.Warn("message to a node with no known address dropped", "from", m.From, "to", m.To, "type", typeName(m.Body))
		return
	}
	if h.book.rule(m.To.DC()).cutOut {
		h.droppedOut.Add(1)
		return
	}
	err := h.tr.Reply(string(m.From), string(m.To), m.Body)
	switch {
	case err == nil:
		h.metrics.sent.inc(m.Body)
	case errors.Is(err, transport.ErrNoRoute):
		h.metrics.dropped.WithLabelValues(dropNoRoute).Inc()
		h.log.Debug("reply to a disconnected session dropped", "from", m.From, "to", m.To, "type", typeName(m.Body))
	default:
		h.metrics.dropped.WithLabelValues(dropSendFailed).Inc()
		h.log.Debug("reply not sent", "from", m.From, "to", m.To, "type", typeName(m.Body), "err", err)
	}
}

// sendVia sends m over tr to the address book's address of m.To; metrics
// may be nil.
func sendVia(tr *transport.Transport, book *addressBook, log *slog.Logger, mt *metrics, m protocol.Message) {
	addr, ok := book.addrOf(m.To)
	if !ok {
		if mt != nil {
			mt.dropped.WithLabelValues(dropUnknownNode).Inc()
		}
		log.Warn("message to a node with no known address dropped", "from", m.From, "to", m.To, "type", typeName(m.Body))
		return
	}
	if err := tr.Send(addr, string(m.From), string(m.To), m.Body); err != nil {
		if mt != nil {
			mt.dropped.WithLabelValues(dropSendFailed).Inc()
		}
		level := slog.LevelWarn
		if errors.Is(err, transport.ErrQueueFull) || errors.Is(err, transport.ErrClosed) {
			level = slog.LevelDebug // the protocols retry; a down peer fills its queue
		}
		log.Log(context.Background(), level, "message not sent", "from", m.From, "to", m.To, "addr", addr, "type", typeName(m.Body), "err", err)
		return
	}
	if mt != nil {
		mt.sent.inc(m.Body)
	}
}

// httpHandler serves /healthz, /metrics and /status.
func (h *host) httpHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !h.ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "starting")
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("/metrics", promhttp.HandlerFor(h.metrics.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET "+cluster.StatusPath, h.serveStatus)
	if h.admin {
		h.handleAdmin(mux)
		h.handleClock(mux)
	}
	return mux
}

// newRand returns a randomly seeded source for a state machine.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }

// SessionID is the node ID of client session name in datacenter dc:
// "dc/name". name must not contain '/'.
func SessionID(dc, name string) protocol.NodeID {
	return protocol.MakeNodeID(dc, name)
}

// addressBook maps the cluster's node IDs to transport addresses, and
// addresses to datacenters (for the WAN delay and the link controls,
// links.go). Client sessions have no address: replies reach them on
// their own connections (transport.Transport.Reply).
type addressBook struct {
	selfDC string
	topo   *topology.Topology
	wan    bool // add the topology's one-way delays
	nodes  map[protocol.NodeID]string
	nodeDC map[string]string // node address -> DC

	mu sync.Mutex
	// rules are the link controls' rules by datacenter, replaced (never
	// modified) under mu; cut, if set, cuts or heals the transport's link
	// to an address, and is called under mu.
	rules atomic.Pointer[linkRules]
	cut   func(addr string, cut bool)
}

func newAddressBook(cfg *cluster.Config, selfDC string) *addressBook {
	b := &addressBook{selfDC: selfDC, topo: cfg.Topology, wan: cfg.WANDelay, nodes: map[protocol.NodeID]string{},
		nodeDC: map[string]string{}}
	for _, n := range cfg.Nodes {
		id := protocol.NodeID(n.ID)
		b.nodes[id] = n.Addr
		b.nodeDC[n.Addr] = id.DC()
	}
	return b
}

// isNode reports whether id is a node of the cluster (not a session).
func (b *addressBook) isNode(id protocol.NodeID) bool {
	_, ok := b.nodes[id]
	return ok
}

// addrOf returns where to send frames for node id.
func (b *addressBook) addrOf(id protocol.NodeID) (string, bool) {
	a, ok := b.nodes[id]
	return a, ok
}

// delay is the one-way WAN delay of a frame sent to dest, a node's
// address or a session's node ID (a reply, transport.Transport.Reply): the
// topology's (with wan_delay; inside the datacenter only an
// intra_dc_rtt_ms the topology sets) plus what the link controls add.
func (b *addressBook) delay(dest string) time.Duration {
	dc, ok := b.nodeDC[dest]
	if !ok && strings.Contains(dest, "/") {
		dc, ok = protocol.NodeID(dest).DC(), b.topo.HasDC(protocol.NodeID(dest).DC())
	}
	if !ok {
		return 0
	}
	d := b.rule(dc).delay
	if b.wan && (dc != b.selfDC || b.topo.IntraDCRTTms > 0) {
		d += b.topo.OneWay(b.selfDC, dc)
	}
	return d
}
