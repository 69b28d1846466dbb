package node

import (
	"log/slog"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
)

// timerSession answers each operation when a timer fires: after an hour
// for the key "late", at once for any other key.
type timerSession struct{ next uint64 }

func (s *timerSession) Start(time.Duration) protocol.Ready { return protocol.Ready{} }
func (s *timerSession) Step(time.Duration, protocol.Message) protocol.Ready {
	return protocol.Ready{}
}
func (s *timerSession) Submit(_ time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	s.next++
	after := time.Duration(0)
	if req.Key == "late" {
		after = time.Hour
	}
	r.SetTimer(after, s.next)
	return r
}
func (s *timerSession) Tick(time.Duration, uint64) protocol.Ready {
	var r protocol.Ready
	r.Reply(protocol.Reply{Op: protocol.OpGet})
	return r
}

// TestDirectSessionFiresATimerSetAfterALaterOne: a session run directly
// (direct.go) gets its timers from its goroutine, including one due
// before the timer already armed — the wake is moved forward, not left at
// the later timer's hour.
func TestDirectSessionFiresATimerSetAfterALaterOne(t *testing.T) {
	m := &machine{id: "a/c1", sm: &timerSession{}, clock: newClock(time.Time{}), box: newInbox(), log: slog.New(slog.DiscardHandler)}
	m.send = func(protocol.Message) {}
	if err := m.startDirect(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	exited := make(chan error, 1)
	go func() { exited <- m.runDirect(stop) }()
	defer func() {
		close(stop)
		if err := <-exited; err != nil {
			t.Errorf("runDirect: %v", err)
		}
	}()
	replies := make(chan protocol.Reply, 2)
	reply := func(rep protocol.Reply, err error) {
		if err != nil {
			t.Errorf("reply: %v", err)
		}
		replies <- rep
	}
	// The "late" operation's timer arms the wake for an hour from now; the
	// session is then handed a second operation by hand, as Do would
	// after an abandoned one.
	if !m.handleDirect(input{kind: inSubmit, req: protocol.Request{Op: protocol.OpGet, Key: "late"}, reply: reply}) {
		t.Fatal("session closed")
	}
	m.direct.mu.Lock()
	m.onReply = nil
	m.direct.mu.Unlock()
	if !m.handleDirect(input{kind: inSubmit, req: protocol.Request{Op: protocol.OpGet, Key: "now"}, reply: reply}) {
		t.Fatal("session closed")
	}
	select {
	case <-replies:
	case <-time.After(patience):
		t.Fatal("the timer due at once never fired: the wake stayed armed for the later timer")
	}
}
