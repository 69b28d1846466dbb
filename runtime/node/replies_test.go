package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/transport"
	"github.com/causeway/causeway/wire/fullreppb"
	"github.com/causeway/causeway/wire/transportpb"
)

// startWith runs every node of tc with opts and waits until they answer
// /healthz.
func (tc *testCluster) startWith(opts Options) {
	tc.t.Helper()
	for _, id := range tc.cfg.NodeIDs() {
		ctx, cancel := context.WithCancel(context.Background())
		rn := &runningNode{cancel: cancel, done: make(chan error, 1)}
		tc.mu.Lock()
		tc.running[id] = rn
		tc.mu.Unlock()
		go func() { rn.done <- RunWithOptions(ctx, tc.cfg, id, tc.log.With("test_node", id), opts) }()
	}
	for _, id := range tc.cfg.NodeIDs() {
		tc.waitHealthy(id)
	}
}

// rawClient is a client process that speaks the wire protocol directly,
// as an attacker would: a dial-only transport and what it receives.
type rawClient struct {
	*transport.Transport
	got chan protocol.Message
}

func newRawClient(t *testing.T) *rawClient {
	t.Helper()
	rc := &rawClient{got: make(chan protocol.Message, 64)}
	tr, err := transport.New(transport.Config{Handler: func(from, to string, msg proto.Message) {
		rc.got <- protocol.Message{From: protocol.NodeID(from), To: protocol.NodeID(to), Body: msg}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	rc.Transport = tr
	return rc
}

// next returns the next frame the raw client receives.
func (rc *rawClient) next(t *testing.T) protocol.Message {
	t.Helper()
	select {
	case m := <-rc.got:
		return m
	case <-time.After(patience):
		t.Fatal("the raw client received nothing")
	}
	panic("unreachable")
}

// TestClaimedSessionGetsNoReplies: a client that sends frames under
// another client's session ID receives none of that session's replies,
// and the session goes on working; the node never dials the client.
func TestClaimedSessionGetsNoReplies(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.start()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()
	alice := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	// Keys on both servers of a, so that alice holds a route on each.
	for i := range 16 {
		if err := alice.Put(ctx, fmt.Sprintf("k%d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	mallory := newRawClient(t)
	for _, id := range []string{"a/s0", "a/s1"} {
		addr := tc.cfg.Node(id).Addr
		if err := mallory.Send(addr, string(alice.s.ID()), id, &transportpb.Ping{Id: 1}); err != nil {
			t.Fatal(err)
		}
		if err := mallory.Send(addr, string(alice.s.ID()), id, &fullreppb.GetRequest{ReqId: 99, Key: "k1"}); err != nil {
			t.Fatal(err)
		}
		// Her own session's ping, sent after: its pong shows the frames
		// before it were handled (a link is FIFO).
		if err := mallory.Send(addr, "a/m1", id, &transportpb.Ping{Id: 2}); err != nil {
			t.Fatal(err)
		}
		if m := mallory.next(t); m.To != "a/m1" {
			t.Fatalf("mallory received %T for %s from %s", m.Body, m.To, m.From)
		}
	}
	select {
	case m := <-mallory.got:
		t.Fatalf("mallory received %T for %s", m.Body, m.To)
	case <-time.After(100 * time.Millisecond):
	}
	eventually(ctx, t, alice, "k1", "v")
	if !strings.Contains(tc.logs.String(), "another connection holds") {
		t.Error("the nodes did not log the claimed session")
	}
}

// TestLimitsAreEnforced: an oversized key or value is refused by the
// client before anything is sent, and by the node (a Refusal naming the
// limit) when a client sends one anyway; a session beyond the node's
// MaxSessions is refused with the limit named.
func TestLimitsAreEnforced(t *testing.T) {
	tc := newCluster(t, "cops")
	opts := DefaultOptions()
	opts.MaxSessions = 2 // alice, and mallory's one session
	tc.startWith(opts)
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()
	alice := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	for _, tcase := range []struct {
		key   string
		value []byte
		want  error
		named string
	}{
		{strings.Repeat("k", MaxKeyBytes+1), []byte("v"), ErrKeyTooLarge, "4096-byte"},
		{"k", make([]byte, MaxValueBytes+1), ErrValueTooLarge, "1048576-byte"},
	} {
		_, err := alice.s.Do(ctx, protocol.Request{Op: protocol.OpPut, Key: tcase.key, Value: tcase.value})
		if !errors.Is(err, tcase.want) || !strings.Contains(err.Error(), tcase.named) {
			t.Errorf("put of a %d-byte key and %d-byte value: %v, want %v", len(tcase.key), len(tcase.value), err, tcase.want)
		}
	}
	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatalf("the session after refused operations: %v", err)
	}

	// The node's own check, for a client that skips the client's.
	mallory := newRawClient(t)
	big := strings.Repeat("k", MaxKeyBytes+1)
	for _, id := range []string{"a/s0", "a/s1"} {
		if err := mallory.Send(tc.cfg.Node(id).Addr, "a/m1", id, &fullreppb.PutRequest{ReqId: 1, Key: big, Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
		m := mallory.next(t)
		r, ok := m.Body.(*transportpb.Refusal)
		if !ok || m.To != "a/m1" || !strings.Contains(r.GetReason(), "4096-byte key limit") {
			t.Fatalf("node %s answered %v to an oversized key, want a refusal naming the limit", id, m.Body)
		}
	}

	// alice and a/m1 hold both sessions of each node of a: bob's put is
	// refused, naming the limit, and his session ends.
	conn, err := Dial(tc.cfg, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Do(ctx, protocol.Request{Op: protocol.OpPut, Key: "x", Value: []byte("x2")})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "limit 2") {
		t.Fatalf("a third session's put: %v, want ErrRefused naming the limit", err)
	}
}

// TestSessionQueueBound: a session's frames queued at a node are counted
// from push to take and bounded by MaxQueuedPerSession.
func TestSessionQueueBound(t *testing.T) {
	h := &host{maxQueued: 2, queued: map[protocol.NodeID]int{}}
	first, second := h.admitQueued("a/c1"), h.admitQueued("a/c1")
	if !first || !second {
		t.Fatal("the first two frames were refused")
	}
	if h.admitQueued("a/c1") {
		t.Error("a third queued frame was admitted")
	}
	if !h.admitQueued("a/c2") {
		t.Error("another session's frame was refused")
	}
	h.unqueue("a/c1")
	if !h.admitQueued("a/c1") {
		t.Error("a frame was refused after one was taken")
	}
	h.unqueue("a/c1")
	h.unqueue("a/c1")
	h.unqueue("a/c2")
	if len(h.queued) != 0 {
		t.Errorf("counts left behind: %v", h.queued)
	}
}

// TestRepliesToACutDatacenterAreDropped: with cut_out towards c, a reply
// to a session of c is dropped when it is sent (counted in the link
// state's dropped_out); a reply to a session of b with no connection is
// dropped as session_gone, and nothing dials anything.
func TestRepliesToACutDatacenterAreDropped(t *testing.T) {
	cfg := planLocal3(t, "cops")
	tr, err := transport.New(transport.Config{Routable: func(string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	h := &host{id: "a/s0", log: slog.New(slog.DiscardHandler), book: newAddressBook(cfg, "a"), tr: tr,
		metrics: newMetrics("a/s0", func() float64 { return 0 }, func() float64 { return 0 })}
	yes := true
	h.book.changeLinks(cluster.LinkChange{PeersDC: []string{"c"}, CutOut: &yes})
	h.send(protocol.Message{From: "a/s0", To: "c/c1-x", Body: &transportpb.Pong{Id: 1}})
	h.send(protocol.Message{From: "a/s0", To: "b/c2-x", Body: &transportpb.Pong{Id: 2}})
	if st := h.linkState(); st.DroppedOut != 1 {
		t.Errorf("dropped_out %d, want the reply to c's session", st.DroppedOut)
	}
	var m dto.Metric
	if err := h.metrics.dropped.WithLabelValues(dropNoRoute).Write(&m); err != nil {
		t.Fatal(err)
	}
	if got := m.GetCounter().GetValue(); got != 1 {
		t.Errorf("session_gone drops %v, want the reply to b's unconnected session", got)
	}
	if st := tr.Stats(); st.Links != 0 || st.Sent != 0 {
		t.Errorf("transport stats %+v: nothing may be dialled or sent", st)
	}
}
