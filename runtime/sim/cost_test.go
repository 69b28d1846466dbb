package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/wire"
	_ "github.com/causeway/causeway/wire/c3pb"
	_ "github.com/causeway/causeway/wire/cassandrapb"
	_ "github.com/causeway/causeway/wire/chainpb"
	_ "github.com/causeway/causeway/wire/fullreppb"
	_ "github.com/causeway/causeway/wire/k2pb"
	_ "github.com/causeway/causeway/wire/karmapb"
	_ "github.com/causeway/causeway/wire/radpb"
)

// prioEcho is echo whose values starting with "lazy" are low priority.
type prioEcho struct{ *echo }

func (prioEcho) Priority(body proto.Message) protocol.Priority {
	if strings.HasPrefix(body.(*wrapperspb.StringValue).Value, "lazy") {
		return protocol.PriorityLow
	}
	return protocol.PriorityHigh
}

// ackAfter runs one put of value v from a session in DC a and returns
// when its ack arrived.
func ackAfter(t *testing.T, e protocol.Protocol, cost *CostModel, v string) time.Duration {
	t.Helper()
	s, err := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1, ServiceTime: 10 * time.Millisecond, Cost: cost})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.AddSession("a", "c0")
	done := put(t, s, c, v)
	s.RunUntil(time.Second)
	return *done
}

// rtt is local3's intra-DC round trip: the ack of a put is this plus the
// server's service time.
const rtt = 500 * time.Microsecond

func TestLowPriorityYieldsToHighAndEachClassIsFIFO(t *testing.T) {
	e := newEcho()
	s, _ := New(Config{Topology: local3(t), Protocol: prioEcho{e}, Seed: 1, Jitter: -1, ServiceTime: 10 * time.Millisecond})
	for i, v := range []string{"v0", "lazy1", "v2", "lazy3", "v4"} {
		c, _ := s.AddSession("a", fmt.Sprintf("c%d", i))
		put(t, s, c, v)
	}
	s.RunUntil(time.Second)
	// All five arrive at 250µs in submission order. v0 finds a/s0 idle;
	// the rest queue: the high ones (v2, v4) go first, in arrival order,
	// then the low ones (lazy1, lazy3), in arrival order.
	var served []string
	for _, l := range *e.log {
		if strings.Contains(l, " a/s0 <- a/") {
			served = append(served, l)
		}
	}
	want := []string{
		"250µs a/s0 <- a/c0 v0",
		"10.25ms a/s0 <- a/c2 v2",
		"20.25ms a/s0 <- a/c4 v4",
		"30.25ms a/s0 <- a/c1 lazy1",
		"40.25ms a/s0 <- a/c3 lazy3",
	}
	if got := strings.Join(served, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("a/s0 served:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestPerByteCostAddsToServiceTime(t *testing.T) {
	// A StringValue of 997 bytes is 1000 payload bytes (tag, two-byte
	// length, string). At 0.5 units per 1000 bytes the server spends
	// 10ms × (1 + 0.5) on it.
	v := strings.Repeat("x", 997)
	if n := proto.Size(wrapperspb.String(v)); n != 1000 {
		t.Fatalf("payload is %d bytes, want 1000", n)
	}
	got := ackAfter(t, newEcho(), &CostModel{PerKB: 0.5}, v)
	if want := rtt + 15*time.Millisecond; got != want {
		t.Errorf("acked at %v, want %v", got, want)
	}
}

func TestRoleFactorScalesAndNodeSpecCostReplacesIt(t *testing.T) {
	model := &CostModel{Roles: map[protocol.Role]float64{protocol.RoleCache: 0.3}}
	e := newEcho()
	e.role = protocol.RoleCache
	if got, want := ackAfter(t, e, model, "v"), rtt+3*time.Millisecond; got != want {
		t.Errorf("cache node: acked at %v, want %v (0.3 × 10ms)", got, want)
	}
	e = newEcho()
	if got, want := ackAfter(t, e, model, "v"), rtt+10*time.Millisecond; got != want {
		t.Errorf("role unset (storage, not listed): acked at %v, want %v", got, want)
	}
	e = newEcho()
	e.role, e.cost = protocol.RoleCache, 0.25
	if got, want := ackAfter(t, e, model, "v"), rtt+2500*time.Microsecond; got != want {
		t.Errorf("NodeSpec.Cost 0.25 on a cache: acked at %v, want %v (the spec's cost, not the role's)", got, want)
	}
}

func TestMessageKindSelectsClassFactor(t *testing.T) {
	model := &CostModel{Kinds: map[string]Class{"StringValue": ClassControl}, Classes: map[Class]float64{ClassControl: 0.25}}
	if got, want := ackAfter(t, newEcho(), model, "v"), rtt+2500*time.Microsecond; got != want {
		t.Errorf("acked at %v, want %v (control: a quarter)", got, want)
	}
	// The full name is looked up before the short one.
	model.Kinds["google.protobuf.StringValue"] = ClassRead
	model.Classes[ClassRead] = 0.5
	if got, want := ackAfter(t, newEcho(), model, "v"), rtt+5*time.Millisecond; got != want {
		t.Errorf("acked at %v, want %v (the full name's class, read: a half)", got, want)
	}
}

func TestTimerCostsItsClass(t *testing.T) {
	// The first put is served from 250µs to 10.25ms, when its outputs
	// leave, setting a/s0's timer for 1.01025s. A second put arrives then
	// too, after the timer, and waits while the timer is served.
	for _, tc := range []struct {
		factor float64
		want   time.Duration
	}{{1, 1030500 * time.Microsecond}, {0.5, 1025500 * time.Microsecond}} {
		e := newEcho()
		s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 1, Jitter: -1, ServiceTime: 10 * time.Millisecond,
			Cost: &CostModel{Classes: map[Class]float64{ClassTimer: tc.factor}}})
		c, _ := s.AddSession("a", "c0")
		put(t, s, c, "v1")
		var done *time.Duration
		s.At(1010*time.Millisecond, func() { done = put(t, s, c, "v2") })
		s.RunUntil(2 * time.Second)
		if *done != tc.want {
			t.Errorf("timer factor %v: second put acked at %v, want %v", tc.factor, *done, tc.want)
		}
	}
}

