package karma

import (
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// notifiesOfReadOnlyThread runs a read-only thread that reads an in-flight value, then
// lets its CC tick for ten notify periods, and returns the notify-afters
// it sent.
func notifiesOfReadOnlyThread(t *testing.T, h *ccHarness) (sent []*pb.RingPut) {
	const alice = "a/alice"
	get, to, ok := find[*pb.RingGet](h.step(alice, &pb.ClientGet{ReqId: 1, Session: alice, Key: "x"}))
	if !ok {
		t.Fatal("the get did not go to a ring")
	}
	h.step(to, &pb.RingGetReply{ReqId: get.ReqId, Key: "x", Value: []byte("x1"), Version: 5 << ccBits, InFlight: true, Ring: int32(h.topo.RingOf(to.DC()))})
	if len(h.c.threads[alice].drr) != 1 {
		t.Fatalf("the in-flight read was not recorded: %v", h.c.threads[alice].drr)
	}
	for range 10 {
		h.now += h.p.opts.NotifyEvery
		for _, m := range h.apply(h.c.Tick(h.now, 0)) {
			if p, ok := m.Body.(*pb.RingPut); ok && p.Notify {
				sent = append(sent, p)
			}
		}
	}
	return sent
}

// TestCOPSPRSendsNoNotifyAfter: COPS-PR binds a thread to its DC's ring,
// so its in-flight reads restrict nothing and there is nothing for a
// notify-after (§4.2) to lift: they stay the dependencies of the thread's
// next put, as a COPS client's context. Karma-NC, on the same reads, sends
// notify-afters (the test's control).
func TestCOPSPRSendsNoNotifyAfter(t *testing.T) {
	if got := notifiesOfReadOnlyThread(t, newCCHarness(t, Mode{Name: "karma-nc"}, Options{})); len(got) == 0 {
		t.Fatal("karma-nc sent no notify-after for a restricted read-only thread")
	}
	if got := notifiesOfReadOnlyThread(t, newCCHarness(t, Mode{Name: "cops-pr", OwnRing: true}, Options{})); len(got) > 0 {
		t.Errorf("cops-pr sent %d notify-afters (to %s...), want none", len(got), got[0].Key)
	}
}

// TestCOPSPRConfirmsDependenciesOfAMovingThread: a COPS-PR thread with an
// in-flight read moves to another DC; its old CC confirms the read with a
// notify-after once asked (MigrateReq), and agrees (MigrateOK) once every
// ring answered it.
func TestCOPSPRConfirmsDependenciesOfAMovingThread(t *testing.T) {
	h := newCCHarness(t, Mode{Name: "cops-pr", OwnRing: true}, Options{})
	if got := notifiesOfReadOnlyThread(t, h); len(got) > 0 {
		t.Fatalf("notify-after sent before the thread moved: %v", got)
	}
	const resumed protocol.NodeID = "b/alice2"
	out := h.step(resumed, &pb.MigrateReq{ReqId: 1, Thread: "a/alice"})
	if _, _, ok := find[*pb.MigrateOK](out); ok {
		t.Fatal("MigrateOK before the thread's in-flight read is confirmed")
	}
	acked := 0
	for h.now += time.Second; acked < len(h.topo.Rings()); h.now += tickEvery {
		for _, m := range append(out, h.apply(h.c.Tick(h.now, 0))...) {
			if p, ok := m.Body.(*pb.RingPut); ok && p.Notify {
				h.step(m.To, &pb.RingPutAck{Id: p.Id, Ring: int32(h.topo.RingOf(m.To.DC())), Key: p.Key})
				acked++
			}
		}
		out = nil
		if h.now > time.Minute {
			t.Fatalf("the moving thread's notify-after reached %d rings, want %d", acked, len(h.topo.Rings()))
		}
	}
	if _, _, ok := find[*pb.MigrateOK](h.step(resumed, &pb.MigrateReq{ReqId: 1, Thread: "a/alice"})); !ok {
		t.Error("no MigrateOK once every ring confirmed the thread's in-flight read")
	}
}
