package protocol

import (
	"testing"

	"github.com/causeway/causeway/storage"
)

// TestReadyPoolRecycles: a recycled Ready comes back empty, with its
// backing arrays kept and cleared (the pool keeps nothing alive), and only
// once.
func TestReadyPoolRecycles(t *testing.T) {
	var p ReadyPool
	r := p.Take()
	r.Write(storage.Write{Key: "k", Value: []byte("v")}, true)
	r.Send("a/s0", "a/s1", nil)
	r.SetTimer(1, 2)
	r.Reply(Reply{Key: "k", Value: []byte("v")})
	r.Visible("k", []byte("v"))
	msgs := r.After.Messages
	p.Recycle(r)
	if msgs[0] != (Message{}) {
		t.Fatalf("a recycled message was not cleared: %+v", msgs[0])
	}
	r2 := p.Take()
	if !r2.Empty() || r2.Persist.Sync {
		t.Fatalf("a recycled Ready is not empty: %+v", r2)
	}
	if cap(r2.After.Messages) == 0 || cap(r2.Persist.Writes) == 0 || cap(r2.After.Replies) == 0 ||
		cap(r2.After.Timers) == 0 || cap(r2.After.Visible) == 0 {
		t.Fatalf("a recycled Ready lost its arrays: %+v", r2)
	}
	r2.Send("a/s0", "a/s2", nil)
	if &r2.After.Messages[0] != &msgs[0] {
		t.Fatal("the next Ready does not reuse the recycled array")
	}
	if r3 := p.Take(); cap(r3.After.Messages) != 0 {
		t.Fatal("the pool handed the same arrays out twice")
	}
}
