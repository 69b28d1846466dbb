package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
)

// echo is a tiny protocol for testing the simulator: one server per DC
// ("DC/s0"). A session's put goes to its DC's server, which persists it
// (synced only if the value starts with "sync"), acknowledges it and
// forwards it to every other DC's server. Servers log what they receive.
type echo struct {
	nodes map[protocol.NodeID]*echoNode
	log   *[]string
	cost  float64       // of every server (NodeSpec.Cost)
	role  protocol.Role // of every server (NodeSpec.Role)
}

func newEcho() *echo { return &echo{nodes: map[protocol.NodeID]*echoNode{}, log: new([]string)} }

func (e *echo) Name() string                                          { return "echo" }
func (e *echo) Summary() string                                       { return "test protocol" }
func (e *echo) Guarantee() protocol.Guarantee                         { return protocol.Eventual }
func (e *echo) Validate(*topology.Topology) error                     { return nil }
func (e *echo) Replicas(*topology.Topology, string) []protocol.NodeID { return nil }
func (e *echo) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, dc := range t.DCNames() {
		out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(dc, "s0"), Zone: "back", Cost: e.cost, Role: e.role})
	}
	return out
}
func (e *echo) NewNode(cfg protocol.NodeConfig) protocol.Node {
	n := &echoNode{id: cfg.ID, topo: cfg.Topology, log: e.log, mem: map[string]string{}}
	_ = cfg.Storage.Scan("", func(r storage.Record) error { n.recovered = append(n.recovered, string(r.Value)); return nil })
	e.nodes[cfg.ID] = n
	return n
}
func (e *echo) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return &echoSession{id: cfg.ID}
}

type echoNode struct {
	id        protocol.NodeID
	topo      *topology.Topology
	log       *[]string
	mem       map[string]string
	recovered []string
	version   uint64
}

func (n *echoNode) Start(time.Duration) protocol.Ready { return protocol.Ready{} }
func (n *echoNode) Tick(now time.Duration, token uint64) protocol.Ready {
	*n.log = append(*n.log, fmt.Sprintf("%v %s tick %d", now, n.id, token))
	return protocol.Ready{}
}
func (n *echoNode) Step(now time.Duration, m protocol.Message) protocol.Ready {
	v := m.Body.(*wrapperspb.StringValue).Value
	*n.log = append(*n.log, fmt.Sprintf("%v %s <- %s %s", now, n.id, m.From, v))
	var r protocol.Ready
	n.version++
	n.mem[v] = v
	r.Write(storage.Write{Key: v, Version: n.version, Value: []byte(v)}, strings.HasPrefix(v, "sync"))
	if m.From.Name() != "s0" { // from a session: ack and forward
		r.Send(n.id, m.From, wrapperspb.String("ack "+v))
		for _, dc := range n.topo.DCNames() {
			if dc != n.id.DC() {
				r.Send(n.id, protocol.MakeNodeID(dc, "s0"), wrapperspb.String(v))
			}
		}
		r.SetTimer(time.Second, n.version)
	}
	return r
}

type echoSession struct{ id protocol.NodeID }

func (s *echoSession) Start(time.Duration) protocol.Ready        { return protocol.Ready{} }
func (s *echoSession) Tick(time.Duration, uint64) protocol.Ready { return protocol.Ready{} }
func (s *echoSession) Submit(_ time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	r.Send(s.id, protocol.MakeNodeID(s.id.DC(), "s0"), wrapperspb.String(string(req.Value)))
	return r
}
func (s *echoSession) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	r.Reply(protocol.Reply{Op: protocol.OpPut})
	return r
}

