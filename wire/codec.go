// Package wire is Causeway's message codec. Every protocol message is a
// protobuf message; on the wire it travels as a google.protobuf.Any so that
// the receiver can decode it without knowing its type in advance. Both
// runtimes encode every message they send and decode it on delivery, so
// the codec is exercised on every simulated run and nothing is shared
// between nodes by aliasing.
//
// The .proto sources live under proto/; the generated Go code is committed
// (make proto regenerates it).
package wire

import (
	"fmt"

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
