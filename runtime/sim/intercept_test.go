package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/wire/fullreppb"
)

func TestFilterMatches(t *testing.T) {
	for _, c := range []struct {
		f    Filter
		want bool
	}{
		{Filter{}, true},
		{Filter{Kind: "*", From: "*", To: "*"}, true},
		{Filter{Kind: "RingPut"}, true},
		{Filter{Kind: "RingPutAck"}, false},
		{Filter{From: "a"}, true},
		{Filter{From: "a/cc0"}, true},
		{Filter{From: "a/cc1"}, false},
		{Filter{From: "b"}, false},
		{Filter{To: "b"}, true},
		{Filter{To: "b/s1"}, true},
		{Filter{To: "b/s"}, false},
		{Filter{Kind: "RingPut", From: "a", To: "c"}, false},
	} {
		if got := c.f.Matches("RingPut", "a/cc0", "b/s1"); got != c.want {
			t.Errorf("%v matches RingPut a/cc0 -> b/s1 = %v, want %v", c.f, got, c.want)
		}
	}
}

// TestHoldDeliversWhenTold: a held forward reaches its receiver only when
// delivered, and then at the time of delivery; other links are untouched.
func TestHoldDeliversWhenTold(t *testing.T) {
	e := newEcho()
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1})
	c, _ := s.AddSession("a", "c1")
	s.Hold(Filter{Kind: "StringValue", From: "a/s0", To: "b"})
	put(t, s, c, "x")
	s.RunUntil(500 * time.Millisecond)
	log := strings.Join(*e.log, "\n")
	if strings.Contains(log, "b/s0 <- a/s0 x") {
		t.Fatalf("a held message was delivered:\n%s", log)
	}
	if !strings.Contains(log, "60.25ms c/s0 <- a/s0 x") {
		t.Fatalf("a message the rule does not match was held:\n%s", log)
	}
	held := s.Held()
	if len(held) != 1 || held[0].String() != `a/s0 -> b/s0 StringValue value:"x"` || held[0].Arrived != 20250*time.Microsecond {
		t.Fatalf("held = %v, want the forward to b/s0, arrived at 20.25ms", held)
	}
	if got := s.Deliver(Filter{Kind: "StringValue"}, 0); len(got) != 1 {
		t.Fatalf("delivered %v, want one message", got)
	}
	if !strings.Contains(strings.Join(*e.log, "\n"), "500ms b/s0 <- a/s0 x") {
		t.Errorf("the delivered message did not arrive at 500ms:\n%s", strings.Join(*e.log, "\n"))
	}
	if len(s.Held()) != 0 {
		t.Errorf("still held after delivery: %v", s.Held())
	}
}

// TestDeliverInArrivalOrder: n=1 delivers the earliest matching arrival,
// and the rest keep their order.
func TestDeliverInArrivalOrder(t *testing.T) {
	e := newEcho()
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1})
	c, _ := s.AddSession("a", "c1")
	s.Hold(Filter{From: "a/s0", To: "c/s0"})
	for _, v := range []string{"v1", "v2", "v3"} {
		put(t, s, c, v)
		s.RunUntil(s.Now() + 10*time.Millisecond)
	}
	s.RunUntil(time.Second)
	for _, want := range []string{"v1", "v2", "v3"} {
		got := s.Deliver(Filter{To: "c"}, 1)
		if len(got) != 1 || got[0].Body.(*wrapperspb.StringValue).Value != want {
			t.Fatalf("delivered %v, want %s", got, want)
		}
	}
	var atC []string
	for _, l := range *e.log {
		if strings.Contains(l, "c/s0 <- ") {
			atC = append(atC, l)
		}
	}
	if want := []string{"1s c/s0 <- a/s0 v1", "1s c/s0 <- a/s0 v2", "1s c/s0 <- a/s0 v3"}; strings.Join(atC, "\n") != strings.Join(want, "\n") {
		t.Errorf("c/s0 got:\n%s\nwant:\n%s", strings.Join(atC, "\n"), strings.Join(want, "\n"))
	}
}

