package client

import (
	"context"
	"errors"
	"testing"

	"github.com/causeway/causeway/protocol"
)

// mapConn is a one-copy store: puts overwrite, gets read.
func mapConn() *fakeConn {
	store := map[string][]byte{}
	return &fakeConn{reply: func(r protocol.Request) protocol.Reply {
		switch r.Op {
		case protocol.OpPut:
			store[r.Key] = r.Value
		case protocol.OpGet:
			return protocol.Reply{Op: r.Op, Key: r.Key, Value: store[r.Key]}
		case protocol.OpReadTxn:
			rep := protocol.Reply{Op: r.Op}
			for _, k := range r.Keys {
				rep.Reads = append(rep.Reads, protocol.KV{Key: k, Value: store[k]})
			}
			return rep
		}
		return protocol.Reply{Op: r.Op}
	}}
}

// TestDelete: a delete writes a tombstone with a new ID each time, which
// Get and ReadTxn read as "not found"; a later put brings the key back; a
// value that would read as a tombstone cannot be written.
func TestDelete(t *testing.T) {
	ctx := context.Background()
	c := mapConn()
	s := New(c, "fake", "a")
	if err := s.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	id1, err := s.Delete(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := protocol.TombstoneID(c.got[1].Value); c.got[1].Op != protocol.OpPut || !ok || got != id1 {
		t.Fatalf("Delete sent %+v, want a put of tombstone %q", c.got[1], id1)
	}
	if v, found, err := s.Get(ctx, "k"); err != nil || found || v != nil {
		t.Fatalf("Get after Delete = %q, %v, %v; want not found", v, found, err)
	}
	if vals, err := s.ReadTxn(ctx, "k"); err != nil || len(vals) != 0 {
		t.Fatalf("ReadTxn after Delete = %v, %v; want no values", vals, err)
	}
	id2, err := s.Delete(ctx, "k")
	if err != nil || id2 == id1 {
		t.Fatalf("second Delete = %q, %v; want a new ID (first %q)", id2, err, id1)
	}
	if other, _ := New(mapConn(), "fake", "a").Delete(ctx, "k"); other == id1 || other == id2 {
		t.Errorf("another session's delete reuses ID %q", other)
	}
	if err := s.Put(ctx, "k", []byte("w")); err != nil {
		t.Fatal(err)
	}
	if v, found, _ := s.Get(ctx, "k"); !found || string(v) != "w" {
		t.Fatalf("Get after re-put = %q, %v", v, found)
	}
	if err := s.Put(ctx, "k", protocol.Tombstone("forged")); !errors.Is(err, ErrReservedValue) {
		t.Errorf("Put of a tombstone = %v, want ErrReservedValue", err)
	}
	if err := s.WriteTxn(ctx, map[string][]byte{"k": protocol.Tombstone("x")}); !errors.Is(err, ErrReservedValue) {
		t.Errorf("WriteTxn of a tombstone = %v, want ErrReservedValue", err)
	}
	if _, err := New(failWith(protocol.ErrUnavailable), "fake", "a").Delete(ctx, "k"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Delete on an unavailable store = %v", err)
	}
}
