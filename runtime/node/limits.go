package node

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/causeway/causeway/protocol"
)

// The limits a client of a live cluster runs into (docs/formats/limits.md
// lists them with what happens when each is hit).
const (
	// MaxKeyBytes bounds a key, in bytes. The client refuses a longer key
	// before sending anything (ErrKeyTooLarge); a node refuses a client
	// frame with a longer string in it (a transportpb.Refusal, which ends
	// the operation with ErrRefused).
	MaxKeyBytes = 4 << 10
	// MaxValueBytes bounds a value, in bytes, checked as MaxKeyBytes is
	// (ErrValueTooLarge).
	MaxValueBytes = 1 << 20
	// MaxTxnKeys bounds the keys of one read or write transaction
	// (ErrTooManyKeys).
	MaxTxnKeys = 1024
	// MaxTxnBytes bounds the keys and values of one write transaction
	// together (ErrTooManyKeys), so that it fits in a transport frame.
	MaxTxnBytes = 8 << 20
	// DefaultMaxSessions is Options.MaxSessions's default: the client
	// sessions one node serves at once.
	DefaultMaxSessions = 10000
	// DefaultMaxQueuedPerSession is Options.MaxQueuedPerSession's default:
	// the frames of one session waiting in a node's queue.
	DefaultMaxQueuedPerSession = 256
)

var (
	// ErrKeyTooLarge is wrapped by the error of an operation with a key
	// over MaxKeyBytes; nothing was sent.
	ErrKeyTooLarge = fmt.Errorf("key over the %d-byte limit", MaxKeyBytes)
	// ErrValueTooLarge is wrapped by the error of an operation with a
	// value over MaxValueBytes; nothing was sent.
	ErrValueTooLarge = fmt.Errorf("value over the %d-byte limit", MaxValueBytes)
	// ErrTooManyKeys is wrapped by the error of a transaction with more
	// than MaxTxnKeys keys, or more than MaxTxnBytes of keys and values;
	// nothing was sent.
	ErrTooManyKeys = fmt.Errorf("transaction over the %d-key or %d-byte limit", MaxTxnKeys, MaxTxnBytes)
	// ErrRefused is wrapped by the error of an operation a node refused
	// (a transportpb.Refusal: a limit of the node was hit, which the error
	// names). The session ends with it, as with ErrUnavailable.
	ErrRefused = errors.New("refused by the node")
)

// CheckLimits returns an error wrapping ErrKeyTooLarge, ErrValueTooLarge
// or ErrTooManyKeys, naming the key and its size, when req is over a
// limit. Sessions check every request before sending it.
func CheckLimits(req protocol.Request) error {
	if n := len(req.Keys) + len(req.Writes); n > MaxTxnKeys {
		return fmt.Errorf("%w: %d keys", ErrTooManyKeys, n)
	}
	key := func(k string) error {
		if len(k) > MaxKeyBytes {
			return fmt.Errorf("%w: key %.32q… is %d bytes", ErrKeyTooLarge, k, len(k))
		}
		return nil
	}
	value := func(k string, v []byte) error {
		if len(v) > MaxValueBytes {
			return fmt.Errorf("%w: the value of key %.32q is %d bytes", ErrValueTooLarge, k, len(v))
		}
		return nil
	}
	if err := key(req.Key); err != nil {
		return err
	}
	if err := value(req.Key, req.Value); err != nil {
		return err
	}
	for _, k := range req.Keys {
		if err := key(k); err != nil {
			return err
		}
	}
	total := 0
	for _, kv := range req.Writes {
		if err := key(kv.Key); err != nil {
			return err
		}
		if err := value(kv.Key, kv.Value); err != nil {
			return err
		}
		total += len(kv.Key) + len(kv.Value)
	}
	if total > MaxTxnBytes {
		return fmt.Errorf("%w: %d bytes of keys and values", ErrTooManyKeys, total)
	}
	return nil
}

// checkClientMessage is the node's side of the size limits, for a frame
// from a client session: whatever the protocol's message, no string field
// (keys, IDs) may be over MaxKeyBytes, no bytes field (values, tokens)
// over MaxValueBytes, and no list hold more than MaxTxnKeys strings or
// values. It returns the reason to refuse the frame, or "".
func checkClientMessage(msg proto.Message) string {
	var why string
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap():
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					why = checkScalar(fd.MapValue(), mv)
					if why == "" && fd.MapValue().Kind() == protoreflect.MessageKind {
						walk(mv.Message())
					}
					return why == ""
				})
			case fd.IsList():
				l := v.List()
				if k := fd.Kind(); (k == protoreflect.StringKind || k == protoreflect.BytesKind) && l.Len() > MaxTxnKeys {
					why = fmt.Sprintf("field %s has %d entries, over the %d-key limit", fd.Name(), l.Len(), MaxTxnKeys)
					return false
				}
				for i := 0; i < l.Len() && why == ""; i++ {
					why = checkScalar(fd, l.Get(i))
					if why == "" && fd.Kind() == protoreflect.MessageKind {
						walk(l.Get(i).Message())
					}
				}
			default:
				why = checkScalar(fd, v)
				if why == "" && fd.Kind() == protoreflect.MessageKind {
					walk(v.Message())
				}
			}
			return why == ""
		})
	}
	walk(msg.ProtoReflect())
	return why
}

// checkScalar checks one string or bytes value against the limits.
func checkScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if n := len(v.String()); n > MaxKeyBytes {
			return fmt.Sprintf("field %s is %d bytes, over the %d-byte key limit", fd.Name(), n, MaxKeyBytes)
		}
	case protoreflect.BytesKind:
		if n := len(v.Bytes()); n > MaxValueBytes {
			return fmt.Sprintf("field %s is %d bytes, over the %d-byte value limit", fd.Name(), n, MaxValueBytes)
		}
	}
	return ""
}
