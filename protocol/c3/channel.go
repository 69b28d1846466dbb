package c3

import (
	"fmt"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/fifo"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/c3pb"
)

// Reliable FIFO channels between layers (not in the paper, which assumes
// them: Alg. 1 l.6 orders queues by identifier, yet migrate labels have
// none): package fifo. Every label a layer sends to another is numbered
// on the channel to that layer (Label.seq), logged durably before it is
// sent, and resent until the receiver acknowledges it; the receiver takes
// labels in seq order only, each once, logs them durably ("i/", take) and
// acknowledges cumulatively (at its next tick).
// So a layer that crashes after sending a label to some DCs only resends
// it to the others after its restart, and no DC's ExecutedClock stalls
// on a label lost with the sender's memory.

// Storage keys of a layer besides its channels' (package fifo). Counters
// are stored as 8-byte big-endian values.
const (
	keyWriteCounter = "c/wc"
	prefixExecuted  = "c/exec/" // + source DC index: ExecutedClock entry
	prefixIn        = "i/"      // + source/seq: a label taken, not yet executed
)

func seqKey(prefix string, dc int, seq uint64) string {
	return fmt.Sprintf("%s%d/%016x", prefix, dc, seq)
}

func counterKey(prefix string, dc int) string { return prefix + strconv.Itoa(dc) }

// newChannels returns the layer's channels to every other DC's layer.
func (y *layer) newChannels() *fifo.Channels[*pb.Label] {
	peers := make([]protocol.NodeID, len(y.dcs))
	for i, d := range y.dcs {
		if i != y.self {
			peers[i] = LayerOf(d)
		}
	}
	return fifo.New(fifo.Config[*pb.Label]{Self: y.id, Peers: peers,
		New:    func() *pb.Label { return &pb.Label{} },
		SetSeq: func(l *pb.Label, seq uint64) { l.Seq = seq },
		Ack:    func(seq uint64) proto.Message { return &pb.LabelAck{Seq: seq} },
		Take:   y.take})
}

// take logs a label in order and enqueues it in WaitingOps[src] (Alg. 1
// l.33-41).
func (y *layer) take(_ time.Duration, src int, l *pb.Label, r *protocol.Ready) {
	r.Write(storage.Write{Kind: storage.Put, Key: seqKey(prefixIn, src, l.Seq), Value: fifo.Marshal(l)}, true)
	y.enqueue(src, l)
}
