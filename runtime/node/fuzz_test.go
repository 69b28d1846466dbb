package node

import (
	"errors"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/wire"
	"github.com/causeway/causeway/wire/karmapb"
)

// FuzzClientLimits: whatever frame payload a client sends, the node's
// size check neither panics nor lets a string over MaxKeyBytes or bytes
// over MaxValueBytes through, and CheckLimits refuses a request exactly
// when its key or value is over its limit.
func FuzzClientLimits(f *testing.F) {
	put, _ := wire.Encode(&karmapb.ClientPut{ReqId: 1, Session: "a/c1", Key: "k", Value: []byte("v")})
	f.Add(put, 3, 1)
	f.Add([]byte{}, MaxKeyBytes+1, 0)
	f.Add([]byte("\x0a\x00"), 0, MaxValueBytes+1)
	f.Fuzz(func(t *testing.T, payload []byte, keyLen, valueLen int) {
		if msg, err := wire.Decode(payload); err == nil {
			_ = checkClientMessage(msg)
		}
		keyLen, valueLen = keyLen%(2*MaxKeyBytes), valueLen%(2*MaxValueBytes)
		if keyLen < 0 || valueLen < 0 {
			return
		}
		key, value := strings.Repeat("k", keyLen), make([]byte, valueLen)
		err := CheckLimits(protocol.Request{Op: protocol.OpPut, Key: key, Value: value})
		if got, want := errors.Is(err, ErrKeyTooLarge), keyLen > MaxKeyBytes; got != want {
			t.Fatalf("key of %d bytes: %v", keyLen, err)
		}
		if keyLen <= MaxKeyBytes && errors.Is(err, ErrValueTooLarge) != (valueLen > MaxValueBytes) {
			t.Fatalf("value of %d bytes: %v", valueLen, err)
		}
		msg := &karmapb.ClientPut{Key: key, Value: value}
		if why := checkClientMessage(msg); (why == "") != (keyLen <= MaxKeyBytes && valueLen <= MaxValueBytes) {
			t.Fatalf("key %d value %d bytes: node check %q", keyLen, valueLen, why)
		}
	})
}
