package saturn

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/c3"
	"github.com/causeway/causeway/protocol/fifo"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	c3pb "github.com/causeway/causeway/wire/c3pb"
	cpb "github.com/causeway/causeway/wire/cassandrapb"
	pb "github.com/causeway/causeway/wire/saturnpb"
)

// Timing of the serializer's retransmissions (ExecuteWrite; labels are
// package fifo's).
const (
	tickEvery   = 100 * time.Millisecond
	resendAfter = 500 * time.Millisecond
	maxBackoff  = 4 * time.Second
)

// Storage keys of a serializer besides its channels' (package fifo).
const (
	keyLabels     = "c/wc" // labels made here (Label.id), a counter
	prefixPending = "q/"   // + 16 hex digits: a label to execute here, in this DC's order
)

func pendingKey(seq uint64) string { return fmt.Sprintf("%s%016x", prefixPending, seq) }

// serializer is one DC's Saturn serializer (c3.txt §2, §5.1): the label
// sink of the DC's local writes, the remote proxy that applies remote
// writes one at a time in label order, and the DC's node of the
// dissemination tree, relaying labels along its edges.
type serializer struct {
	id          protocol.NodeID
	dc          string
	self        int
	topo        *topology.Topology
	dcs         []string
	rf          int
	tr          *tree
	incarnation uint64

	ch     *fifo.Channels[*pb.Label] // one per tree edge
	labels uint64                    // labels made here

	// The DC's order (apply.go): every label executed here, local or
	// remote, in the order the serializer took it.
	nextRec uint64  // last pending record's number
	queue   []*item // in order, the finished prefix removed
	// localWaiting are the local writes not started yet, in order.
	localWaiting []*item
	// Executions: started counts them; every one numbered ≤ finishedUpTo
	// has finished at a local quorum; unfinished are the others started.
	started      uint64
	finishedUpTo uint64
	unfinished   map[uint64]bool
	// executing are the started writes some target has not executed, by
	// ExecuteWrite's layer_id.
	executing map[uint64]*item
	byWrite   map[writeRef]*item // local writes in progress (dedupes resent LayerWrites)

	watched c3.Watches
	ticking bool
}

// writeRef names a coordinator's write.
type writeRef struct {
	coord   protocol.NodeID
	id      uint64
	version uint64
}

func newSerializer(cfg protocol.NodeConfig, rf int) *serializer {
	t := cfg.Topology
	s := &serializer{id: cfg.ID, dc: cfg.ID.DC(), topo: t, dcs: t.DCNames(), rf: rf, tr: newTree(t),
		incarnation: cfg.Incarnation, unfinished: map[uint64]bool{}, executing: map[uint64]*item{},
		byWrite: map[writeRef]*item{}, watched: c3.Watches{}}
	s.self = slices.Index(s.dcs, s.dc)
	peers := make([]protocol.NodeID, len(s.dcs))
	for _, n := range s.tr.adj[s.self] {
		peers[n] = SerializerOf(s.dcs[n])
	}
	s.ch = fifo.New(fifo.Config[*pb.Label]{Self: s.id, Peers: peers,
		New:    func() *pb.Label { return &pb.Label{} },
		SetSeq: func(l *pb.Label, seq uint64) { l.Seq = seq },
		Ack:    func(seq uint64) proto.Message { return &c3pb.LabelAck{Seq: seq} },
		Take:   s.take})
	if cfg.Storage != nil {
		s.recover(cfg.Storage)
	}
	return s
}

