package bench

import (
	"context"
	"testing"
	"time"
)

// TestBackstop: operations that end in time share one context, which
// stays live; one that overruns sees its context end, and the next
// operation gets a live one; the parent's end ends it too.
func TestBackstop(t *testing.T) {
	b := newBackstop(context.Background(), time.Minute)
	first := b.start()
	b.stop()
	for range 1000 {
		if ctx := b.start(); ctx != first || ctx.Err() != nil {
			t.Fatalf("an operation in time got context %v (err %v), want the first, live", ctx, ctx.Err())
		}
		b.stop()
	}
	b.close()

	parent, cancel := context.WithCancel(context.Background())
	b = newBackstop(parent, time.Millisecond)
	defer b.close()
	ctx := b.start()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("an operation that overran its backstop: context still live")
	}
	b.stop()
	next := b.start()
	if next == ctx {
		t.Errorf("after an overrun the next operation got the ended context")
	}
	cancel()
	<-next.Done() // the parent's end ends it (or its own millisecond)
	b.stop()
}
