// Package wire is Causeway's message codec. Every protocol message is a
// protobuf message; on the wire it travels in a frame that starts with its
// kind, a small number naming its type (a varint of one or two bytes,
// kindTable), followed by its protobuf encoding:
//
//	frame = varint(kind) message
//
// so that the receiver can decode it without knowing its type in advance,
// at a cost of one or two bytes per message instead of a type URL. A
// message type with no kind (only tests send such, e.g. the
// google.protobuf wrappers) travels under its full name:
//
//	frame = varint(0) varint(len(name)) name message
//
// The live runtimes encode every message they send and decode it on
// delivery; the simulator copies messages instead (proto.Clone keeps what
// the wire keeps) and counts framed bytes with FrameSize, unless its
// WireRoundTrip option asks for the codec, which the protocols' scenario
// tests do.
//
// The .proto sources live under proto/; the generated Go code is committed
// (make proto regenerates it).
package wire

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// MaxFrameBytes bounds one encoded message; larger frames are rejected.
const MaxFrameBytes = 16 << 20

// marshal is the encoding of every message: deterministic, and with the
// size proto.Size has just cached.
var marshal = proto.MarshalOptions{Deterministic: true, UseCachedSize: true}

// Encode marshals m, tagged with its kind, into a frame.
func Encode(m proto.Message) ([]byte, error) {
	size := proto.Size(m)
	n := headerSize(m)
	if n+size > MaxFrameBytes {
		return nil, fmt.Errorf("wire: encoded %T is %d bytes, over the %d-byte limit", m, n+size, MaxFrameBytes)
	}
	b := appendHeader(make([]byte, 0, n+size), m)
	b, err := marshal.MarshalAppend(b, m)
	if err != nil {
		return nil, fmt.Errorf("wire: encode %T: %w", m, err)
	}
	return b, nil
}

// appendHeader appends m's kind, or 0 and its full name, to b.
func appendHeader(b []byte, m proto.Message) []byte {
	if k, ok := KindOf(m); ok {
		return protowire.AppendVarint(b, uint64(k))
	}
	b = protowire.AppendVarint(b, 0)
	return protowire.AppendString(b, string(m.ProtoReflect().Descriptor().FullName()))
}

// headerSize is the length of appendHeader's bytes for m.
func headerSize(m proto.Message) int {
	if k, ok := KindOf(m); ok {
		return protowire.SizeVarint(uint64(k))
	}
	return protowire.SizeVarint(0) + protowire.SizeBytes(len(m.ProtoReflect().Descriptor().FullName()))
}

// Decode unmarshals a frame made by Encode. A frame that names its type in
// full needs that type linked into the binary.
func Decode(b []byte) (proto.Message, error) {
	if len(b) > MaxFrameBytes {
		return nil, fmt.Errorf("wire: frame of %d bytes is over the %d-byte limit", len(b), MaxFrameBytes)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("wire: empty frame")
	}
	k, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return nil, fmt.Errorf("wire: malformed frame: bad kind: %w", protowire.ParseError(n))
	}
	b = b[n:]
	var mt protoreflect.MessageType
	if k != 0 {
		if k <= 1<<32-1 {
			mt = kinds.byKind[Kind(k)]
		}
		if mt == nil {
			return nil, fmt.Errorf("wire: frame of unknown kind %d", k)
		}
	} else {
		name, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, fmt.Errorf("wire: malformed frame: bad type name: %w", protowire.ParseError(n))
		}
		b = b[n:]
		var err error
		mt, err = protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(name))
		if err != nil {
			return nil, fmt.Errorf("wire: frame of type %q: %w", name, err)
		}
	}
	m := mt.New().Interface()
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("wire: frame of type %s: %w", mt.Descriptor().FullName(), err)
	}
	return m, nil
}

// FrameSize returns len(Encode(m)) without encoding m, given payload =
// proto.Size(m): the kind's varint (or 0 and the full name) plus the
// payload. The simulator counts framed bytes with it instead of encoding
// every message.
func FrameSize(m proto.Message, payload int) int {
	return headerSize(m) + payload
}
