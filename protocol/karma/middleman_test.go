package karma

import (
	"testing"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// TestProgramOrderWriteWaitsForItsPredecessorToBeWritten drives one middle
// man: Alice's x2 names her previous write x1 as a program-order
// dependency. x2 is stored (and readable, and answers program-order
// checks) as soon as x1 is stored, but counts as written — acknowledging
// the CC and answering ordinary DepChecks — only once x1 is written too,
// i.e. once the DC cache holding k1 has dropped it. Otherwise a reader
// restricted by x2 could have the restriction lifted (by a put depending
// on x2 completing) while its DC cache still held the k1 before x1.
func TestProgramOrderWriteWaitsForItsPredecessorToBeWritten(t *testing.T) {
	h := newMMHarness(t)
	h.p = New(Mode{Name: "karma", Caches: true}, Options{})
	h.m = newMiddleMan(h.p, h.cfg)
	// DC b's cache fills k1 (stable, never written): b is in its cached-at set.
	h.step(&pb.RingGet{ReqId: 1, Key: "k1", CacheDc: "b"})

	x1 := &pb.RingPut{Key: "k1", Value: []byte("x1"), Version: 1<<ccBits | 1, Id: 1}
	out := h.step(x1)
	if acked(out, 1) || !sent[*pb.Invalidate](out) {
		t.Fatalf("x1: want an invalidation of b's cache and no acknowledgement yet, got %v", out)
	}
	x2 := &pb.RingPut{Key: "k2", Value: []byte("x2"), Version: 2<<ccBits | 1, Id: 2,
		Deps: []*pb.Dep{{Key: "k1", Version: x1.Version, ProgramOrder: true}}}
	out = h.step(x2)
	if acked(out, 2) {
		t.Fatal("x2 acknowledged while x1 still waits for b's cache")
	}
	if got := h.get("k2", 0); string(got.Value) != "x2" {
		t.Fatalf("x2 not readable once x1 is stored: read %q", got.Value)
	}
	// A program-order check of x2 is answered; an ordinary one waits.
	if out := h.step(&pb.DepCheck{Dep: &pb.Dep{Key: "k2", Version: x2.Version, ProgramOrder: true}}); !sent[*pb.DepOK](out) {
		t.Fatalf("program-order DepCheck of stored x2 not answered: %v", out)
	}
	if out := h.step(&pb.DepCheck{Dep: &pb.Dep{Key: "k2", Version: x2.Version}}); sent[*pb.DepOK](out) {
		t.Fatal("DepCheck of x2 answered before x1 is written")
	}

	// b's cache drops k1: x1 is written; the answer to x2's check that x1
	// is written itself (from k1's owner, here this MM) then lets x2 be
	// written.
	out = h.stepFrom(h.p.cacheFor("b", "k1"), &pb.InvalidateAck{Key: "k1", Version: x1.Version})
	if !acked(out, 1) {
		t.Fatalf("x1 not acknowledged after the invalidation: %v", out)
	}
	out = h.step(&pb.DepOK{Dep: &pb.Dep{Key: "k1", Version: x1.Version, SelfWritten: true}})
	if !acked(out, 2) || !sent[*pb.DepOK](out) {
		t.Fatalf("x2 not written (acknowledged, waiting DepCheck answered) once x1 is: %v", out)
	}
}

func acked(out []protocol.Message, id uint64) bool {
	for _, m := range out {
		if a, ok := m.Body.(*pb.RingPutAck); ok && a.Id == id {
			return true
		}
	}
	return false
}

// sent reports whether out holds a message of type T.
func sent[T any](out []protocol.Message) bool {
	for _, m := range out {
		if _, ok := m.Body.(T); ok {
			return true
		}
	}
	return false
}

// TestSecondRoundReportsAnOldVersionInFlightUntilItsOwnStable drives one
// middle man through the interleaving of a get-transaction's second round
// (§4.5) that read a superseded version: w1 of x is stored, then a
// concurrent w2 of x with a higher version, and w2's STABLE arrives while
// w1's has not (w1 may still be missing from another ring, and its causal
// past with it). A read of x as of w1's time returns w1 and must call it
// in flight — stable is per version, not "at most the key's highest stable
// version" — so that the reader is restricted to this ring; once w1's own
// STABLE arrives it is stable.
func TestSecondRoundReportsAnOldVersionInFlightUntilItsOwnStable(t *testing.T) {
	h := newMMHarness(t)
	e1 := h.put("x", "w1", 1)
	e2 := h.put("x", "w2", 2)
	h.step(&pb.Stable{Key: "x", Version: 2 << ccBits})
	if rep := h.get("x", 0); string(rep.Value) != "w2" || rep.InFlight {
		t.Fatalf("latest: %q in flight %v, want stable w2", rep.Value, rep.InFlight)
	}
	rep := h.get("x", e1)
	if string(rep.Value) != "w1" {
		t.Fatalf("x as of w1's commit time %d: %q, want w1", e1, rep.Value)
	}
	if !rep.InFlight {
		t.Error("w1, never declared stable, reported stable because a newer version of x is")
	}
	h.step(&pb.Stable{Key: "x", Version: 1 << ccBits})
	if rep := h.get("x", e1); string(rep.Value) != "w1" || rep.InFlight {
		t.Errorf("after w1's STABLE: %q in flight %v, want stable w1", rep.Value, rep.InFlight)
	}
	// A stable version stays stable once superseded by a newer stable one.
	h.put("x", "w3", 3)
	h.step(&pb.Stable{Key: "x", Version: 3 << ccBits})
	if rep := h.get("x", e2); string(rep.Value) != "w2" || rep.InFlight {
		t.Errorf("after w3: x as of %d is %q in flight %v, want stable w2", e2, rep.Value, rep.InFlight)
	}
}