func local3(t *testing.T) *topology.Topology {
	t.Helper()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func put(t *testing.T, s *Sim, session protocol.NodeID, v string) (done *time.Duration) {
	t.Helper()
	done = new(time.Duration)
	*done = -1
	if err := s.Submit(session, protocol.Request{Op: protocol.OpPut, Key: "k", Value: []byte(v)}, func(now time.Duration, _ protocol.Reply) { *done = now }); err != nil {
		t.Fatal(err)
	}
	return done
}

func TestDelaysFollowTheLatencyMatrix(t *testing.T) {
	e := newEcho()
	s, err := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.AddSession("a", "c1")
	done := put(t, s, c, "x")
	s.RunUntil(1100 * time.Millisecond)
	// local3: intra-DC RTT 0.5ms, a-b 40ms, a-c 120ms.
	if *done != 500*time.Microsecond {
		t.Errorf("ack after %v, want the intra-DC RTT 500µs", *done)
	}
	want := []string{
		"250µs a/s0 <- a/c1 x",
		"20.25ms b/s0 <- a/s0 x",
		"60.25ms c/s0 <- a/s0 x",
		"1.00025s a/s0 tick 1",
	}
	if got := strings.Join(*e.log, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	st := s.Stats()
	if st.Messages != 4 || st.WANMessages != 2 || st.WANBytes == 0 {
		t.Errorf("stats = %+v, want 4 messages of which 2 wide-area", st)
	}
}

func TestPartitionDropsAndHealRestores(t *testing.T) {
	e := newEcho()
	sched, err := faults.Parse([]byte(`
- {at: 0s, partition: [[a], [b]]}
- {at: 1s, heal: all}
`), local3(t))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1, Faults: sched})
	c, _ := s.AddSession("a", "c1")
	s.RunUntil(time.Millisecond)
	put(t, s, c, "cut")
	s.RunUntil(1500 * time.Millisecond)
	put(t, s, c, "healed")
	s.RunUntil(3 * time.Second)
	log := strings.Join(*e.log, "\n")
	if strings.Contains(log, "b/s0 <- a/s0 cut") {
		t.Errorf("a message crossed a partition:\n%s", log)
	}
	if !strings.Contains(log, "c/s0 <- a/s0 cut") {
		t.Errorf("the partition cut a link it does not name:\n%s", log)
	}
	if !strings.Contains(log, "b/s0 <- a/s0 healed") {
		t.Errorf("heal did not restore the link:\n%s", log)
	}
	if s.Stats().Dropped != 1 {
		t.Errorf("dropped = %d, want 1", s.Stats().Dropped)
	}
}

// TestZonePartitions checks partitions between availability zones: the
// echo servers are in their DCs' back zones, and sessions in no zone.
func TestZonePartitions(t *testing.T) {
	for _, tc := range []struct {
		partition string
		toB, toC  bool // whether a/s0's forward reaches b/s0, c/s0
	}{
		{"[[a], [b/back]]", false, true},
		{"[[a/back], [b, c]]", false, false},
	} {
		e := newEcho()
		sched, err := faults.Parse([]byte("- {at: 0s, partition: "+tc.partition+"}\n"), local3(t))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1, Faults: sched})
		c, _ := s.AddSession("a", "c1")
		s.RunUntil(time.Millisecond)
		done := put(t, s, c, "x")
		s.RunUntil(time.Second)
		log := strings.Join(*e.log, "\n")
		if *done < 0 {
			t.Errorf("%s: the session in a was cut from a/s0", tc.partition)
		}
		if got := strings.Contains(log, "b/s0 <- a/s0 x"); got != tc.toB {
			t.Errorf("%s: reached b/s0 = %v, want %v", tc.partition, got, tc.toB)
		}
		if got := strings.Contains(log, "c/s0 <- a/s0 x"); got != tc.toC {
			t.Errorf("%s: reached c/s0 = %v, want %v", tc.partition, got, tc.toC)
		}
	}
	if _, err := faults.Parse([]byte("- {at: 0s, partition: [[a/middle], [b]]}\n"), local3(t)); err == nil {
		t.Error("a zone other than front or back was accepted")
	}
	// echo has no front-end nodes: a partition naming a front zone cuts nothing.
	sched, err := faults.Parse([]byte("- {at: 0s, partition: [[a/front], [b]]}\n"), local3(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Topology: local3(t), Protocol: newEcho(), Seed: 1, Faults: sched}); err == nil {
		t.Error("a partition of a zone with no node was accepted")
	}
}