// recover rebuilds the serializer after a crash: its channels, and its
// queue from the pending records, every one to execute again (ExecuteWrite
// is idempotent at the replicas) strictly in order, local writes too
// (recovered items are serial: a local write that had not started may
// depend on one before it that had not finished at a quorum).
func (s *serializer) recover(st storage.Reader) {
	s.ch.Recover(st)
	_ = st.Scan(keyLabels, func(rec storage.Record) error {
		if rec.Key == keyLabels {
			s.labels = fifo.CounterValue(rec.Value)
		}
		return nil
	})
	_ = st.Scan(prefixPending, func(rec storage.Record) error {
		var p pb.Pending
		if proto.Unmarshal(rec.Value, &p) != nil || p.Label == nil {
			return nil
		}
		var seq uint64
		if _, err := fmt.Sscanf(rec.Key[len(prefixPending):], "%x", &seq); err != nil {
			return nil
		}
		it := &item{rec: seq, label: p.Label, coord: protocol.NodeID(p.Coordinator), writeID: p.WriteId}
		if it.coord != "" {
			s.byWrite[it.ref()] = it
		}
		s.queue = append(s.queue, it)
		s.nextRec = max(s.nextRec, seq)
		return nil
	})
	slices.SortFunc(s.queue, func(a, b *item) int { return cmp.Compare(a.rec, b.rec) })
}

// Start implements protocol.Node: resume what was recovered.
func (s *serializer) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	s.ch.Resend(now, &r)
	s.advance(now, &r)
	s.armTimer(&r)
	return r
}

func (s *serializer) armTimer(r *protocol.Ready) {
	if !s.ticking && (len(s.executing) > 0 || s.ch.Busy()) {
		s.ticking = true
		r.SetTimer(tickEvery, 0)
	}
}

// Tick implements protocol.Node: acknowledge labels, retransmit labels and
// ExecuteWrites.
func (s *serializer) Tick(now time.Duration, _ uint64) protocol.Ready {
	var r protocol.Ready
	s.ticking = false
	s.ch.SendAcks(&r)
	s.ch.Resend(now, &r)
	for _, lid := range slices.Sorted(maps.Keys(s.executing)) {
		it := s.executing[lid]
		if it.retry.Due(now, resendAfter, maxBackoff) {
			s.sendExecute(it, &r)
		}
	}
	s.armTimer(&r)
	return r
}

// dcIndex returns dc's index, -1 if unknown.
func (s *serializer) dcIndex(dc string) int { return slices.Index(s.dcs, dc) }

// isSerializer reports whether id is some DC's serializer.
func (s *serializer) isSerializer(id protocol.NodeID) bool {
	return s.dcIndex(id.DC()) >= 0 && id == SerializerOf(id.DC())
}

// Step implements protocol.Node.
func (s *serializer) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	switch b := m.Body.(type) {
	case *cpb.LayerWrite:
		if m.From.DC() == s.dc {
			s.localWrite(now, m.From, b, &r)
		}
	case *c3pb.ClientMigrate:
		s.clientMigrate(now, m.From, b, &r)
	case *c3pb.MigrateWatch:
		if s.dcIndex(m.From.DC()) >= 0 && !s.isSerializer(m.From) {
			s.watched.Watch(m.From, b.MigId)
		}
	case *c3pb.MigrateResponse:
		c3.RelayMigrateResponse(s.id, s.isSerializer(m.From), b, &r)
	case *pb.Label:
		if src := s.dcIndex(m.From.DC()); src >= 0 && s.isSerializer(m.From) && slices.Contains(s.tr.adj[s.self], src) {
			s.ch.Receive(now, src, b, &r)
		}
	case *c3pb.LabelAck:
		s.ch.Acked(now, s.dcIndex(m.From.DC()), b.Seq, &r)
	case *cpb.WriteExecuted:
		s.writeExecuted(now, m.From, b, &r)
	}
	s.advance(now, &r)
	s.armTimer(&r)
	return r
}

// relay sends l on every tree edge but from's (-1: every edge) behind which
// some DC needs it: a DC replicating a write label's key, a migrate
// label's target. Labels leave on each edge in the order the serializer
// took them, which with FIFO links makes every DC receive them in causal
// order (c3.txt §2).
func (s *serializer) relay(now time.Duration, from int, l *pb.Label, r *protocol.Ready) {
	var dests []int
	if l.Migrate != nil {
		dests = []int{s.dcIndex(l.Migrate.Target)}
	} else {
		for _, dc := range s.topo.PartitionDCs(l.Key) {
			dests = append(dests, s.dcIndex(dc))
		}
	}
	for _, n := range s.tr.adj[s.self] {
		if n == from {
			continue
		}
		for _, d := range dests {
			if d >= 0 && s.tr.next[s.self][d] == n {
				s.ch.Send(now, n, proto.Clone(l).(*pb.Label), r)
				break
			}
		}
	}
}

