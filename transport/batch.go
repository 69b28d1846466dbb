package transport

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/wire/transportpb"
)

// Batching: a link's writer takes every frame waiting in its queue (up to
// maxBatchFrames and maxBatchBytes) and writes them as one gRPC message,
// the first frame carrying the others in its batch field. Under load this
// saves a gRPC message, a wake-up of gRPC's writer and of the receiver,
// and a socket write per frame; an idle link still writes each frame as
// soon as it is queued, alone.
const (
	// maxBatchFrames bounds the frames of one message.
	maxBatchFrames = 256
	// maxBatchBytes bounds a batch: no frame joins one whose frames
	// (payloads and IDs) already hold this many bytes. A message is then at
	// most this plus one frame and some tags, under gRPC's receive limit
	// (MaxFrameBytes plus frameSlack, see New) whatever the frames' sizes.
	maxBatchBytes = 256 << 10
)

// errNestedBatch is why a frame inside another frame's batch that has a
// batch of its own is dropped.
var errNestedBatch = errors.New("transport: a batched frame carries a batch of its own")

// frameBytes is what f counts towards maxBatchBytes.
func frameBytes(f *transportpb.Frame) int {
	return len(f.GetPayload()) + len(f.GetFrom()) + len(f.GetTo())
}

// takeBatch appends to batch (empty) the frames at the head of q, at
// least one, until q is empty or a bound is reached, and removes them
// from q.
func takeBatch(q *[]outFrame, batch []outFrame) []outFrame {
	bytes := 0
	k := 0
	for _, f := range *q {
		if k == maxBatchFrames || bytes >= maxBatchBytes {
			break
		}
		bytes += frameBytes(f.frame)
		batch = append(batch, f)
		k++
	}
	rest := copy(*q, (*q)[k:])
	clear((*q)[rest:]) // let the frames be collected
	*q = (*q)[:rest]
	return batch
}

// packBatch is the one message that carries batch's frames in order. The
// frames themselves are not changed: a batch that could not be written is
// packed again for the next stream.
func packBatch(batch []outFrame) *transportpb.Frame {
	head := batch[0].frame
	if len(batch) == 1 {
		return head
	}
	m := &transportpb.Frame{Payload: head.Payload, From: head.From, To: head.To, Batch: make([]*transportpb.Frame, len(batch)-1)}
	for i, f := range batch[1:] {
		m.Batch[i] = f.frame
	}
	return m
}

// unpackBatch is the frames a received message carries, in order: the
// message itself (without its batch), then its batch.
func unpackBatch(m *transportpb.Frame) []*transportpb.Frame {
	if len(m.Batch) == 0 {
		return []*transportpb.Frame{m}
	}
	frames := make([]*transportpb.Frame, 0, 1+len(m.Batch))
	frames = append(frames, &transportpb.Frame{Payload: m.Payload, From: m.From, To: m.To})
	return append(frames, m.Batch...)
}

// unmarshalFrames parses one serialized message into the frames it
// carries, in order.
func unmarshalFrames(b []byte) ([]*transportpb.Frame, error) {
	var m transportpb.Frame
	if err := proto.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("transport: malformed frame: %w", err)
	}
	return unpackBatch(&m), nil
}

// checkBatched is checkFrame for a frame of a received message, which
// also refuses a batch inside a batch.
func checkBatched(f *transportpb.Frame, maxPayload int) (from, to string, msg proto.Message, err error) {
	if len(f.Batch) > 0 {
		return "", "", nil, errNestedBatch
	}
	return checkFrame(f, maxPayload)
}
