package c3

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/c3pb"
)

// Reliable FIFO channels between layers (not in the paper, which assumes
// them: Alg. 1 l.6 orders queues by identifier, yet migrate labels have
// none). Every label a layer sends to another is numbered on the channel
// to that layer (Label.seq), logged durably before it is sent, and resent
// until the receiver acknowledges it; the receiver takes labels in seq
// order only, each once, logs them durably and acknowledges cumulatively
// (at its next tick).
// So a layer that crashes after sending a label to some DCs only resends
// it to the others after its restart, and no DC's ExecutedClock stalls
// on a label lost with the sender's memory.

// Storage keys of a layer. Counters are stored as 8-byte big-endian values.
const (
	keyWriteCounter = "c/wc"
	prefixNext      = "c/next/" // + dest DC index: the channel's last seq
	prefixRecv      = "c/recv/" // + source DC index: last in-order seq taken
	prefixExecuted  = "c/exec/" // + source DC index: ExecutedClock entry
	prefixOut       = "o/"      // + dest/seq: a label not yet acknowledged
	prefixIn        = "i/"      // + source/seq: a label taken, not yet executed
)

func seqKey(prefix string, dc int, seq uint64) string {
	return fmt.Sprintf("%s%d/%016x", prefix, dc, seq)
}

func counterKey(prefix string, dc int) string { return prefix + strconv.Itoa(dc) }

func putCounter(r *protocol.Ready, key string, v uint64, sync bool) {
	r.Write(storage.Write{Kind: storage.Put, Key: key, Value: binary.BigEndian.AppendUint64(nil, v)}, sync)
}

func counterValue(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func marshal(m proto.Message) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err) // a generated message always marshals
	}
	return b
}

// channel is the sending end of the channel to one other layer.
type channel struct {
	next  uint64      // last seq assigned
	acked uint64      // every label up to acked is acknowledged
	log   []*pb.Label // labels after acked, in seq order
	retry protocol.Retry
	// catchingUp is set by a retransmission and cleared once the log is
	// empty: meanwhile every ack that advances sends the next window, so
	// a backlog (a partition, a restart) drains at a window per round
	// trip rather than per retransmission interval.
	catchingUp bool
}

// sendLabel numbers l on the channel to dest, logs it durably and sends it.
func (y *layer) sendLabel(now time.Duration, dest int, l *pb.Label, r *protocol.Ready) {
	c := y.out[dest]
	c.next++
	l.Seq = c.next
	putCounter(r, counterKey(prefixNext, dest), c.next, true)
	r.Write(storage.Write{Kind: storage.Put, Key: seqKey(prefixOut, dest, l.Seq), Value: marshal(l)}, true)
	if len(c.log) == 0 {
		c.retry = protocol.SentAt(now)
	}
	c.log = append(c.log, l)
	r.Send(y.id, LayerOf(y.dcs[dest]), l)
}

// labelAck drops the labels dest acknowledged.
func (y *layer) labelAck(now time.Duration, dest int, seq uint64, r *protocol.Ready) {
	c := y.out[dest]
	if c == nil || seq <= c.acked {
		return
	}
	c.acked = seq
	for len(c.log) > 0 && c.log[0].Seq <= seq {
		r.Write(storage.Write{Kind: storage.Delete, Key: seqKey(prefixOut, dest, c.log[0].Seq)}, false)
		c.log = c.log[1:]
	}
	c.retry = protocol.SentAt(now)
	if len(c.log) == 0 {
		c.catchingUp = false
	} else if c.catchingUp {
		y.sendWindow(dest, c, r)
	}
}

// sendWindow sends the first maxResend unacknowledged labels to dest.
func (y *layer) sendWindow(dest int, c *channel, r *protocol.Ready) {
	for i, l := range c.log {
		if i == maxResend {
			break
		}
		r.Send(y.id, LayerOf(y.dcs[dest]), l)
	}
}

// maxResend bounds the labels one retransmission of a channel sends.
const maxResend = 256

// resendLabels retransmits the unacknowledged labels of every channel.
func (y *layer) resendLabels(now time.Duration, r *protocol.Ready) {
	for dest, c := range y.out {
		if c == nil || len(c.log) == 0 || !c.retry.Due(now, resendAfter, maxBackoff) {
			continue
		}
		c.catchingUp = true
		y.sendWindow(dest, c, r)
	}
}

// receiveLabel takes a label from src's channel: in seq order, once each,
// logged durably before it is acknowledged.
func (y *layer) receiveLabel(now time.Duration, src int, l *pb.Label, r *protocol.Ready) {
	switch {
	case l.Seq <= y.recvSeq[src]:
	case l.Seq > y.recvSeq[src]+1:
		y.recvBuf[src][l.Seq] = l // wait for the gap to fill
	default:
		y.take(src, l, r)
		for {
			next, ok := y.recvBuf[src][y.recvSeq[src]+1]
			if !ok {
				break
			}
			delete(y.recvBuf[src], next.Seq)
			y.take(src, next, r)
		}
	}
	for seq := range y.recvBuf[src] {
		if seq <= y.recvSeq[src] {
			delete(y.recvBuf[src], seq)
		}
	}
	y.ackDue[src] = true
}

// sendAcks acknowledges, once per tick, what each channel delivered since
// the last tick: one LabelAck per channel and tick rather than one per
// label, which spares the layer (one node per DC) an input per label at
// every sender. tickEvery is well under resendAfter, so a delayed ack does
// not cause a retransmission.
func (y *layer) sendAcks(r *protocol.Ready) {
	for src, due := range y.ackDue {
		if due {
			y.ackDue[src] = false
			r.Send(y.id, LayerOf(y.dcs[src]), &pb.LabelAck{Seq: y.recvSeq[src]})
		}
	}
}

// take logs a label in order and enqueues it in WaitingOps[src] (Alg. 1
// l.33-41).
func (y *layer) take(src int, l *pb.Label, r *protocol.Ready) {
	y.recvSeq[src] = l.Seq
	putCounter(r, counterKey(prefixRecv, src), l.Seq, true)
	r.Write(storage.Write{Kind: storage.Put, Key: seqKey(prefixIn, src, l.Seq), Value: marshal(l)}, true)
	y.enqueue(src, l)
}
