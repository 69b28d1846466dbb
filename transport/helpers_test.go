package transport

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// patience bounds every wait of these tests: it only turns a hang into a
// failure and is never part of an assertion.
const patience = 10 * time.Second

// dialOnly as Config.Self makes start build a transport that does not
// listen, as a client process's.
const dialOnly = "dial-only"

// delivery is one Handler call.
type delivery struct {
	from, to string
	msg      proto.Message
	at       time.Time
}

// logRecorder is a slog.Handler that forwards to the test log and keeps the
// messages logged at Warn level or above.
type logRecorder struct {
	t     *testing.T
	name  string
	mu    sync.Mutex
	warns []string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s", h.name, r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.t.Log(b.String())
	if r.Level >= slog.LevelWarn {
		h.mu.Lock()
		h.warns = append(h.warns, b.String())
		h.mu.Unlock()
	}
	return nil
}

func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) warnings() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.warns...)
}

// node is a Transport under test with what its Handler received.
type node struct {
	*Transport
	inbox chan delivery
	logs  *logRecorder
}

// start creates a transport (on a free loopback port unless cfg.Self is
// set) whose Handler feeds the returned node's inbox, and closes it at the
// end of the test.
func start(t *testing.T, name string, cfg Config) *node {
	t.Helper()
	switch cfg.Self {
	case "":
		cfg.Self = "127.0.0.1:0"
	case dialOnly:
		cfg.Self = ""
	}
	n := &node{inbox: make(chan delivery, 4096), logs: &logRecorder{t: t, name: name}}
	cfg.Logger = slog.New(n.logs)
	cfg.Handler = func(from, to string, msg proto.Message) {
		n.inbox <- delivery{from: from, to: to, msg: msg, at: time.Now()}
	}
	tr, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.Transport = tr
	t.Cleanup(func() {
		if err := tr.Close(); err != nil {
			t.Errorf("%s: Close: %v", name, err)
		}
	})
	return n
}

// next waits for the next delivery to n.
func (n *node) next(t *testing.T) delivery {
	t.Helper()
	select {
	case d := <-n.inbox:
		return d
	case <-time.After(patience):
		t.Fatalf("nothing delivered within %v", patience)
	}
	panic("unreachable")
}

// expectInts waits for deliveries carrying want, in order, from `from`.
func (n *node) expectInts(t *testing.T, from string, want ...int64) []delivery {
	t.Helper()
	got := make([]delivery, 0, len(want))
	for _, w := range want {
		d := n.next(t)
		v, ok := d.msg.(*wrapperspb.Int64Value)
		if !ok {
			t.Fatalf("delivered %T (%v), want an Int64Value", d.msg, d.msg)
		}
		if v.GetValue() != w || d.from != from {
			t.Fatalf("delivered %d from %q, want %d from %q (FIFO order)", v.GetValue(), d.from, w, from)
		}
		got = append(got, d)
	}
	return got
}

// sendInts sends the values from..to-1 as Int64Values.
func sendInts(t *testing.T, tr *Transport, addr, from, to string, lo, hi int64) {
	t.Helper()
	for i := lo; i < hi; i++ {
		if err := tr.Send(addr, from, to, wrapperspb.Int64(i)); err != nil {
			t.Fatalf("Send %d: %v", i, err)
		}
	}
}

func ints(lo, hi int64) []int64 {
	out := make([]int64, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// linkEvents makes tr report each failed or broken stream of its links on
// the returned channel. Call it before tr's first Send.
func linkEvents(tr *Transport) <-chan error {
	ch := make(chan error, 1024)
	tr.onLinkDown = func(_ string, err error) {
		select {
		case ch <- err:
		default:
		}
	}
	return ch
}

// waitEvent waits for one event on ch.
func waitEvent(t *testing.T, ch <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(patience):
		t.Fatalf("no %s within %v", what, patience)
	}
	panic("unreachable")
}
