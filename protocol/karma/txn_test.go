package karma

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// mmHarness drives one middle man directly, applying its storage writes.
type mmHarness struct {
	t   *testing.T
	p   *Protocol
	cfg protocol.NodeConfig
	st  *storage.Mem
	m   *middleMan
	now time.Duration
	id  uint64
}

func newMMHarness(t *testing.T) *mmHarness {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	h := &mmHarness{t: t, p: New(Mode{Name: "karma-nc"}, Options{}), st: storage.NewMem()}
	h.cfg = protocol.NodeConfig{ID: "a/s0", Topology: topo}
	h.m = newMiddleMan(h.p, h.cfg)
	return h
}

func (h *mmHarness) step(body proto.Message) []protocol.Message {
	h.t.Helper()
	return h.stepFrom("a/cc0", body)
}

func (h *mmHarness) stepFrom(from protocol.NodeID, body proto.Message) []protocol.Message {
	h.t.Helper()
	r := h.m.Step(h.now, protocol.Message{From: from, To: h.cfg.ID, Body: body})
	if err := h.st.Apply(r.Persist.Writes, r.Persist.Sync); err != nil {
		h.t.Fatal(err)
	}
	return r.After.Messages
}

// put stores key=value at version v (no dependencies) and returns the
// acknowledgement's clock.
func (h *mmHarness) put(key, value string, v uint64) uint64 {
	h.t.Helper()
	h.id++
	for _, m := range h.step(&pb.RingPut{Key: key, Value: []byte(value), Version: v << ccBits, Id: h.id}) {
		if a, ok := m.Body.(*pb.RingPutAck); ok {
			return a.Clock
		}
	}
	h.t.Fatalf("put %s=%s not acknowledged", key, value)
	return 0
}

func (h *mmHarness) get(key string, at uint64) *pb.RingGetReply {
	h.t.Helper()
	for _, m := range h.step(&pb.RingGet{ReqId: 1, Key: key, Txn: true, At: at}) {
		if rep, ok := m.Body.(*pb.RingGetReply); ok {
			return rep
		}
	}
	h.t.Fatalf("get %s at %d not answered", key, at)
	return nil
}

// TestMiddleManServesVersionsAsOfACommitTime checks the multiversion side
// of get-transactions (§4.5): each version is readable from its evt on; a
// second-round read returns the version valid at the asked time, including
// the initial state, and says too_old once the window has dropped it.
func TestMiddleManServesVersionsAsOfACommitTime(t *testing.T) {
	h := newMMHarness(t)
	if rep := h.get("x", 50); rep.Version != 0 || rep.TooOld || rep.Clock < 50 {
		t.Fatalf("never-written key at 50: version %d too_old %v clock %d", rep.Version, rep.TooOld, rep.Clock)
	}
	e1 := h.put("x", "v1", 1)
	e2 := h.put("x", "v2", 2)
	if e2 <= e1 {
		t.Fatalf("commit clock did not advance: %d then %d", e1, e2)
	}
	latest := h.get("x", 0)
	if string(latest.Value) != "v2" || latest.Evt > latest.Clock || latest.Evt <= e1 {
		t.Errorf("latest: %s evt %d clock %d (first write's ack clock %d)", latest.Value, latest.Evt, latest.Clock, e1)
	}
	for _, tc := range []struct {
		at   uint64
		want string // "" = initial state
	}{{e1 - 1, ""}, {e1, "v1"}, {latest.Evt - 1, "v1"}, {latest.Evt, "v2"}, {latest.Clock + 10, "v2"}} {
		rep := h.get("x", tc.at)
		if rep.TooOld || string(rep.Value) != tc.want || (tc.want == "") != (rep.Version == 0) {
			t.Errorf("at %d: got %q (version %d, too_old %v), want %q", tc.at, rep.Value, rep.Version, rep.TooOld, tc.want)
		}
	}
	// A read as of a future time moves the clock past it: a later write
	// cannot become valid at a time someone has already read.
	far := h.get("x", 0).Clock + 1000
	h.get("x", far)
	if e3 := h.put("x", "v3", 3); e3 <= far {
		t.Errorf("write after a read at %d committed at %d", far, e3)
	}
	// The window keeps at most maxOldVersions versions, and only for
	// txnWindow.
	for v := uint64(4); v < 4+maxOldVersions; v++ {
		h.put("x", "w", v)
	}
	if rep := h.get("x", e1); !rep.TooOld {
		t.Errorf("version valid at %d should have left a full window, got %q", e1, rep.Value)
	}
	mid := h.get("x", 0).Evt - 1
	if rep := h.get("x", mid); rep.TooOld {
		t.Errorf("a recent version left the window early")
	}
	h.now += txnWindow + time.Second
	h.put("x", "late", 100)
	if rep := h.get("x", mid); !rep.TooOld {
		t.Errorf("versions superseded more than %v ago are still served", txnWindow)
	}
}

// TestCommitClockSurvivesRestart checks the clock's lease: after a crash
// the middle man resumes at or above every clock it sent, so validity it
// promised (evt..clock) is never contradicted by a new write.
func TestCommitClockSurvivesRestart(t *testing.T) {
	h := newMMHarness(t)
	var maxSent uint64
	for v := uint64(1); v < 3*clockLease/2; v++ {
		maxSent = max(maxSent, h.put("k", "v", v))
	}
	cfg := h.cfg
	cfg.Storage = h.st
	m := newMiddleMan(h.p, cfg)
	if m.lc.now < maxSent {
		t.Fatalf("restarted clock %d is behind the %d already sent", m.lc.now, maxSent)
	}
	if o := m.store["k"]; o.evt < maxSent {
		t.Errorf("a recovered version claims to be valid since %d, before clocks already sent (%d)", o.evt, maxSent)
	}
}

// TestResumeSessionRefusesBadTokens checks that a token that is garbage,
// another protocol's, or names a session outside the topology is refused
// with ErrBadToken, and that a good one round-trips.
func TestResumeSessionRefusesBadTokens(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Mode{Name: "karma", Caches: true}, Options{})
	cfg := protocol.SessionConfig{ID: "c/bob", Topology: topo}
	good := p.NewSession(protocol.SessionConfig{ID: "a/alice", Topology: topo}).(*session).Token()
	s, err := p.ResumeSession(cfg, good)
	if err != nil {
		t.Fatalf("good token refused: %v", err)
	}
	if got := s.(*session).mig; got == nil || got.from != "a/alice" {
		t.Errorf("resumed session continues %+v, want a/alice", got)
	}
	if again := s.(*session).Token(); string(again) != string(good) {
		t.Errorf("a session still migrating should hand out the token it continues")
	}
	for name, tok := range map[string][]byte{
		"garbage":        []byte("not a token"),
		"other protocol": protocol.EncodeToken("cops", []byte{tokenState, 7, 'a', '/', 'a', 'l', 'i', 'c', 'e'}),
		"unknown DC":     protocol.EncodeToken("karma", []byte{tokenState, 5, 'z', '/', 'b', 'o', 'b'}),
		"truncated":      good[:len(good)-2],
		"empty state":    protocol.EncodeToken("karma", nil),
	} {
		if _, err := p.ResumeSession(cfg, tok); !errors.Is(err, protocol.ErrBadToken) {
			t.Errorf("%s: got %v, want ErrBadToken", name, err)
		}
	}
}
