package live

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
)

// patience bounds every wait of these tests: it only turns a hang into a
// failure and is never part of an assertion.
const patience = 10 * time.Second

func local3(t *testing.T) *topology.Topology {
	t.Helper()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func start(t *testing.T, cfg Config) *Runtime {
	t.Helper()
	if cfg.Topology == nil {
		cfg.Topology = local3(t)
	}
	rt, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Stop() })
	return rt
}

func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(patience):
		t.Fatal("nothing received in time")
	}
	panic("unreachable")
}

func id(dc string) protocol.NodeID { return protocol.MakeNodeID(dc, "s0") }

// recorder is an Observer (and engine wrapper) that logs in order.
type recorder struct {
	mu   sync.Mutex
	log  []string
	sent []int // encoded sizes
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func (r *recorder) MessageSent(_ time.Duration, from, to protocol.NodeID, bytes int) {
	r.mu.Lock()
	r.log = append(r.log, fmt.Sprintf("send %s %s", from, to))
	r.sent = append(r.sent, bytes)
	r.mu.Unlock()
}

func (r *recorder) Visible(_ time.Duration, node protocol.NodeID, v protocol.Visibility) {
	r.add(fmt.Sprintf("visible %s %s=%s", node, v.Key, v.Value))
}

func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

func TestWANDelayIsALowerBound(t *testing.T) {
	type arrival struct {
		from, to  protocol.NodeID
		sent, got time.Duration
	}
	arrivals := make(chan arrival, 8)
	p := &scripted{
		onStart: func(n *scriptNode, now time.Duration) protocol.Ready {
			var r protocol.Ready
			if n.id == id("a") {
				for _, dc := range []string{"a", "b", "c"} {
					r.Send(n.id, id(dc), wrapperspb.Int64(int64(now)))
				}
			}
			return r
		},
		onStep: func(n *scriptNode, now time.Duration, m protocol.Message) protocol.Ready {
			arrivals <- arrival{m.From, n.id, time.Duration(m.Body.(*wrapperspb.Int64Value).Value), now}
			return protocol.Ready{}
		},
	}
	obs := &recorder{}
	rt := start(t, Config{Protocol: p, Jitter: -1, Observer: obs})
	var sentAt time.Duration
	for range 3 {
		a := receive(t, arrivals)
		sentAt = a.sent
		want := rt.Topology().OneWay("a", a.to.DC())
		if a.from != id("a") || a.got-a.sent < want {
			t.Errorf("%s -> %s: sent at %v, delivered at %v: before the one-way delay %v", a.from, a.to, a.sent, a.got, want)
		}
	}
	if rt.Topology().OneWay("a", "b") < 20*time.Millisecond {
		t.Fatalf("local3 a-b one-way delay %v, this test expects 40ms RTT", rt.Topology().OneWay("a", "b"))
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.sent) != 3 {
		t.Fatalf("observer saw %d messages, want 3", len(obs.sent))
	}
	// Payload bytes, as the simulator counts them: not the wire frame.
	size := proto.Size(wrapperspb.Int64(int64(sentAt)))
	for _, b := range obs.sent {
		if b != size {
			t.Errorf("observer was told %d bytes, want the payload size %d", b, size)
		}
	}
	if st := rt.Stats(); st.Messages != 3 || st.WANMessages != 2 || st.WANBytes != int64(2*size) {
		t.Errorf("stats = %+v, want 3 messages, 2 across DCs with %d payload bytes", st, 2*size)
	}
}

func TestLinksAreFIFOWithoutJitter(t *testing.T) {
	const total = 300
	done := make(chan string, 2)
	send := func(r *protocol.Ready, from protocol.NodeID, i int) {
		r.Send(from, id("b"), wrapperspb.Int64(int64(i)))
		r.Send(from, id("a"), wrapperspb.Int64(int64(i)))
	}
	p := &scripted{
		onStart: func(n *scriptNode, now time.Duration) protocol.Ready {
			var r protocol.Ready
			if n.id == id("a") {
				for i := range 100 { // a burst in one Ready…
					send(&r, n.id, i)
				}
				r.SetTimer(0, 100) // …then one message per Ready
			}
			return r
		},
		onTick: func(n *scriptNode, now time.Duration, token uint64) protocol.Ready {
			var r protocol.Ready
			send(&r, n.id, int(token))
			if token+1 < total {
				r.SetTimer(0, token+1)
			}
			return r
		},
		onStep: func(n *scriptNode, now time.Duration, m protocol.Message) protocol.Ready {
			got := int(m.Body.(*wrapperspb.Int64Value).Value)
			switch {
			case n.state < 0:
				// already reported
			case got != n.state:
				done <- fmt.Sprintf("%s got message %d, expected %d", n.id, got, n.state)
				n.state = -2 * total // report once
			case got == total-1:
				done <- ""
			}
			n.state++
			return protocol.Ready{}
		},
	}
	start(t, Config{Protocol: p, Jitter: -1})
	for range 2 {
		if msg := receive(t, done); msg != "" {
			t.Fatal(msg)
		}
	}
}

func TestTimersFireInOrderNoEarlierThanAsked(t *testing.T) {
	type tick struct {
		token    uint64
		set, now time.Duration
	}
	ticks := make(chan tick, 8)
	var setAt time.Duration // written by a's Start, read by a's Tick: same goroutine
	afters := map[uint64]time.Duration{1: 0, 3: 10 * time.Millisecond, 7: 30 * time.Millisecond}
	p := &scripted{
		onStart: func(n *scriptNode, now time.Duration) protocol.Ready {
			var r protocol.Ready
			if n.id == id("a") {
				setAt = now
				r.SetTimer(afters[7], 7)
				r.SetTimer(afters[3], 3)
				r.SetTimer(afters[1], 1)
			}
			return r
		},
		onTick: func(n *scriptNode, now time.Duration, token uint64) protocol.Ready {
			ticks <- tick{token, setAt, now}
			return protocol.Ready{}
		},
	}
	start(t, Config{Protocol: p})
	for _, want := range []uint64{1, 3, 7} {
		tk := receive(t, ticks)
		if tk.token != want {
			t.Fatalf("tick %d, want %d (timers fire in due order)", tk.token, want)
		}
		if tk.now < tk.set+afters[want] {
			t.Errorf("timer %d fired at %v, set at %v for %v", want, tk.now, tk.set, afters[want])
		}
	}
}

// recEngine logs each successful Apply.
type recEngine struct {
	storage.Engine
	id  protocol.NodeID
	rec *recorder
	err error
}

func (e *recEngine) Apply(ws []storage.Write, sync bool) error {
	if len(ws) > 0 && ws[0].Key == runtime.IncarnationKey {
		return e.Engine.Apply(ws, sync) // the runtime's boot counter, not a Ready
	}
	if e.err != nil {
		return e.err
	}
	if err := e.Engine.Apply(ws, sync); err != nil {
		return err
	}
	e.rec.add(fmt.Sprintf("persist %s %s sync=%v", e.id, ws[0].Key, sync))
	return nil
}

func TestPersistHappensBeforeSend(t *testing.T) {
	rec := &recorder{}
	var mu sync.Mutex
	engines := map[protocol.NodeID]storage.Engine{}
	seen := make(chan string, 1)
	p := &scripted{
		onStart: func(n *scriptNode, now time.Duration) protocol.Ready {
			var r protocol.Ready
			if n.id == id("a") {
				r.Write(storage.Write{Key: "k", Version: 1, Value: []byte("v")}, true)
				r.Send(n.id, id("b"), wrapperspb.String("wrote k"))
			}
			return r
		},
		onStep: func(n *scriptNode, now time.Duration, m protocol.Message) protocol.Ready {
			mu.Lock()
			eng := engines[m.From]
			mu.Unlock()
			rec, found, err := eng.Get("k")
			seen <- fmt.Sprintf("%v %q %v", found, rec.Value, err)
			return protocol.Ready{}
		},
	}
	newStorage := func(id protocol.NodeID) (storage.Engine, error) {
		e := &recEngine{Engine: storage.NewMem(), id: id, rec: rec}
		mu.Lock()
		engines[id] = e
		mu.Unlock()
		return e, nil
	}
	start(t, Config{Protocol: p, Observer: rec, NewStorage: newStorage})
	if got := receive(t, seen); got != `true "v" <nil>` {
		t.Fatalf("when b got the message, a's engine had k: %s; want it persisted", got)
	}
	want := []string{"persist a/s0 k sync=true", "send a/s0 b/s0"}
	if got := rec.lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("order = %q, want %q", got, want)
	}
}