func TestCrashKeepsOnlySyncedWritesAndDropsTimers(t *testing.T) {
	e := newEcho()
	sched, _ := faults.Parse([]byte(`
- {at: 100ms, crash: "node:a/s0"}
- {at: 200ms, restart: "node:a/s0"}
`), local3(t))
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1, Faults: sched})
	c, _ := s.AddSession("a", "c1")
	put(t, s, c, "sync-1")
	s.RunUntil(10 * time.Millisecond)
	put(t, s, c, "lazy-2")
	s.RunUntil(50 * time.Millisecond)
	before := e.nodes["a/s0"]
	s.RunUntil(2 * time.Second)
	after := e.nodes["a/s0"]
	if before == after {
		t.Fatal("restart did not create a new node instance")
	}
	if len(after.recovered) < 1 || after.recovered[0] != "sync-1" {
		t.Errorf("recovered %v, want the synced write sync-1 first", after.recovered)
	}
	for _, v := range after.recovered {
		if v == "lazy-2" {
			t.Log("the unsynced write survived this crash (allowed: a prefix of the log may survive)")
		}
	}
	for _, l := range *e.log {
		if strings.Contains(l, "a/s0 tick") {
			t.Errorf("a timer set before the crash fired after it: %s", l)
		}
	}
}

func TestServiceTimeQueuesInputs(t *testing.T) {
	e := newEcho()
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1, ServiceTime: 10 * time.Millisecond})
	var dones []*time.Duration
	for i := 0; i < 3; i++ {
		c, _ := s.AddSession("a", fmt.Sprintf("c%d", i))
		dones = append(dones, put(t, s, c, fmt.Sprintf("v%d", i)))
	}
	s.RunUntil(time.Second)
	// All three arrive at 250µs; the server serves them one by one, each
	// reply leaving when its 10ms of service is over.
	for i, d := range dones {
		want := 250*time.Microsecond + time.Duration(i+1)*10*time.Millisecond + 250*time.Microsecond
		if *d != want {
			t.Errorf("op %d acked at %v, want %v", i, *d, want)
		}
	}
}

// TestServedReportsWaitAndService: the Served hook sees each input a
// server starts, with its queue wait, its service time and whether a
// client sent it.
func TestServedReportsWaitAndService(t *testing.T) {
	e := newEcho()
	var got []string
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1, ServiceTime: 10 * time.Millisecond,
		Served: func(at time.Duration, node protocol.NodeID, client bool, wait, service time.Duration) {
			if node == "a/s0" {
				got = append(got, fmt.Sprintf("%v %v %v %v", at, client, wait, service))
			}
		}})
	for i := 0; i < 3; i++ {
		c, _ := s.AddSession("a", fmt.Sprintf("c%d", i))
		put(t, s, c, fmt.Sprintf("v%d", i))
	}
	s.RunUntil(time.Second)
	want := []string{"250µs true 0s 10ms", "10.25ms true 10ms 10ms", "20.25ms true 20ms 10ms"}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("a/s0 served %q, want %q first", got, want)
	}
}

func TestNodeCostScalesServiceTime(t *testing.T) {
	e := newEcho()
	e.cost = 0.25
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1, ServiceTime: 10 * time.Millisecond})
	c, _ := s.AddSession("a", "c0")
	done := put(t, s, c, "v")
	s.RunUntil(time.Second)
	if want := 250*time.Microsecond + 2500*time.Microsecond + 250*time.Microsecond; *done != want {
		t.Errorf("acked at %v, want %v (a quarter of the 10ms service time)", *done, want)
	}
}

func TestClockSkewShiftsLocalTime(t *testing.T) {
	e := newEcho()
	sched, _ := faults.Parse([]byte(`[{at: 0s, clock_skew: {target: "dc:b", ms: 250}}]`), local3(t))
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1, Faults: sched})
	c, _ := s.AddSession("a", "c1")
	s.RunUntil(0)
	put(t, s, c, "x")
	s.RunUntil(time.Second)
	if !strings.Contains(strings.Join(*e.log, "\n"), "270.25ms b/s0 <- a/s0 x") {
		t.Errorf("b's clock is not 250ms ahead:\n%s", strings.Join(*e.log, "\n"))
	}
}