// forHere reports whether l executes in this DC.
func (s *serializer) forHere(l *pb.Label) bool {
	if l.Migrate != nil {
		return l.Migrate.Target == s.dc
	}
	return slices.Contains(s.topo.PartitionDCs(l.Key), s.dc)
}

// take handles a label taken from a tree edge: relay it, and queue it if
// it executes here.
func (s *serializer) take(now time.Duration, src int, l *pb.Label, r *protocol.Ready) {
	s.relay(now, src, l, r)
	if s.forHere(l) {
		s.enqueue(&item{label: l}, r)
	}
}

// newLabel makes a label of this DC.
func (s *serializer) newLabel(r *protocol.Ready) *pb.Label {
	s.labels++
	fifo.PutCounter(r, keyLabels, s.labels, true)
	return &pb.Label{Origin: s.dc, Id: s.labels}
}

// localWrite labels a local write (the label sink): the label leaves on
// the tree at once, and the write executes here without waiting for any
// remote label (apply.go).
func (s *serializer) localWrite(now time.Duration, coord protocol.NodeID, b *cpb.LayerWrite, r *protocol.Ready) {
	ref := writeRef{coord: coord, id: b.Id, version: b.Version}
	if s.byWrite[ref] != nil {
		return // a resent LayerWrite of a write in progress
	}
	l := s.newLabel(r)
	l.Key, l.Version = b.Key, b.Version
	s.relay(now, -1, l, r)
	if !s.forHere(l) {
		r.Send(s.id, coord, &cpb.LayerDone{Id: b.Id, Version: b.Version})
		return
	}
	it := &item{label: l, coord: coord, writeID: b.Id, local: true, barrier: s.started}
	s.byWrite[ref] = it
	s.enqueue(it, r)
	s.localWaiting = append(s.localWaiting, it)
}

// clientMigrate sends a migrate label towards the target the serializer
// picks (the nearest possible DC, as C3's layer) along the tree: it
// arrives after every label this DC took before it, and the target
// answers once it has executed everything it took before it.
func (s *serializer) clientMigrate(now time.Duration, session protocol.NodeID, b *c3pb.ClientMigrate, r *protocol.Ready) {
	target := s.topo.Nearest(s.dc, b.PossibleDcs)
	if s.dcIndex(target) < 0 || session.DC() == "" || s.isSerializer(session) {
		return
	}
	l := s.newLabel(r)
	l.Migrate = &pb.Migrate{Session: string(session), MigId: b.MigId, Target: target}
	if target == s.dc {
		s.enqueue(&item{label: l, asked: true}, r)
		return
	}
	s.relay(now, -1, l, r)
}

// CheckQuiescent implements protocol.Quiescer: once faults heal and the
// network is quiet, every label has been acknowledged, relayed and
// executed, and every local write's coordinator has been told.
func (s *serializer) CheckQuiescent() error {
	var list []string
	for peer := range s.dcs {
		if n := s.ch.Unacked(peer); n > 0 {
			list = append(list, fmt.Sprintf("%d labels unacknowledged by %s", n, s.dcs[peer]))
		}
		if s.ch.Buffered(peer) > 0 {
			list = append(list, fmt.Sprintf("labels from %s received out of order", s.dcs[peer]))
		}
	}
	if len(s.queue) > 0 {
		list = append(list, fmt.Sprintf("%d labels queued (head %v)", len(s.queue), s.queue[0].label))
	}
	if len(s.executing) > 0 {
		list = append(list, fmt.Sprintf("%d writes executing", len(s.executing)))
	}
	if len(list) == 0 {
		return nil
	}
	return fmt.Errorf("not quiescent: %s", strings.Join(list, "; "))
}

var _ protocol.Quiescer = (*serializer)(nil)
