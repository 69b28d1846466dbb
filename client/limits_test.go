package client

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/node"
)

// TestOversizedKeysAndValuesAreRefused: a key, value or transaction over
// its limit fails with the limit named, without a round trip.
func TestOversizedKeysAndValuesAreRefused(t *testing.T) {
	c := failWith(protocol.OK)
	s := New(c, "fake", "a")
	ctx := context.Background()
	bigKey := strings.Repeat("k", node.MaxKeyBytes+1)
	bigValue := make([]byte, node.MaxValueBytes+1)
	many := make([]string, node.MaxTxnKeys+1)
	for i := range many {
		many[i] = string(rune('a' + i%26))
	}
	for _, tc := range []struct {
		name  string
		err   error
		want  error
		limit string
	}{
		{"get", func() error { _, _, err := s.Get(ctx, bigKey); return err }(), ErrKeyTooLarge, "4096-byte limit"},
		{"put key", s.Put(ctx, bigKey, []byte("v")), ErrKeyTooLarge, "4096-byte limit"},
		{"put value", s.Put(ctx, "k", bigValue), ErrValueTooLarge, "1048576-byte limit"},
		{"write_txn value", s.WriteTxn(ctx, map[string][]byte{"k": bigValue}), ErrValueTooLarge, "1048576-byte limit"},
		{"read_txn key", func() error { _, err := s.ReadTxn(ctx, "k", bigKey); return err }(), ErrKeyTooLarge, "4096-byte limit"},
		{"read_txn keys", func() error { _, err := s.ReadTxn(ctx, many...); return err }(), ErrTooManyKeys, "1024-key"},
	} {
		if !errors.Is(tc.err, tc.want) || !strings.Contains(tc.err.Error(), tc.limit) {
			t.Errorf("%s: %v, want %v naming %q", tc.name, tc.err, tc.want, tc.limit)
		}
	}
	if len(c.got) != 0 {
		t.Fatalf("sent %d requests, want none", len(c.got))
	}
	if err := s.Put(ctx, strings.Repeat("k", node.MaxKeyBytes), make([]byte, node.MaxValueBytes)); err != nil {
		t.Errorf("a key and value at their limits: %v", err)
	}
}
