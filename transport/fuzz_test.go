package transport

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/causeway/causeway/wire"
	"github.com/causeway/causeway/wire/transportpb"
)

// FuzzFrameDecode feeds arbitrary bytes, as a whole message (a frame and
// its batch) and as a frame's payload, to the receiver's validation and
// decoding: it must never panic, and it accepts only frames that pass
// every check.
func FuzzFrameDecode(f *testing.F) {
	payload, err := wire.Encode(wrapperspb.String("hello"))
	if err != nil {
		f.Fatal(err)
	}
	frame, err := proto.Marshal(&transportpb.Frame{Payload: payload, From: "dc1/s0", To: "dc2/s0"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(frame)
	batch, err := proto.Marshal(&transportpb.Frame{Payload: payload, From: "dc1/s0", To: "dc2/s0",
		Batch: []*transportpb.Frame{{Payload: payload, From: "dc1/s1", To: "dc2/s0"}, {Payload: payload, From: "dc1/s0", To: "dc2/s0",
			Batch: []*transportpb.Frame{{Payload: payload, From: "dc1/s0", To: "dc2/s0"}}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(batch)
	f.Add(payload)
	refusal, err := wire.Encode(&transportpb.Refusal{Reason: "full"}) // a message with a kind
	if err != nil {
		f.Fatal(err)
	}
	if frame, err = proto.Marshal(&transportpb.Frame{Payload: refusal, From: "dc1/s0", To: "dc2/c0"}); err != nil {
		f.Fatal(err)
	}
	f.Add(frame)
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0xff, 0x01})
	f.Add([]byte("\x12\x02\xff\xfe\x1a\x01x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, limit := range []int{64, wire.MaxFrameBytes} {
			frames, err := unmarshalFrames(b)
			if err != nil {
				continue
			}
			for _, f := range frames {
				from, to, msg, err := checkBatched(f, limit)
				if err != nil {
					continue
				}
				if from == "" || to == "" || msg == nil || len(f.Batch) > 0 {
					t.Fatalf("accepted frame with from %q, to %q, message %v, %d batched", from, to, msg, len(f.Batch))
				}
			}
		}
		wrapped, err := proto.Marshal(&transportpb.Frame{Payload: b, From: "dc1/s0", To: "dc2/s0"})
		if err != nil {
			t.Fatal(err)
		}
		frames, err := unmarshalFrames(wrapped)
		if err != nil || len(frames) != 1 {
			t.Fatalf("a frame wrapping the bytes: %d frames, %v", len(frames), err)
		}
		if _, _, msg, err := checkBatched(frames[0], wire.MaxFrameBytes); err == nil && msg == nil {
			t.Fatal("accepted a payload without a message")
		}
	})
}
