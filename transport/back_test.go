package transport

import (
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/wire/transportpb"
)

// sessions makes every sender a client session with a reply route.
func sessions(string) bool { return true }

// TestReplyOnTheClientsStream: a client that does not listen gets the
// server's replies back on the stream its frames went out on, in order.
func TestReplyOnTheClientsStream(t *testing.T) {
	srv := start(t, "srv", Config{Routable: sessions})
	cli := start(t, "cli", Config{Self: dialOnly})
	if cli.Addr() != "" {
		t.Fatalf("a dial-only transport listens on %s", cli.Addr())
	}
	if err := srv.Reply("a/s0", "a/c1", wrapperspb.Int64(0)); !errors.Is(err, ErrNoRoute) {
		t.Fatalf("Reply before the client sent anything: %v, want ErrNoRoute", err)
	}
	sendInts(t, cli.Transport, srv.Addr(), "a/c1", "a/s0", 0, 1)
	srv.expectInts(t, "a/c1", 0)
	for i := int64(0); i < 3; i++ {
		if err := srv.Reply("a/s0", "a/c1", wrapperspb.Int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	cli.expectInts(t, "a/s0", 0, 1, 2)
	if st := srv.Stats(); st.Routes != 1 || st.Links != 0 {
		t.Errorf("server stats %+v: want 1 route and no outgoing link (it never dials the client)", st)
	}
}

// TestRouteBelongsToTheFirstConnection: a second client that sends frames
// claiming the first one's session ID has them dropped and receives none
// of that session's replies.
func TestRouteBelongsToTheFirstConnection(t *testing.T) {
	srv := start(t, "srv", Config{Routable: sessions})
	alice := start(t, "alice", Config{Self: dialOnly})
	mallory := start(t, "mallory", Config{Self: dialOnly})
	sendInts(t, alice.Transport, srv.Addr(), "a/c1", "a/s0", 0, 1)
	srv.expectInts(t, "a/c1", 0)
	sendInts(t, mallory.Transport, srv.Addr(), "a/c1", "a/s0", 100, 101)
	// Mallory's own session, sent after, shows her first frame was handled
	// (frames of a link arrive in order).
	sendInts(t, mallory.Transport, srv.Addr(), "a/m1", "a/s0", 7, 8)
	srv.expectInts(t, "a/m1", 7)
	if err := srv.Reply("a/s0", "a/c1", wrapperspb.Int64(1)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Reply("a/s0", "a/m1", wrapperspb.Int64(8)); err != nil {
		t.Fatal(err)
	}
	alice.expectInts(t, "a/s0", 1)
	mallory.expectInts(t, "a/s0", 8) // her own reply, not alice's before it
	select {
	case d := <-mallory.inbox:
		t.Fatalf("mallory received %v for %s", d.msg, d.to)
	case <-time.After(100 * time.Millisecond):
	}
	if w := strings.Join(srv.logs.warnings(), "\n"); !strings.Contains(w, "another connection holds") {
		t.Errorf("no warning about the claimed session; warnings:\n%s", w)
	}
}

// TestRouteEndsWithTheConnection: once a client's connection closes, a
// reply to its session is refused at once (ErrNoRoute), and a Goodbye
// releases a route before that.
func TestRouteEndsWithTheConnection(t *testing.T) {
	srv := start(t, "srv", Config{Routable: sessions})
	cli := start(t, "cli", Config{Self: dialOnly})
	sendInts(t, cli.Transport, srv.Addr(), "a/c1", "a/s0", 0, 1)
	sendInts(t, cli.Transport, srv.Addr(), "a/c2", "a/s0", 0, 1)
	srv.expectInts(t, "a/c1", 0)
	srv.expectInts(t, "a/c2", 0)
	if err := cli.Send(srv.Addr(), "a/c1", "a/s0", &transportpb.Goodbye{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return !srv.HasRoute("a/c1") && srv.HasRoute("a/c2") })
	if err := cli.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return srv.Stats().Routes == 0 })
	if err := srv.Reply("a/s0", "a/c2", wrapperspb.Int64(1)); !errors.Is(err, ErrNoRoute) {
		t.Errorf("Reply after the client left: %v, want ErrNoRoute", err)
	}
}

// TestRoutesAreBounded: with MaxRoutes taken, a frame from one more
// session is not handed over and its sender gets a Refusal naming the
// limit.
func TestRoutesAreBounded(t *testing.T) {
	srv := start(t, "srv", Config{Routable: sessions, MaxRoutes: 1})
	cli := start(t, "cli", Config{Self: dialOnly})
	sendInts(t, cli.Transport, srv.Addr(), "a/c1", "a/s0", 0, 1)
	sendInts(t, cli.Transport, srv.Addr(), "a/c2", "a/s0", 0, 1)
	sendInts(t, cli.Transport, srv.Addr(), "a/c1", "a/s0", 1, 2)
	srv.expectInts(t, "a/c1", 0, 1)
	d := cli.next(t)
	r, ok := d.msg.(*transportpb.Refusal)
	if !ok || d.to != "a/c2" || d.from != "a/s0" || !strings.Contains(r.GetReason(), "limit 1") {
		t.Fatalf("client got %v from %s to %s, want a refusal naming the limit for a/c2", d.msg, d.from, d.to)
	}
}

// waitFor polls cond until it holds, failing the test after patience.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(patience); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestReconnectedStreamTakesItsRoutesOver: a stream from the same
// transport (instance ID) as the route's owner takes the route over (its
// link reconnected); a stream from another transport, or one that gave
// no instance ID, does not; and the old stream's end leaves the moved
// route alone.
func TestReconnectedStreamTakesItsRoutesOver(t *testing.T) {
	srv := start(t, "srv", Config{Routable: sessions})
	first, again := srv.newBackLink("p1", "inst-a"), srv.newBackLink("p2", "inst-a")
	other, anonymous := srv.newBackLink("p3", "inst-b"), srv.newBackLink("p4", "")
	if srv.claim("a/c1", first) != claimOK {
		t.Fatal("the first claim failed")
	}
	for name, b := range map[string]*backLink{"another transport": other, "no instance": anonymous} {
		if got := srv.claim("a/c1", b); got != claimTaken {
			t.Errorf("%s: claim %v, want taken", name, got)
		}
	}
	if srv.claim("a/c1", again) != claimOK {
		t.Fatal("the same transport's new stream could not take its route over")
	}
	srv.endBackLink(first)
	srv.rt.mu.RLock()
	owner := srv.rt.routes["a/c1"]
	srv.rt.mu.RUnlock()
	if owner != again {
		t.Errorf("after the old stream ended the route belongs to %v, want the new stream", owner)
	}
}
