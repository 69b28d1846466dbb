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

// TestReadyPoolKeepsSeveral: two Readies taken before either is recycled
// both come back, each with its own arrays; the pool keeps at most
// maxSpares.
func TestReadyPoolKeepsSeveral(t *testing.T) {
	var p ReadyPool
	a, b := p.Take(), p.Take()
	a.Send("a/s0", "a/s1", nil)
	b.Send("a/s0", "a/s2", nil)
	am, bm := &a.After.Messages[0], &b.After.Messages[0]
	p.Recycle(a)
	p.Recycle(b)
	got := map[*Message]bool{}
	for range 2 {
		r := p.Take()
		r.Send("a/s0", "a/s3", nil)
		got[&r.After.Messages[0]] = true
	}
	if !got[am] || !got[bm] {
		t.Fatal("the pool did not keep both recycled Readies")
	}
	if r := p.Take(); cap(r.After.Messages) != 0 {
		t.Fatal("the pool handed the same arrays out twice")
	}
	for range maxSpares + 2 {
		r := Ready{}
		r.Send("a/s0", "a/s1", nil)
		p.Recycle(r)
	}
	if p.n != maxSpares {
		t.Fatalf("the pool keeps %d Readies, want at most %d", p.n, maxSpares)
	}
}
