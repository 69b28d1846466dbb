package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/causeway/causeway/protocol"
)

// ErrReservedValue is returned when writing a value that starts with
// protocol.TombstonePrefix: a read would take it for a delete.
var ErrReservedValue = errors.New("value starts with the tombstone prefix, which is reserved for deletes")

// checkValue says why value cannot be written, if it cannot.
func checkValue(value []byte) error {
	switch {
	case len(value) == 0:
		return ErrEmptyValue
	case protocol.IsTombstone(value):
		return ErrReservedValue
	}
	return nil
}

// deleteIDs hands out the IDs of a session's deletes: a random session
// nonce (drawn at the first delete) and a sequence number, "NONCE.SEQ", so
// that no two deletes of any sessions share a tombstone.
type deleteIDs struct {
	mu    sync.Mutex
	nonce string
	seq   uint64
}

// next returns the ID of the session's next delete.
func (d *deleteIDs) next() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nonce == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		d.nonce = hex.EncodeToString(b[:])
	}
	d.seq++
	return d.nonce + "." + strconv.FormatUint(d.seq, 10), nil
}

// Delete deletes key: later reads that see the delete find the key absent
// (Get's found is false; ReadTxn leaves it out). A delete is a write of a
// tombstone (protocol.Tombstone) with an ID unique to this delete, so it is
// ordered, replicated and made visible exactly as a Put, with the same
// causal guarantees, and a history can tell which delete a read saw. It
// returns the tombstone's ID. Errors are those of Put: after ErrTimeout
// the key may or may not have been deleted.
func (s *Session) Delete(ctx context.Context, key string) (tombstone string, err error) {
	what := fmt.Sprintf("delete %q", key)
	id, err := s.dels.next()
	if err != nil {
		return "", fmt.Errorf("%s: tombstone ID: %w", what, err)
	}
	if _, err := s.do(ctx, protocol.Request{Op: protocol.OpPut, Key: key, Value: protocol.Tombstone(id)}, what); err != nil {
		return "", err
	}
	return id, nil
}
