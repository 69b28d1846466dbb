package fifo_test

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/fifo"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/c3pb"
)

// node is one end of a two-node channel, with what it took.
type node struct {
	ch    *fifo.Channels[*pb.Label]
	taken []uint64 // ids taken, in order
	st    *storage.Mem
}

func newNode(t *testing.T, self, peer protocol.NodeID, st *storage.Mem) *node {
	n := &node{st: st}
	n.ch = fifo.New(fifo.Config[*pb.Label]{Self: self, Peers: []protocol.NodeID{"", peer},
		New:    func() *pb.Label { return &pb.Label{} },
		SetSeq: func(l *pb.Label, seq uint64) { l.Seq = seq },
		Ack:    func(seq uint64) proto.Message { return &pb.LabelAck{Seq: seq} },
		Take:   func(_ time.Duration, _ int, l *pb.Label, _ *protocol.Ready) { n.taken = append(n.taken, l.Id) }})
	n.ch.Recover(st)
	return n
}

// persist applies a Ready's writes to the node's storage.
func (n *node) persist(t *testing.T, r protocol.Ready) protocol.Ready {
	t.Helper()
	if err := n.st.Apply(r.Persist.Writes, r.Persist.Sync); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestChannelOrderAndRecovery: a receiver takes messages in seq order,
// once each, whatever order they arrive in; the sender keeps what is not
// acknowledged, even across a restart from its storage, and resends it.
func TestChannelOrderAndRecovery(t *testing.T) {
	a, b := protocol.NodeID("a/n"), protocol.NodeID("b/n")
	sa := storage.NewMem()
	snd, rcv := newNode(t, a, b, sa), newNode(t, b, a, storage.NewMem())
	var sent []*pb.Label
	for id := uint64(1); id <= 3; id++ {
		r := snd.persist(t, func() protocol.Ready {
			var r protocol.Ready
			snd.ch.Send(0, 1, &pb.Label{Id: id}, &r)
			return r
		}())
		sent = append(sent, r.After.Messages[0].Body.(*pb.Label))
	}
	var r protocol.Ready
	for _, i := range []int{2, 0, 0, 1} { // 3 first, 1 twice, then 2
		rcv.ch.Receive(0, 0, sent[i], &r)
	}
	if len(rcv.taken) != 3 || rcv.taken[0] != 1 || rcv.taken[1] != 2 || rcv.taken[2] != 3 || rcv.ch.Buffered(0) != 0 {
		t.Fatalf("taken %v (buffered %d), want [1 2 3] once each", rcv.taken, rcv.ch.Buffered(0))
	}
	r = protocol.Ready{}
	rcv.ch.SendAcks(&r)
	if ack := r.After.Messages[0].Body.(*pb.LabelAck); ack.Seq != 3 {
		t.Fatalf("ack %v, want seq 3", ack)
	}
	r = protocol.Ready{}
	snd.ch.Acked(time.Second, 1, 1, &r) // only 1 acknowledged, then a crash
	snd.persist(t, r)
	re := newNode(t, a, b, sa)
	if re.ch.Unacked(1) != 2 {
		t.Fatalf("after a restart %d messages unacknowledged, want 2", re.ch.Unacked(1))
	}
	r = protocol.Ready{}
	re.ch.Resend(time.Second, &r)
	if len(r.After.Messages) != 2 || r.After.Messages[0].Body.(*pb.Label).Seq != 2 {
		t.Fatalf("resent %v, want seq 2 and 3", r.After.Messages)
	}
	r = protocol.Ready{}
	re.ch.Send(time.Second, 1, &pb.Label{Id: 4}, &r)
	if seq := r.After.Messages[0].Body.(*pb.Label).Seq; seq != 4 {
		t.Fatalf("next seq after the restart %d, want 4", seq)
	}
}