func TestZeroCostModelIsTheSimpleForm(t *testing.T) {
	run := func(cost *CostModel) string {
		e := newEcho()
		e.cost = 0.5
		s, _ := New(Config{Topology: local3(t), Protocol: e, Seed: 3, Jitter: 5 * time.Millisecond,
			ServiceTime: 3 * time.Millisecond, Cost: cost})
		var acks []string
		for i := 0; i < 6; i++ {
			c, _ := s.AddSession(local3(t).DCNames()[i%3], fmt.Sprintf("c%d", i))
			var next func(int)
			next = func(k int) {
				if k == 10 {
					return
				}
				_ = s.Submit(c, protocol.Request{Op: protocol.OpPut, Value: []byte(fmt.Sprintf("%s-%d", c, k))},
					func(now time.Duration, _ protocol.Reply) { acks = append(acks, fmt.Sprint(now)); next(k + 1) })
			}
			next(0)
		}
		s.RunUntil(5 * time.Second)
		return strings.Join(*e.log, "\n") + strings.Join(acks, " ")
	}
	simple := run(nil)
	for _, m := range []*CostModel{{}, {Classes: map[Class]float64{ClassOther: 1, ClassTimer: 1}, Roles: map[protocol.Role]float64{protocol.RoleStorage: 3}}} {
		if got := run(m); got != simple {
			t.Errorf("cost model %+v changed the run of the simple form", m)
		}
	}
	if run(DefaultCostModel()) == simple {
		t.Error("the default model gave the simple form's run: the test cannot tell them apart")
	}
}

