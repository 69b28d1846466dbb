package fifo

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
)

// Storage key prefixes of the channels.
const (
	prefixNext = "c/next/" // + peer: the channel's last seq sent
	prefixRecv = "c/recv/" // + peer: last in-order seq taken
	prefixOut  = "o/"      // + peer/seq: a message not yet acknowledged
)

// Timing of retransmissions.
const (
	// ResendAfter is the first retransmission's wait; it doubles up to
	// MaxBackoff.
	ResendAfter = 500 * time.Millisecond
	// MaxBackoff caps the wait between retransmissions.
	MaxBackoff = 4 * time.Second
	// MaxResend bounds the messages one retransmission of a channel sends.
	MaxResend = 256
)

// Msg is a message carried on a channel: a protobuf message with a seq
// field.
type Msg interface {
	proto.Message
	GetSeq() uint64
}

// Config describes the channels of one node.
type Config[M Msg] struct {
	// Self is the node's id, Peers the node each peer index names (the
	// zero NodeID where there is no channel).
	Self  protocol.NodeID
	Peers []protocol.NodeID
	// New returns an empty message, SetSeq numbers one, Ack makes the
	// cumulative acknowledgement of every message up to seq.
	New    func() M
	SetSeq func(M, uint64)
	Ack    func(seq uint64) proto.Message
	// Take is called with each message taken from peer src, in seq
	// order, once: its writes join the batch that records the seq.
	Take func(now time.Duration, src int, m M, r *protocol.Ready)
}

// sender is the sending end of the channel to one peer.
type sender[M Msg] struct {
	next  uint64 // last seq assigned
	acked uint64 // every message up to acked is acknowledged
	log   []M    // messages after acked, in seq order
	retry protocol.Retry
	// catchingUp is set by a retransmission and cleared once the log is
	// empty (see the package doc).
	catchingUp bool
}

// Channels are one node's ends of its channels, indexed by peer.
type Channels[M Msg] struct {
	cfg     Config[M]
	out     []*sender[M] // nil where there is no channel
	recvSeq []uint64
	recvBuf []map[uint64]M
	ackDue  []bool // an acknowledgement is due to the peer at the next tick
}

// New returns the channels of cfg.Self to every peer with a node id.
func New[M Msg](cfg Config[M]) *Channels[M] {
	n := len(cfg.Peers)
	c := &Channels[M]{cfg: cfg, out: make([]*sender[M], n), recvSeq: make([]uint64, n),
		recvBuf: make([]map[uint64]M, n), ackDue: make([]bool, n)}
	for i, p := range cfg.Peers {
		if p != "" {
			c.out[i] = &sender[M]{}
		}
		c.recvBuf[i] = map[uint64]M{}
	}
	return c
}

func seqKey(peer int, seq uint64) string { return fmt.Sprintf("%s%d/%016x", prefixOut, peer, seq) }

func counterKey(prefix string, peer int) string { return prefix + strconv.Itoa(peer) }

// PutCounter writes an 8-byte big-endian counter.
func PutCounter(r *protocol.Ready, key string, v uint64, sync bool) {
	r.Write(storage.Write{Kind: storage.Put, Key: key, Value: binary.BigEndian.AppendUint64(nil, v)}, sync)
}

// CounterValue reads a counter written by PutCounter (0 if malformed).
func CounterValue(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

// Marshal encodes m deterministically.
func Marshal(m proto.Message) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err) // a generated message always marshals
	}
	return b
}

// Recover reloads the counters and unacknowledged messages of every
// channel; the logs are resent at the node's first Resend.
func (c *Channels[M]) Recover(st storage.Reader) {
	scanCounters := func(prefix string, fn func(peer int, v uint64)) {
		_ = st.Scan(prefix, func(rec storage.Record) error {
			if i, err := strconv.Atoi(rec.Key[len(prefix):]); err == nil && i >= 0 && i < len(c.out) {
				fn(i, CounterValue(rec.Value))
			}
			return nil
		})
	}
	scanCounters(prefixNext, func(i int, v uint64) {
		if c.out[i] != nil {
			c.out[i].next = v
		}
	})
	scanCounters(prefixRecv, func(i int, v uint64) { c.recvSeq[i] = v })
	_ = st.Scan(prefixOut, func(rec storage.Record) error {
		peer, err := strconv.Atoi(strings.SplitN(rec.Key[len(prefixOut):], "/", 2)[0])
		m := c.cfg.New()
		if err != nil || peer < 0 || peer >= len(c.out) || c.out[peer] == nil || proto.Unmarshal(rec.Value, m) != nil {
			return nil
		}
		c.out[peer].log = append(c.out[peer].log, m)
		return nil
	})
	for _, s := range c.out {
		if s != nil {
			slices.SortFunc(s.log, func(a, b M) int { return cmp.Compare(a.GetSeq(), b.GetSeq()) })
			if len(s.log) > 0 {
				s.acked = s.log[0].GetSeq() - 1
			}
			s.retry = protocol.SentAt(-ResendAfter)
		}
	}
}