func TestStorageFailureStopsTheNodeBeforeItsEffects(t *testing.T) {
	rec := &recorder{}
	p := &scripted{
		onStart: func(n *scriptNode, now time.Duration) protocol.Ready {
			var r protocol.Ready
			if n.id == id("a") {
				r.Write(storage.Write{Key: "k", Version: 1, Value: []byte("v")}, true)
				r.Send(n.id, id("b"), wrapperspb.String("wrote k"))
			}
			return r
		},
	}
	newStorage := func(id protocol.NodeID) (storage.Engine, error) {
		return &recEngine{Engine: storage.NewMem(), id: id, rec: rec, err: errors.New("disk on fire")}, nil
	}
	rt := start(t, Config{Protocol: p, Observer: rec, NewStorage: newStorage})
	// Every node handles Start before its loop can return, so after Stop
	// a's failure has happened.
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := rt.Err(); err == nil || !strings.Contains(err.Error(), "a/s0") || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Err() = %v, want a/s0's storage failure", err)
	}
	if got := rec.lines(); len(got) != 0 {
		t.Fatalf("a node whose persist failed still acted: %q", got)
	}
}

func TestSessionsReplicateAndConverge(t *testing.T) {
	obs := &recorder{}
	rt := start(t, Config{Protocol: &scripted{}, Observer: obs})
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	sa, err := rt.NewSession("a", "c1")
	if err != nil {
		t.Fatal(err)
	}
	sb, err := rt.NewSession("b", "c2")
	if err != nil {
		t.Fatal(err)
	}
	if sa.ID() != "a/c1" || sb.DC() != "b" {
		t.Fatalf("IDs %s %s", sa.ID(), sb.DC())
	}
	if _, err := rt.NewSession("a", "c1"); err == nil {
		t.Fatal("duplicate session accepted")
	}
	if _, err := rt.NewSession("nowhere", "c1"); err == nil {
		t.Fatal("session in an unknown DC accepted")
	}
	if rep, err := sa.Do(ctx, protocol.Request{Op: protocol.OpPut, Key: "k", Value: []byte("v1")}); err != nil || rep.Err != protocol.OK {
		t.Fatalf("put: %+v %v", rep, err)
	}
	if rep, err := sa.Do(ctx, protocol.Request{Op: protocol.OpGet, Key: "k"}); err != nil || string(rep.Value) != "v1" {
		t.Fatalf("get in a: %+v %v", rep, err)
	}
	for {
		rep, err := sb.Do(ctx, protocol.Request{Op: protocol.OpGet, Key: "k"})
		if err != nil {
			t.Fatalf("the put never became visible in b: %v", err)
		}
		if string(rep.Value) == "v1" {
			break
		}
	}
	if rep, err := sb.Do(ctx, protocol.Request{Op: protocol.OpReadTxn, Keys: []string{"k"}}); err != nil || rep.Err != protocol.ErrUnsupported {
		t.Fatalf("read_txn: %+v %v", rep, err)
	}
	if err := rt.Quiesce(ctx, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	check := func(when string, reps map[protocol.NodeID]map[string][]byte) {
		if len(reps) != 3 {
			t.Fatalf("%s: replicas of %d nodes, want 3", when, len(reps))
		}
		for n, kv := range reps {
			if string(kv["k"]) != "v1" || len(kv) != 1 {
				t.Errorf("%s: %s holds %q, want k=v1", when, n, kv)
			}
		}
	}
	check("running", rt.Replicas())
	vis := map[string]bool{}
	for _, l := range obs.lines() {
		vis[l] = true
	}
	for _, want := range []string{"visible b/s0 k=v1", "visible c/s0 k=v1"} {
		if !vis[want] {
			t.Errorf("observer missed %q", want)
		}
	}
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}
	check("stopped", rt.Replicas())
}

