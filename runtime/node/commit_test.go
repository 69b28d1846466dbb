package node

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
)

// kvNode is a toy server for the group commit's tests: "put K" stores K
// with a synced write and acknowledges it ("ack K"); "get K" answers from
// memory ("got K") without writing, so it may reveal a put that is not
// durable yet.
type kvNode struct {
	stored map[string]bool
}

func (n *kvNode) Start(time.Duration) protocol.Ready { return protocol.Ready{} }

func (n *kvNode) Tick(time.Duration, uint64) protocol.Ready { return protocol.Ready{} }

func (n *kvNode) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	op, key, _ := strings.Cut(m.Body.(*wrapperspb.StringValue).Value, " ")
	switch op {
	case "put":
		r.Write(storage.Write{Kind: storage.Put, Key: key, Version: 1, Value: []byte(key)}, true)
		n.stored[key] = true
		r.Send(m.To, m.From, wrapperspb.String("ack "+key))
	case "get":
		r.Send(m.To, m.From, wrapperspb.String(fmt.Sprintf("got %s=%v", key, n.stored[key])))
	}
	return r
}

// TestGroupCommitAcknowledgesOnlyDurableWrites runs the node loop with
// group commit over storage.Mem, holding each sync until the test lets it
// go: puts that arrive while a sync is in flight share the next one, no
// acknowledgement (nor a get that saw an unsynced put) goes out before
// the put is durable, and everything goes out in step order.
func TestGroupCommitAcknowledgesOnlyDurableWrites(t *testing.T) {
	mem := storage.NewMem()
	const self, client = protocol.NodeID("a/s0"), protocol.NodeID("a/c0")
	var applied []string // keys, in Apply order
	syncStarted := make(chan struct{})
	syncGo := make(chan struct{})
	sent := make(chan string, 16)
	box := newInbox()
	m := &machine{
		id: self, sm: &kvNode{stored: map[string]bool{}}, clock: newClock(time.Time{}), box: box,
		log: slog.New(slog.DiscardHandler),
		persist: func(ws []storage.Write, sync bool) error {
			if err := mem.Apply(ws, false); err != nil {
				return err
			}
			applied = append(applied, ws[0].Key)
			return nil
		},
		send: func(msg protocol.Message) {
			s := msg.Body.(*wrapperspb.StringValue).Value
			// Acknowledged means durable: the acknowledged put is not among
			// the unsynced batches, which are the last Unsynced() applied.
			if key, ok := strings.CutPrefix(s, "ack "); ok {
				i := slices.Index(applied, key)
				if unsynced := mem.Unsynced(); i >= len(applied)-unsynced {
					t.Errorf("put %s acknowledged while not durable (%d of %d batches unsynced)", key, unsynced, len(applied))
				}
			}
			sent <- s
		},
	}
	var syncs atomic.Int32
	m.gc = newGroupCommit(func() error {
		syncs.Add(1)
		syncStarted <- struct{}{}
		<-syncGo
		return mem.Apply(nil, true)
	}, nil)
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- m.run(stop, nil) }()
	defer func() {
		close(stop)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	push := func(s string) { box.push(input{kind: inMessage, from: client, msg: wrapperspb.String(s)}) }
	// noneSent checks, once the loop has handled every input pushed so
	// far, that it sent nothing.
	noneSent := func(when string) {
		ran := make(chan struct{})
		box.push(input{kind: inCall, call: func() { close(ran) }})
		<-ran
		select {
		case s := <-sent:
			t.Fatalf("%s: %q went out before its sync", when, s)
		default:
		}
	}

	push("put k1")
	<-syncStarted // the sync of k1 is in flight
	push("put k2")
	push("get k2")
	push("put k3")
	noneSent("during the first sync")
	syncGo <- struct{}{} // k1 is durable

	// k1's acknowledgement alone goes out; k2, the get and k3 share the
	// next sync, started as soon as the first one ended.
	if s := <-sent; s != "ack k1" {
		t.Fatalf("first message = %q, want ack k1", s)
	}
	<-syncStarted
	noneSent("during the second sync")
	syncGo <- struct{}{}
	var got []string
	for range 3 {
		got = append(got, <-sent)
	}
	if want := []string{"ack k2", "got k2=true", "ack k3"}; !slices.Equal(got, want) {
		t.Errorf("after the second sync: %q, want %q", got, want)
	}
	// A get with nothing waiting is answered at once, without a sync.
	push("get k1")
	if s := <-sent; s != "got k1=true" {
		t.Errorf("get with nothing to sync: %q", s)
	}
	if n := mem.Unsynced(); n != 0 {
		t.Errorf("%d batches unsynced after every acknowledgement", n)
	}
	if n := syncs.Load(); n != 2 {
		t.Errorf("%d syncs for three puts, want 2 (k2 and k3 share one)", n)
	}
}

// TestGroupCommitSharesOneSyncPerBatch: puts the loop takes in one batch
// of inputs share one sync, started once the batch is applied (not one
// sync for the first put and another for the rest), and none is
// acknowledged before it.
func TestGroupCommitSharesOneSyncPerBatch(t *testing.T) {
	mem := storage.NewMem()
	const self, client = protocol.NodeID("a/s0"), protocol.NodeID("a/c0")
	syncStarted := make(chan int, 4) // batches unsynced when each sync starts
	syncGo := make(chan struct{})
	sent := make(chan string, 16)
	box := newInbox()
	m := &machine{
		id: self, sm: &kvNode{stored: map[string]bool{}}, clock: newClock(time.Time{}), box: box,
		log:     slog.New(slog.DiscardHandler),
		persist: func(ws []storage.Write, sync bool) error { return mem.Apply(ws, false) },
		send: func(msg protocol.Message) {
			if n := mem.Unsynced(); n != 0 {
				t.Errorf("%q sent with %d batches unsynced", msg.Body.(*wrapperspb.StringValue).Value, n)
			}
			sent <- msg.Body.(*wrapperspb.StringValue).Value
		},
	}
	m.gc = newGroupCommit(func() error {
		syncStarted <- mem.Unsynced()
		<-syncGo
		return mem.Apply(nil, true)
	}, nil)
	// Queued before the loop starts: its first batch holds all three.
	for _, k := range []string{"a", "b", "c"} {
		box.push(input{kind: inMessage, from: client, msg: wrapperspb.String("put " + k)})
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- m.run(stop, nil) }()
	defer func() {
		close(stop)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	if n := <-syncStarted; n != 3 {
		t.Errorf("the first sync started with %d of the batch's 3 puts applied, want all 3", n)
	}
	close(syncGo) // this sync and any later one complete
	var got []string
	for range 3 {
		got = append(got, <-sent)
	}
	if want := []string{"ack a", "ack b", "ack c"}; !slices.Equal(got, want) {
		t.Errorf("acknowledgements %q, want %q", got, want)
	}
	select {
	case n := <-syncStarted:
		t.Errorf("a second sync (%d batches) for one batch of puts", n)
	default:
	}
}