// TestDropAndUnhold: a dropped message never arrives and counts as
// dropped; after Unhold new arrivals pass while held ones stay held.
func TestDropAndUnhold(t *testing.T) {
	e := newEcho()
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1})
	c, _ := s.AddSession("a", "c1")
	toB, toC := Filter{From: "a/s0", To: "b"}, Filter{From: "a/s0", To: "c"}
	s.Hold(toB)
	s.Hold(toC)
	put(t, s, c, "x")
	s.RunUntil(time.Second)
	if got := s.Drop(Filter{To: "b"}, 0); len(got) != 1 || got[0].To != "b/s0" {
		t.Fatalf("dropped %v, want the forward to b/s0", got)
	}
	if s.Stats().Dropped != 1 {
		t.Errorf("Dropped = %d, want 1", s.Stats().Dropped)
	}
	if n := s.Unhold(Filter{From: "b"}); n != 0 {
		t.Errorf("Unhold of a rule never installed removed %d", n)
	}
	if n := s.Unhold(toB); n != 1 {
		t.Errorf("Unhold removed %d rules, want 1", n)
	}
	if got := s.HoldRules(); len(got) != 1 || got[0] != toC {
		t.Errorf("rules = %v, want only %v", got, toC)
	}
	if n := s.UnholdAll(); n != 1 {
		t.Errorf("UnholdAll removed %d rules, want 1", n)
	}
	put(t, s, c, "y")
	s.RunUntil(2 * time.Second)
	log := strings.Join(*e.log, "\n")
	if strings.Contains(log, "<- a/s0 x") {
		t.Errorf("a dropped or held message arrived:\n%s", log)
	}
	if !strings.Contains(log, "b/s0 <- a/s0 y") || !strings.Contains(log, "c/s0 <- a/s0 y") {
		t.Errorf("messages were held after Unhold:\n%s", log)
	}
	if h := s.Held(); len(h) != 1 || h[0].To != "c/s0" {
		t.Errorf("held = %v, want the forward of x to c/s0 still held", h)
	}
}

// TestHeldMessageReachesRestartedNode: a message held while its receiver
// crashed and restarted is delivered to the new incarnation; one delivered
// while the receiver is down is lost.
func TestHeldMessageReachesRestartedNode(t *testing.T) {
	e := newEcho()
	s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1})
	c, _ := s.AddSession("a", "c1")
	s.Hold(Filter{To: "b/s0"})
	s.Hold(Filter{To: "c/s0"})
	put(t, s, c, "x")
	s.RunUntil(time.Second)
	old := e.nodes["b/s0"]
	s.Inject(faults.Event{Crash: "node:b/s0"})
	s.Inject(faults.Event{Restart: "node:b/s0"})
	s.Inject(faults.Event{Crash: "node:c/s0"})
	if got := s.Deliver(Filter{}, 0); len(got) != 2 {
		t.Fatalf("delivered %v, want two messages", got)
	}
	if e.nodes["b/s0"] == old {
		t.Fatal("b/s0 did not restart")
	}
	if e.nodes["b/s0"].mem["x"] != "x" {
		t.Error("the held message did not reach b/s0's new incarnation")
	}
	if strings.Contains(strings.Join(*e.log, "\n"), "c/s0 <- a/s0 x") {
		t.Error("a message delivered to a crashed node arrived")
	}
	if s.Stats().Dropped != 1 {
		t.Errorf("Dropped = %d, want 1 (the message to crashed c/s0)", s.Stats().Dropped)
	}
}

// TestTraceIsDeterministic: the trace sees every message handed to a
// node, held ones when delivered, and the same script gives the same
// trace.
func TestTraceIsDeterministic(t *testing.T) {
	run := func(seed uint64) []string {
		e := newEcho()
		s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: seed, Jitter: 5 * time.Millisecond})
		var trace []string
		s.SetTrace(func(now time.Duration, m protocol.Message) {
			trace = append(trace, fmt.Sprintf("%v %s -> %s %s", now, m.From, m.To, FormatMessage(m.Body)))
		})
		s.Hold(Filter{To: "c"})
		c, _ := s.AddSession("a", "c1")
		d, _ := s.AddSession("b", "d1")
		put(t, s, c, "x")
		put(t, s, d, "y")
		s.RunUntil(time.Second)
		s.Deliver(Filter{From: "b"}, 0)
		s.RunUntil(2 * time.Second)
		s.Deliver(Filter{}, 0)
		return trace
	}
	a := run(3)
	if len(a) != 8 {
		t.Fatalf("trace has %d lines, want 8 (2 puts, 2 acks, 4 forwards):\n%s", len(a), strings.Join(a, "\n"))
	}
	if a[6] != `1s b/s0 -> c/s0 StringValue value:"y"` || a[7] != `2s a/s0 -> c/s0 StringValue value:"x"` {
		t.Errorf("held messages traced as\n%s\n%s", a[6], a[7])
	}
	if b := run(3); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("two runs with seed 3 traced differently:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

func TestFormatMessage(t *testing.T) {
	long := []byte("a value that is longer than sixteen bytes")
	for _, c := range []struct {
		m    *fullreppb.PutRequest
		want string
	}{
		{&fullreppb.PutRequest{}, "PutRequest"},
		{&fullreppb.PutRequest{ReqId: 3, Key: "k", Value: []byte("v1")}, `PutRequest req_id:3 key:"k" value:"v1"`},
		{&fullreppb.PutRequest{Key: "k", Value: long, Deps: []*fullreppb.Dep{{Key: "x", Version: 2}, {Key: "y"}}},
			`PutRequest key:"k" value:<41 bytes 61207661…> deps:[{key:"x" version:2} {key:"y"}]`},
		{&fullreppb.PutRequest{Value: []byte{0, 1}}, `PutRequest value:<2 bytes 0001…>`},
	} {
		if got := FormatMessage(c.m); got != c.want {
			t.Errorf("FormatMessage = %s\nwant            %s", got, c.want)
		}
	}
}