func TestSameSeedSameRun(t *testing.T) {
	run := func(seed uint64) string {
		e := newEcho()
		topo := local3(t)
		s, _ := New(Config{Topology: topo, Protocol: e, Seed: seed, Jitter: 5 * time.Millisecond,
			Faults: faults.Random(NewRand(seed, "fault-schedule"), topo, e.Nodes(topo), 10*time.Second)})
		for i := 0; i < 6; i++ {
			c, _ := s.AddSession(topo.DCNames()[i%3], fmt.Sprintf("c%d", i))
			var next func(int)
			next = func(k int) {
				if k == 20 {
					return
				}
				_ = s.Submit(c, protocol.Request{Op: protocol.OpPut, Value: []byte(fmt.Sprintf("%s-%d", c, k))},
					func(time.Duration, protocol.Reply) { next(k + 1) })
			}
			next(0)
		}
		s.RunUntil(10 * time.Second)
		return strings.Join(*e.log, "\n")
	}
	a, b := run(7), run(7)
	if a != b {
		t.Fatal("two runs with seed 7 differ")
	}
	if a == run(8) {
		t.Fatal("seeds 7 and 8 gave the same run: jitter is not drawn from the seed")
	}
}

func TestFaultTargetingNoNodeIsRefused(t *testing.T) {
	_, err := New(Config{Topology: local3(t), Protocol: newEcho(), Seed: 1,
		Faults: faults.Schedule{{At: time.Second, Crash: "node:a/s99"}}})
	if err == nil || !strings.Contains(err.Error(), `"node:a/s99" matches no node`) {
		t.Fatalf("New = %v, want an error naming the target", err)
	}
}

// TestHeardSessions: a server hears from sessions by ordinal, across
// words of its bit set, forgets them at a restart, and a run whose
// servers answer only sessions that wrote to them counts no NoRoute with
// more sessions than one word holds.
func TestHeardSessions(t *testing.T) {
	var srv simNode
	sessions := make([]*simNode, 200)
	for i := range sessions {
		sessions[i] = &simNode{session: true, sidx: i}
	}
	heard := map[int]bool{0: true, 63: true, 64: true, 130: true}
	for i := range heard {
		srv.hear(sessions[i])
	}
	srv.hear(sessions[64]) // twice: still heard
	for i, f := range sessions {
		if srv.hears(f) != heard[i] {
			t.Fatalf("hears(session %d) = %v, want %v", i, srv.hears(f), heard[i])
		}
	}
	srv.heard = nil // as a restart does
	if srv.hears(sessions[0]) || srv.hears(sessions[130]) {
		t.Fatal("a restarted server still hears its sessions")
	}

	s, _ := New(Config{Topology: local3(t), Protocol: newEcho(), Seed: 1, Jitter: -1})
	var dones []*time.Duration
	for i := 0; i < 70; i++ {
		c, err := s.AddSession("a", fmt.Sprintf("c%d", i))
		if err != nil {
			t.Fatal(err)
		}
		dones = append(dones, put(t, s, c, fmt.Sprintf("v%d", i)))
	}
	s.RunUntil(time.Second)
	for i, d := range dones {
		if *d < 0 {
			t.Fatalf("session %d's put was not acknowledged", i)
		}
	}
	if st := s.Stats(); st.NoRoute != 0 {
		t.Fatalf("NoRoute %d, want 0: every ack goes to a session its server heard from", st.NoRoute)
	}
	if n := s.nodes["a/s0"]; len(n.heard) != 2 || !n.hears(s.nodes["a/c69"]) {
		t.Fatalf("a/s0 heard %v, want sessions 0-69 in two words", n.heard)
	}
}

// TestNodeLookupCache: Sim.node finds each node by its ID whatever the
// string's address (built anew each time, or the same string again, or
// a prefix of an ID sharing its bytes), and nothing for an unknown ID.
func TestNodeLookupCache(t *testing.T) {
	s, _ := New(Config{Topology: local3(t), Protocol: newEcho(), Seed: 1, Jitter: -1})
	ids := s.NodeIDs()
	for i := 0; i < 3; i++ {
		for _, id := range ids {
			fresh := protocol.NodeID(strings.Clone(string(id)))
			for _, x := range []protocol.NodeID{id, fresh, id} {
				if n := s.node(x); n == nil || n.id != id {
					t.Fatalf("node(%s) = %v", x, n)
				}
			}
			prefix := id[:len(id)-1] // same bytes' address, shorter
			if n := s.node(prefix); n != nil {
				t.Fatalf("node(%q) = %s, want none", prefix, n.id)
			}
		}
	}
	if n := s.node("a/nobody"); n != nil {
		t.Fatalf("node(a/nobody) = %s", n.id)
	}
}