func TestCostModelValidates(t *testing.T) {
	for _, m := range []*CostModel{
		{Roles: map[protocol.Role]float64{"cache": -1}},
		{Kinds: map[string]Class{"RingPut": "writes"}},
		{Classes: map[Class]float64{"bogus": 1}},
		{PerKB: -0.1},
	} {
		if _, err := New(Config{Topology: local3(t), Protocol: newEcho(), Cost: m}); err == nil {
			t.Errorf("New accepted the cost model %+v", m)
		}
	}
	if err := DefaultCostModel().Validate(); err != nil {
		t.Errorf("default model: %v", err)
	}
}

func TestDefaultKindsNameProtocolMessages(t *testing.T) {
	names := map[string]bool{}
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		d := mt.Descriptor()
		if strings.HasPrefix(string(d.FullName()), "causeway.") {
			names[string(d.Name())], names[string(d.FullName())] = true, true
		}
		return true
	})
	for kind := range DefaultCostModel().Kinds {
		if !names[kind] {
			t.Errorf("default cost model lists kind %q, which no protocol message is called", kind)
		}
	}
}

func TestParseCostModelOverridesDefaults(t *testing.T) {
	m, err := ParseCostModel([]byte("classes: {control: 0.1}\nkinds: {RingGetReply: client}\nper_kb: 0.2\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultCostModel()
	if m.Factor(ClassControl) != 0.1 || m.Factor(ClassRead) != d.Factor(ClassRead) || m.PerKB != 0.2 {
		t.Errorf("classes %v, per_kb %v: want control 0.1, the rest default, per_kb 0.2", m.Classes, m.PerKB)
	}
	if m.Kinds["RingGetReply"] != ClassClient || m.Kinds["RingPut"] != ClassWrite || m.Roles[protocol.RoleCache] != 0.1 {
		t.Errorf("kinds or roles not merged over the defaults: %v %v", m.Kinds, m.Roles)
	}
	for _, bad := range []string{"classes: {contrl: 1}", "per_kbs: 1", "roles: {cache: -2}"} {
		if _, err := ParseCostModel([]byte(bad)); err == nil {
			t.Errorf("ParseCostModel(%q) accepted it", bad)
		}
	}
}

// bytesSeen records what Observer.MessageSent reports.
type bytesSeen struct{ sizes []int }

func (b *bytesSeen) MessageSent(_ time.Duration, _, _ protocol.NodeID, n int) {
	b.sizes = append(b.sizes, n)
}
func (b *bytesSeen) Visible(time.Duration, protocol.NodeID, protocol.Visibility) {}

func TestWANBytesArePayloadBytes(t *testing.T) {
	obs := &bytesSeen{}
	s, _ := New(Config{Topology: local3(t), Protocol: newEcho(), Seed: 1, Jitter: -1, Observer: obs})
	c, _ := s.AddSession("a", "c0")
	put(t, s, c, "hello")
	s.RunUntil(time.Second)
	// c0 -> a/s0 "hello", a/s0 -> c0 "ack hello", a/s0 -> b/s0 and c/s0 "hello".
	body, ack := wrapperspb.String("hello"), wrapperspb.String("ack hello")
	want := []int{proto.Size(body), proto.Size(ack), proto.Size(body), proto.Size(body)}
	if fmt.Sprint(obs.sizes) != fmt.Sprint(want) {
		t.Errorf("MessageSent sizes %v, want proto.Size of each body %v", obs.sizes, want)
	}
	frame, _ := wire.Encode(body)
	st := s.Stats()
	if st.WANBytes != int64(2*proto.Size(body)) || st.WANFrameBytes != int64(2*len(frame)) {
		t.Errorf("WANBytes %d, WANFrameBytes %d; want %d and %d", st.WANBytes, st.WANFrameBytes, 2*proto.Size(body), 2*len(frame))
	}
}
