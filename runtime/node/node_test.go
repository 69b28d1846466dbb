package node

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/causeway/causeway/certs"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// patience bounds every wait of these tests: it only turns a hang into a
// failure and is never part of an assertion.
const patience = 30 * time.Second

// logBuffer collects the logs of a test's nodes; they are printed only if
// the test fails.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testCluster runs the nodes of a cluster in goroutines of the test.
type testCluster struct {
	t    *testing.T
	cfg  *cluster.Config
	logs *logBuffer
	log  *slog.Logger

	mu      sync.Mutex
	running map[string]*runningNode
}

type runningNode struct {
	cancel context.CancelFunc
	done   chan error
}

// planLocal3 plans a cluster of protocol p on the local3 topology in a
// temporary directory.
func planLocal3(t *testing.T, p string) *cluster.Config {
	t.Helper()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cluster.Plan(topo, p, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// newCluster plans a cluster of protocol p on the local3 topology in a
// temporary directory, without WAN delay.
func newCluster(t *testing.T, p string) *testCluster {
	t.Helper()
	cfg := planLocal3(t, p)
	cfg.WANDelay = false
	logs := &logBuffer{}
	tc := &testCluster{t: t, cfg: cfg, logs: logs, running: map[string]*runningNode{},
		log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	t.Cleanup(func() {
		tc.stopAll()
		if t.Failed() {
			t.Logf("node logs:\n%s", logs.String())
		}
	})
	return tc
}

// start runs the given nodes (all when none is given) and waits until they
// answer /healthz.
func (tc *testCluster) start(ids ...string) {
	tc.t.Helper()
	if len(ids) == 0 {
		ids = tc.cfg.NodeIDs()
	}
	for _, id := range ids {
		ctx, cancel := context.WithCancel(context.Background())
		rn := &runningNode{cancel: cancel, done: make(chan error, 1)}
		tc.mu.Lock()
		tc.running[id] = rn
		tc.mu.Unlock()
		go func() { rn.done <- Run(ctx, tc.cfg, id, tc.log.With("test_node", id)) }()
	}
	for _, id := range ids {
		tc.waitHealthy(id)
	}
}

// stop cancels node id and waits for Run to return, which must be nil.
func (tc *testCluster) stop(id string) {
	tc.t.Helper()
	tc.mu.Lock()
	rn := tc.running[id]
	delete(tc.running, id)
	tc.mu.Unlock()
	if rn == nil {
		return
	}
	rn.cancel()
	select {
	case err := <-rn.done:
		if err != nil {
			tc.t.Errorf("node %s: Run: %v", id, err)
		}
	case <-time.After(patience):
		tc.t.Fatalf("node %s did not stop within %v", id, patience)
	}
}

func (tc *testCluster) stopAll() {
	tc.mu.Lock()
	ids := make([]string, 0, len(tc.running))
	for id := range tc.running {
		ids = append(ids, id)
	}
	tc.mu.Unlock()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() { tc.stop(id) })
	}
	wg.Wait()
}

// httpGet returns the status and body of GET path on node id's http
// address, as the cluster commands make it (HTTPS with the admin
// certificate when tls is on).
func (tc *testCluster) httpGet(id, path string) (int, string, error) {
	c, err := tc.cfg.HTTPClient(2 * time.Second)
	if err != nil {
		return 0, "", err
	}
	resp, err := c.Get(tc.cfg.NodeURL(*tc.cfg.Node(id), path))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// waitHealthy polls node id's /healthz until it answers 200, failing the
// test if it does not within patience or if its Run returns.
func (tc *testCluster) waitHealthy(id string) {
	tc.t.Helper()
	tc.mu.Lock()
	rn := tc.running[id]
	tc.mu.Unlock()
	deadline := time.Now().Add(patience)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		code, body, err := tc.httpGet(id, "/healthz")
		if err == nil && code == http.StatusOK {
			if strings.TrimSpace(body) != "ok" {
				tc.t.Fatalf("node %s: /healthz says %q, want ok", id, body)
			}
			return
		}
		if time.Now().After(deadline) {
			tc.t.Fatalf("node %s not healthy within %v: %d %q %v", id, patience, code, body, err)
		}
		select {
		case err := <-rn.done:
			tc.t.Fatalf("node %s: Run returned %v before it was healthy", id, err)
		case <-tick.C:
		}
	}
}

// session dials dc and opens a session, closed at the end of the test.
func (tc *testCluster) session(dc string, opts DialOptions) *kvSession {
	tc.t.Helper()
	conn, err := DialWithOptions(tc.cfg, dc, opts)
	if err != nil {
		tc.t.Fatal(err)
	}
	tc.t.Cleanup(func() { _ = conn.Close() })
	s, err := conn.NewSession()
	if err != nil {
		tc.t.Fatal(err)
	}
	return newKV(s, dc)
}

// eventually polls a get of key by s until it returns want; a timed-out
// get is retried.
func eventually(ctx context.Context, t *testing.T, s *kvSession, key, want string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		v, found, err := s.Get(ctx, key)
		switch {
		case err == nil && found && string(v) == want:
			return
		case ctx.Err() != nil:
			t.Fatalf("get %q in %s: last answer %q (found %v, err %v), want %q", key, s.DC(), v, found, err, want)
		case err != nil && !errors.Is(err, errTimeout) && !errors.Is(err, errUnavailable):
			t.Fatalf("get %q in %s: %v", key, s.DC(), err)
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}

// TestCOPSAcrossNodeHosts runs every node of cops on local3 with Run, puts
// through a client in DC a and reads the value through a client in DC c,
// then checks the nodes' HTTP endpoints.
func TestCOPSAcrossNodeHosts(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.start()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()

	alice := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	bob := tc.session("c", DialOptions{OpTimeout: 2 * time.Second})
	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatal(err)
	}
	if v, found, err := alice.Get(ctx, "x"); err != nil || !found || string(v) != "x1" {
		t.Fatalf("alice reads her own write: %q %v %v", v, found, err)
	}
	eventually(ctx, t, bob, "x", "x1")
	if _, err := bob.ReadTxn(ctx, "x"); !errors.Is(err, errUnsupported) {
		t.Errorf("ReadTxn on cops: %v, want ErrUnsupported", err)
	}

	// The shard of x in DC a received the put and wrote it to storage.
	owner := fmt.Sprintf("a/s%d", tc.cfg.Topology.ServerIndex("a", "x"))
	code, body, err := tc.httpGet(owner, "/metrics")
	if err != nil || code != http.StatusOK {
		t.Fatalf("%s /metrics: %d %v", owner, code, err)
	}
	for _, want := range []string{
		`causeway_messages_received_total{node="` + owner + `",type="causeway.fullrep.v1.PutRequest"} 1`,
		`causeway_messages_sent_total{node="` + owner + `",type="causeway.fullrep.v1.Replicate"}`,
		`causeway_storage_writes_total{node="` + owner + `"}`,
		`causeway_queue_depth{node="` + owner + `"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("%s /metrics lacks %s:\n%s", owner, want, body)
		}
	}
	if code, body, err := tc.httpGet("c/s0", "/healthz"); err != nil || code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q %v", code, body, err)
	}
	if !strings.Contains(body, `causeway_storage_disk_bytes{node="`+owner+`"}`) {
		t.Errorf("%s /metrics lacks causeway_storage_disk_bytes", owner)
	}

	// /status: who the node is, since when, and how much disk its store
	// takes (the put above reached it).
	code, body, err = tc.httpGet(owner, cluster.StatusPath)
	var info cluster.NodeInfo
	if err != nil || code != http.StatusOK || json.Unmarshal([]byte(body), &info) != nil {
		t.Fatalf("%s %s: %d %q %v", owner, cluster.StatusPath, code, body, err)
	}
	if info.Node != owner || info.Protocol != "cops" || !info.Ready || info.Incarnation != 1 ||
		info.UptimeS <= 0 || info.Started.IsZero() || info.DataBytes == nil || *info.DataBytes == 0 {
		t.Errorf("%s %s: %+v; want the node, cops, ready, incarnation 1, an uptime, a start time and its data size", owner, cluster.StatusPath, info)
	}
}

// TestRestartKeepsAcknowledgedWrites stops every node of DC a after an
// acknowledged put there, restarts them on the same data directories and
// ports, and reads the value back in DC a: it can only come from disk (no
// other DC sends a's own writes back to it).
func TestRestartKeepsAcknowledgedWrites(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.start()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()

	alice := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	for _, k := range []string{"k1", "k2", "k3"} {
		if err := alice.Put(ctx, k, []byte(k+"-v")); err != nil {
			t.Fatal(err)
		}
	}
	var inA []string
	for _, id := range tc.cfg.NodeIDs() {
		if protocol.NodeID(id).DC() == "a" {
			inA = append(inA, id)
		}
	}
	for _, id := range inA {
		tc.stop(id)
	}
	tc.start(inA...)

	fresh := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	for _, k := range []string{"k1", "k2", "k3"} {
		eventually(ctx, t, fresh, k, k+"-v")
	}
	// And the cluster still replicates: a write made after the restart
	// reaches DC b.
	if err := fresh.Put(ctx, "k4", []byte("k4-v")); err != nil {
		t.Fatal(err)
	}
	eventually(ctx, t, tc.session("b", DialOptions{OpTimeout: 2 * time.Second}), "k4", "k4-v")
}

// useTLS turns tls on in tc's cluster, with certificates made as cluster
// up makes them: one per node, and the client and admin client
// certificates.
func (tc *testCluster) useTLS() {
	tc.t.Helper()
	dir := tc.t.TempDir()
	if err := certs.Generate(dir, certs.Options{Nodes: tc.cfg.NodeIDs(), Clients: []string{cluster.ClientCertName, cluster.AdminCertName}}); err != nil {
		tc.t.Fatal(err)
	}
	tc.cfg.TLS, tc.cfg.CertsDir = true, dir
}

// TestMutualTLS runs the cluster with tls: true and certificates from
// package certs; the client's certificate is a client certificate (it
// does not serve: replies come back on its connections).
func TestMutualTLS(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.useTLS()
	tc.start()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()
	alice := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatal(err)
	}
	eventually(ctx, t, tc.session("b", DialOptions{OpTimeout: 2 * time.Second}), "x", "x1")

	// A client without a certificate of the cluster's CA gets nowhere.
	if _, err := DialWithOptions(tc.cfg, "a", DialOptions{CertName: "nobody"}); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("dial with a missing certificate: %v", err)
	}
}

// TestAddressBook checks the addresses and WAN delays a node uses.
func TestAddressBook(t *testing.T) {
	cfg := planLocal3(t, "cops")
	b := newAddressBook(cfg, "a")
	c0 := cfg.Node("c/s0")
	if addr, ok := b.addrOf("c/s0"); !ok || addr != c0.Addr {
		t.Errorf("addrOf(c/s0) = %q, %v; want %q", addr, ok, c0.Addr)
	}
	if d := b.delay(c0.Addr); d != 60*time.Millisecond {
		t.Errorf("delay a->c = %v, want 60ms (RTT 120ms / 2)", d)
	}
	// A reply to a session (by its node ID) waits out the delay to its DC.
	if d := b.delay(string(SessionID("b", "c1-1"))); d != 20*time.Millisecond {
		t.Errorf("delay a->session in b = %v, want 20ms", d)
	}
	if d := b.delay("127.0.0.1:5555"); d != 0 {
		t.Errorf("delay to an unknown address = %v, want 0", d)
	}
	for _, id := range []protocol.NodeID{"a/s9", "zz/c1@127.0.0.1:5555", "a/c1@127.0.0.1:5555", "a/c1"} {
		if addr, ok := b.addrOf(id); ok {
			t.Errorf("addrOf(%s) = %q, want none", id, addr)
		}
	}
	// Inside a datacenter nothing is emulated unless the topology sets
	// intra_dc_rtt_ms: local3 does not (the simulator's default applies
	// there, not here).
	if d := b.delay(cfg.Node("a/s1").Addr); d != 0 {
		t.Errorf("delay a->a with no intra_dc_rtt_ms = %v, want 0", d)
	}
	if d := b.delay(string(SessionID("a", "c2-1"))); d != 0 {
		t.Errorf("delay a->session in a = %v, want 0", d)
	}
	topo, err := topology.Parse([]byte("name: t\ndatacenters: [{name: a, servers: 2}, {name: b, servers: 1}]\nrtt_ms: {a-b: 10}\nintra_dc_rtt_ms: 0.4\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg2, err := cluster.Plan(topo, "cops", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if d := newAddressBook(cfg2, "a").delay(cfg2.Node("a/s1").Addr); d != 200*time.Microsecond {
		t.Errorf("delay a->a with intra_dc_rtt_ms 0.4 = %v, want 200µs", d)
	}
}

func TestRunAndDialErrors(t *testing.T) {
	cfg := planLocal3(t, "cops")
	if err := Run(context.Background(), cfg, "a/s7", nil); err == nil || !strings.Contains(err.Error(), "a/s0") {
		t.Errorf("Run of an unknown node: %v, want an error listing the nodes", err)
	}
	if _, err := Dial(cfg, "mars"); err == nil || !strings.Contains(err.Error(), "mars") {
		t.Errorf("Dial of an unknown DC: %v", err)
	}
	// A port already taken: Run fails at once, naming the node.
	taken := *cfg
	taken.Nodes = append([]cluster.Node(nil), cfg.Nodes...)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	taken.Nodes[0].Addr = lis.Addr().String()
	if err := Run(context.Background(), &taken, taken.Nodes[0].ID, nil); err == nil || !strings.Contains(err.Error(), taken.Nodes[0].ID) {
		t.Errorf("Run on a taken port: %v", err)
	}
}

// TestWANDelay runs the cluster with wan_delay: a put in DC a cannot be
// read in DC c before the replication message has waited out the one-way
// delay a->c (120 ms RTT / 2).
func TestWANDelay(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.cfg.WANDelay = true
	tc.start()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()
	alice := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	bob := tc.session("c", DialOptions{OpTimeout: 2 * time.Second})
	start := time.Now()
	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatal(err)
	}
	eventually(ctx, t, bob, "x", "x1")
	if d, min := time.Since(start), tc.cfg.Topology.OneWay("a", "c"); d < min {
		t.Errorf("the put was visible in c %v after it started, less than the one-way delay %v", d, min)
	}
}

// TestBind runs the nodes as in a container: each listens on every
// interface (bind 0.0.0.0) while the others dial it by a name
// (localhost); the client dials by that name too and gets its replies on
// its connection.
func TestBind(t *testing.T) {
	tc := newCluster(t, "cops")
	for i := range tc.cfg.Nodes {
		n := &tc.cfg.Nodes[i]
		n.Addr = strings.Replace(n.Addr, "127.0.0.1:", "localhost:", 1)
		n.HTTP = strings.Replace(n.HTTP, "127.0.0.1:", "localhost:", 1)
		n.Bind = "0.0.0.0"
	}
	tc.start()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()
	if goruntime.GOOS == "linux" {
		// The whole of 127/8 is loopback on Linux: 127.0.0.2 reaches a
		// node only if it listens on every interface, not on localhost.
		_, port, _ := net.SplitHostPort(tc.cfg.Nodes[0].HTTP)
		resp, err := (&http.Client{Timeout: 2 * time.Second}).Get("http://127.0.0.2:" + port + "/healthz")
		if err != nil {
			t.Fatalf("the node does not listen on every interface: %v", err)
		}
		resp.Body.Close()
	}

	conn, err := Dial(tc.cfg, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(s.ID()), "@") {
		t.Errorf("session %s carries an address", s.ID())
	}
	alice := newKV(s, "a")
	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatal(err)
	}
	eventually(ctx, t, tc.session("c", DialOptions{OpTimeout: 2 * time.Second}), "x", "x1")

}