// Send numbers m on the channel to peer, logs it durably and sends it.
func (c *Channels[M]) Send(now time.Duration, peer int, m M, r *protocol.Ready) {
	s := c.out[peer]
	s.next++
	c.cfg.SetSeq(m, s.next)
	PutCounter(r, counterKey(prefixNext, peer), s.next, true)
	r.Write(storage.Write{Kind: storage.Put, Key: seqKey(peer, s.next), Value: Marshal(m)}, true)
	if len(s.log) == 0 {
		s.retry = protocol.SentAt(now)
	}
	s.log = append(s.log, m)
	r.Send(c.cfg.Self, c.cfg.Peers[peer], m)
}

// Acked drops the messages peer acknowledged (every one up to seq).
func (c *Channels[M]) Acked(now time.Duration, peer int, seq uint64, r *protocol.Ready) {
	if peer < 0 || peer >= len(c.out) {
		return
	}
	s := c.out[peer]
	if s == nil || seq <= s.acked {
		return
	}
	s.acked = seq
	for len(s.log) > 0 && s.log[0].GetSeq() <= seq {
		r.Write(storage.Write{Kind: storage.Delete, Key: seqKey(peer, s.log[0].GetSeq())}, false)
		s.log = s.log[1:]
	}
	s.retry = protocol.SentAt(now)
	if len(s.log) == 0 {
		s.catchingUp = false
	} else if s.catchingUp {
		c.sendWindow(peer, s, r)
	}
}

// sendWindow sends the first MaxResend unacknowledged messages to peer.
func (c *Channels[M]) sendWindow(peer int, s *sender[M], r *protocol.Ready) {
	for i, m := range s.log {
		if i == MaxResend {
			break
		}
		r.Send(c.cfg.Self, c.cfg.Peers[peer], m)
	}
}

// Resend retransmits the unacknowledged messages of every channel whose
// retransmission is due.
func (c *Channels[M]) Resend(now time.Duration, r *protocol.Ready) {
	for peer, s := range c.out {
		if s == nil || len(s.log) == 0 || !s.retry.Due(now, ResendAfter, MaxBackoff) {
			continue
		}
		s.catchingUp = true
		c.sendWindow(peer, s, r)
	}
}

// Receive takes m from src's channel: in seq order, once each (Take),
// buffering a message that comes ahead of a gap.
func (c *Channels[M]) Receive(now time.Duration, src int, m M, r *protocol.Ready) {
	if src < 0 || src >= len(c.recvSeq) {
		return
	}
	seq := m.GetSeq()
	switch {
	case seq <= c.recvSeq[src]:
	case seq > c.recvSeq[src]+1:
		c.recvBuf[src][seq] = m // wait for the gap to fill
	default:
		c.take(now, src, m, r)
		for {
			next, ok := c.recvBuf[src][c.recvSeq[src]+1]
			if !ok {
				break
			}
			delete(c.recvBuf[src], next.GetSeq())
			c.take(now, src, next, r)
		}
	}
	for s := range c.recvBuf[src] {
		if s <= c.recvSeq[src] {
			delete(c.recvBuf[src], s)
		}
	}
	c.ackDue[src] = true
}

// TakeNext takes m as the next message of src's channel without a
// sender: a node's own messages to itself, numbered in the same log.
func (c *Channels[M]) TakeNext(now time.Duration, src int, m M, r *protocol.Ready) {
	c.cfg.SetSeq(m, c.recvSeq[src]+1)
	c.take(now, src, m, r)
}

func (c *Channels[M]) take(now time.Duration, src int, m M, r *protocol.Ready) {
	c.recvSeq[src] = m.GetSeq()
	PutCounter(r, counterKey(prefixRecv, src), m.GetSeq(), true)
	c.cfg.Take(now, src, m, r)
}

// SendAcks acknowledges, once per tick, what each channel delivered since
// the last tick: one acknowledgement per channel and tick rather than one
// per message. The tick must be well under ResendAfter, so that a delayed
// acknowledgement causes no retransmission.
func (c *Channels[M]) SendAcks(r *protocol.Ready) {
	for src, due := range c.ackDue {
		if due {
			c.ackDue[src] = false
			r.Send(c.cfg.Self, c.cfg.Peers[src], c.cfg.Ack(c.recvSeq[src]))
		}
	}
}

// Busy reports whether the node must keep ticking for its channels: an
// acknowledgement is due, or a message is unacknowledged.
func (c *Channels[M]) Busy() bool {
	if slices.Contains(c.ackDue, true) {
		return true
	}
	for _, s := range c.out {
		if s != nil && len(s.log) > 0 {
			return true
		}
	}
	return false
}

// Unacked is the number of messages peer has not acknowledged.
func (c *Channels[M]) Unacked(peer int) int {
	if s := c.out[peer]; s != nil {
		return len(s.log)
	}
	return 0
}

// Buffered is the number of messages from src waiting for a gap to fill.
func (c *Channels[M]) Buffered(src int) int { return len(c.recvBuf[src]) }