func TestSubmitAsyncClosedLoop(t *testing.T) {
	rt := start(t, Config{Protocol: &scripted{}})
	s, err := rt.NewSession("a", "c1")
	if err != nil {
		t.Fatal(err)
	}
	const ops = 25
	done := make(chan int, 1)
	count := 0 // touched only by callbacks, on the session's goroutine
	var next func(protocol.Reply)
	next = func(rep protocol.Reply) {
		count++
		if count == ops {
			done <- count
			return
		}
		if err := s.SubmitAsync(protocol.Request{Op: protocol.OpPut, Key: "k", Value: fmt.Appendf(nil, "v%d", count)}, next); err != nil {
			panic(err)
		}
	}
	if err := s.SubmitAsync(protocol.Request{Op: protocol.OpPut, Key: "k", Value: []byte("v0")}, next); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, done); got != ops {
		t.Fatalf("%d replies, want %d", got, ops)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	rep, err := s.Do(ctx, protocol.Request{Op: protocol.OpGet, Key: "k"})
	if err != nil || string(rep.Value) != fmt.Sprintf("v%d", ops-1) {
		t.Fatalf("get after the loop: %+v %v", rep, err)
	}
}

func TestOneOperationAtATime(t *testing.T) {
	rt := start(t, Config{Protocol: &scripted{}})
	s, err := rt.NewSession("a", "c1")
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan protocol.Reply, 1)
	// The register never answers a get of "black-hole".
	if err := s.SubmitAsync(protocol.Request{Op: protocol.OpGet, Key: "black-hole"}, func(r protocol.Reply) { called <- r }); err != nil {
		t.Fatal(err)
	}
	if err := s.SubmitAsync(protocol.Request{Op: protocol.OpGet, Key: "k"}, func(protocol.Reply) {}); !errors.Is(err, ErrBusy) {
		t.Fatalf("second SubmitAsync: %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Do(ctx, protocol.Request{Op: protocol.OpGet, Key: "k"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Do behind an outstanding op: %v, want the deadline", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Do(context.Background(), protocol.Request{Op: protocol.OpGet, Key: "k"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Do after Close: %v, want ErrClosed", err)
	}
	if err := s.SubmitAsync(protocol.Request{Op: protocol.OpGet, Key: "k"}, func(protocol.Reply) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("SubmitAsync after Close: %v, want ErrClosed", err)
	}
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-called:
		t.Fatalf("an unanswered operation got a reply: %+v", r)
	default:
	}
}

func TestStopEndsEveryGoroutine(t *testing.T) {
	before := goruntime.NumGoroutine()
	rt, err := Start(Config{Topology: local3(t), Protocol: &scripted{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	s, err := rt.NewSession("c", "c1")
	if err != nil {
		t.Fatal(err)
	}
	closed, err := rt.NewSession("b", "c2")
	if err != nil {
		t.Fatal(err)
	}
	_ = closed.Close()
	if _, err := s.Do(ctx, protocol.Request{Op: protocol.OpPut, Key: "k", Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	// Leave forwarded messages in flight and a get outstanding.
	if err := s.SubmitAsync(protocol.Request{Op: protocol.OpGet, Key: "black-hole"}, func(protocol.Reply) {}); err != nil {
		t.Fatal(err)
	}
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := rt.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, err := s.Do(ctx, protocol.Request{Op: protocol.OpGet, Key: "k"}); !errors.Is(err, ErrStopped) {
		t.Fatalf("Do after Stop: %v, want ErrStopped", err)
	}
	if _, err := rt.NewSession("a", "late"); !errors.Is(err, ErrStopped) {
		t.Fatalf("NewSession after Stop: %v, want ErrStopped", err)
	}
	// Goroutines that called wg.Done may take a moment to vanish.
	deadline := time.Now().Add(patience)
	for goruntime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Stop, %d before:\n%s", goruntime.NumGoroutine(), before, buf[:goruntime.Stack(buf, true)])
		}
		goruntime.Gosched()
	}
}

func TestNodeRandomnessIsSeeded(t *testing.T) {
	draws := func(seed uint64) map[protocol.NodeID]uint64 {
		var mu sync.Mutex
		out := map[protocol.NodeID]uint64{}
		p := &scripted{onNew: func(n *scriptNode, cfg protocol.NodeConfig) {
			mu.Lock()
			out[cfg.ID] = cfg.Rand.Uint64()
			mu.Unlock()
		}}
		rt := start(t, Config{Protocol: p, Seed: seed})
		if err := rt.Stop(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	one, again, two := draws(1), draws(1), draws(2)
	if len(one) != 3 {
		t.Fatalf("%d nodes drew, want 3", len(one))
	}
	for n, v := range one {
		if again[n] != v {
			t.Errorf("%s: seed 1 drew %d then %d", n, v, again[n])
		}
		if two[n] == v {
			t.Errorf("%s: seeds 1 and 2 drew the same %d", n, v)
		}
	}
	if one[id("a")] == one[id("b")] {
		t.Error("two nodes drew the same number")
	}
}

// TestNodesGetTheirRole: each node is created with its NodeSpec's role,
// RoleStorage when the spec names none.
func TestNodesGetTheirRole(t *testing.T) {
	var mu sync.Mutex
	got := map[protocol.NodeID]protocol.Role{}
	roles := map[string]protocol.Role{"a": protocol.RoleCoordinator, "b": "", "c": protocol.RoleCache}
	p := &scripted{roleOf: func(dc string) protocol.Role { return roles[dc] },
		onNew: func(n *scriptNode, cfg protocol.NodeConfig) {
			mu.Lock()
			got[cfg.ID] = cfg.Role
			mu.Unlock()
		}}
	rt := start(t, Config{Protocol: p})
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}
	want := map[protocol.NodeID]protocol.Role{id("a"): protocol.RoleCoordinator, id("b"): protocol.RoleStorage, id("c"): protocol.RoleCache}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("nodes created with roles %v, want %v", got, want)
	}
}

func TestStartValidates(t *testing.T) {
	if _, err := Start(Config{Protocol: &scripted{}}); err == nil {
		t.Error("Start without a topology succeeded")
	}
	failing := func(id protocol.NodeID) (storage.Engine, error) {
		if id == protocol.MakeNodeID("b", "s0") {
			return nil, errors.New("no disk")
		}
		return storage.NewMem(), nil
	}
	if _, err := Start(Config{Topology: local3(t), Protocol: &scripted{}, NewStorage: failing}); err == nil || !strings.Contains(err.Error(), "no disk") {
		t.Errorf("Start with failing storage: %v", err)
	}
}
