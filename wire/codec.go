// Package wire is Causeway's message codec. Every protocol message is a
// protobuf message; on the wire it travels as a google.protobuf.Any so that
// the receiver can decode it without knowing its type in advance. The live
// runtimes encode every message they send and decode it on delivery; the
// simulator copies messages instead (proto.Clone keeps what the wire
// keeps) and counts framed bytes with FrameSize, unless its
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
	"google.golang.org/protobuf/types/known/anypb"
)

// MaxFrameBytes bounds one encoded message; larger frames are rejected.
const MaxFrameBytes = 16 << 20

// Encode marshals m, tagged with its type, into a frame.
func Encode(m proto.Message) ([]byte, error) {
	a, err := anypb.New(m)
	if err != nil {
		return nil, fmt.Errorf("wire: encode %T: %w", m, err)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("wire: encode %T: %w", m, err)
	}
	if len(b) > MaxFrameBytes {
		return nil, fmt.Errorf("wire: encoded %T is %d bytes, over the %d-byte limit", m, len(b), MaxFrameBytes)
	}
	return b, nil
}

// Decode unmarshals a frame made by Encode. The message type must be
// linked into the binary (imported by some protocol package).
func Decode(b []byte) (proto.Message, error) {
	if len(b) > MaxFrameBytes {
		return nil, fmt.Errorf("wire: frame of %d bytes is over the %d-byte limit", len(b), MaxFrameBytes)
	}
	var a anypb.Any
	if err := proto.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("wire: malformed frame: %w", err)
	}
	m, err := a.UnmarshalNew()
	if err != nil {
		return nil, fmt.Errorf("wire: frame of type %q: %w", a.GetTypeUrl(), err)
	}
	return m, nil
}

// typeURLPrefix is the prefix anypb gives every type URL.
const typeURLPrefix = "type.googleapis.com/"

// FrameSize returns len(Encode(m)) without encoding m, given payload =
// proto.Size(m): the Any's type URL field plus, for a non-empty payload,
// its value field. The simulator counts framed bytes with it instead of
// encoding every message.
func FrameSize(m proto.Message, payload int) int {
	url := len(typeURLPrefix) + len(m.ProtoReflect().Descriptor().FullName())
	n := protowire.SizeTag(1) + protowire.SizeBytes(url)
	if payload > 0 {
		n += protowire.SizeTag(2) + protowire.SizeBytes(payload)
	}
	return n
}
