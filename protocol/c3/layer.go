package c3

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/cassandra"
	"github.com/causeway/causeway/protocol/fifo"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/c3pb"
	cpb "github.com/causeway/causeway/wire/cassandrapb"
)

// Timing of the layer's retransmissions (labels, ExecuteWrite).
const (
	tickEvery   = 100 * time.Millisecond
	resendAfter = 500 * time.Millisecond
	maxBackoff  = 4 * time.Second
)

// layer is one DC's causality layer (c3.txt §3.2, Alg. 1).
type layer struct {
	id   protocol.NodeID
	dc   string
	self int // this DC's index in dcs
	topo *topology.Topology
	dcs  []string
	rf   int

	// Alg. 1 l.3-8. Clocks and queues are indexed by DC.
	writeCounter   uint64
	executingClock []uint64
	executedClock  []uint64
	waitingOps     [][]*pb.Label
	currentWrites  map[uint64]*execution // by layerID(src, id): fixes the ambiguous writeInfo key
	aheadExecuted  []map[uint64]bool
	inSeq          []map[uint64]uint64 // label id -> its channel seq, to drop its log record

	// ch are the channels to every other DC's layer (channel.go).
	ch *fifo.Channels[*pb.Label]

	// Local writes: which coordinator to tell when its label finished.
	local   map[uint64]writeRef // own label id -> the write
	byWrite map[writeRef]uint64 // the write -> own label id (dedupes resent LayerWrites)

	// watched is, by session, the latest migration a session announced
	// with MigrateWatch since this layer started: the sessions it can
	// answer directly (executeMigration).
	watched Watches

	ticking bool
	// passedLogged are the recovered labels ExecutedClock had passed
	// while their records stayed (Start resumes or deletes them).
	passedLogged []passedLabel
}

// passedLabel is a recovered label ExecutedClock has passed.
type passedLabel struct {
	src int
	l   *pb.Label
}

// writeRef names a coordinator's write.
type writeRef struct {
	coord   protocol.NodeID
	id      uint64
	version uint64
}

// execution is a write label being executed here (CurrentWrites).
type execution struct {
	src      int
	id       uint64
	key      string
	version  uint64
	targets  []protocol.NodeID
	acked    map[protocol.NodeID]bool
	finished bool // at a quorum of targets: FinishedExecuting has run
	passed   bool // ExecutedClock has passed it
	retry    protocol.Retry
}

// layerID packs a label's source DC and id into ExecuteWrite's layer_id.
func layerID(src int, id uint64) uint64 { return uint64(src)<<48 | id }

func newLayer(cfg protocol.NodeConfig, rf int) *layer {
	t := cfg.Topology
	y := &layer{id: cfg.ID, dc: cfg.ID.DC(), topo: t, dcs: t.DCNames(), rf: rf,
		currentWrites: map[uint64]*execution{}, local: map[uint64]writeRef{}, byWrite: map[writeRef]uint64{},
		watched: Watches{}}
	n := len(y.dcs)
	y.executingClock, y.executedClock = make([]uint64, n), make([]uint64, n)
	y.waitingOps, y.aheadExecuted, y.inSeq = make([][]*pb.Label, n), make([]map[uint64]bool, n), make([]map[uint64]uint64, n)
	for i, d := range y.dcs {
		if d == y.dc {
			y.self = i
		}
		y.aheadExecuted[i], y.inSeq[i] = map[uint64]bool{}, map[uint64]uint64{}
	}
	y.ch = y.newChannels()
	if cfg.Storage != nil {
		y.recover(cfg.Storage)
	}
	return y
}

// recover rebuilds the layer from its logs after a crash: counters, the
// unacknowledged labels of every channel, and WaitingOps from the labels
// taken but not yet executed. ExecutingClock restarts at the highest id
// taken from each source (any of them may have been executing, and a
// client may have read its write: new labels must depend on it), and the
// labels not passed by ExecutedClock execute again (ExecuteWrite is
// idempotent at the replicas).
func (y *layer) recover(st storage.Reader) {
	y.ch.Recover(st)
	_ = st.Scan("c/", func(rec storage.Record) error {
		v := fifo.CounterValue(rec.Value)
		switch {
		case rec.Key == keyWriteCounter:
			y.writeCounter = v
		case strings.HasPrefix(rec.Key, prefixExecuted):
			if i, err := strconv.Atoi(rec.Key[len(prefixExecuted):]); err == nil && i < len(y.dcs) {
				y.executedClock[i] = v
			}
		}
		return nil
	})
	copy(y.executingClock, y.executedClock)
	scanLabels := func(prefix string, fn func(dc int, l *pb.Label)) {
		_ = st.Scan(prefix, func(rec storage.Record) error {
			dc, err := strconv.Atoi(strings.SplitN(rec.Key[len(prefix):], "/", 2)[0])
			var l pb.Label
			if err != nil || dc >= len(y.dcs) || proto.Unmarshal(rec.Value, &l) != nil {
				return nil
			}
			fn(dc, &l)
			return nil
		})
	}
	var in [][]*pb.Label = make([][]*pb.Label, len(y.dcs))
	scanLabels(prefixIn, func(dc int, l *pb.Label) { in[dc] = append(in[dc], l) })
	for src, ls := range in {
		slices.SortFunc(ls, func(a, b *pb.Label) int { return cmp.Compare(a.Seq, b.Seq) })
		for _, l := range ls {
			if l.Migrate == nil && l.Id <= y.executedClock[src] {
				// Passed, but kept: a write some targets had not executed
				// (resumed in Start), or a record whose deletion was lost.
				y.inSeq[src][l.Id] = l.Seq
				y.passedLogged = append(y.passedLogged, passedLabel{src, l})
				continue
			}
			y.executingClock[src] = max(y.executingClock[src], l.Id)
			y.enqueue(src, l)
		}
	}
}

// enqueue appends a taken label to WaitingOps[src].
func (y *layer) enqueue(src int, l *pb.Label) {
	if l.Migrate == nil {
		y.inSeq[src][l.Id] = l.Seq
	}
	y.waitingOps[src] = append(y.waitingOps[src], l)
}

// Start implements protocol.Node: resume what was recovered.
func (y *layer) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	for _, p := range y.passedLogged {
		if p.l.Key == "" {
			y.dropIn(p.src, p.l.Id, &r)
			continue
		}
		// Execute again at every target, without touching the clocks.
		y.executeWrite(p.src, p.l, &r)
		e := y.currentWrites[layerID(p.src, p.l.Id)]
		e.finished, e.passed = true, true
	}
	y.passedLogged = nil
	y.ch.Resend(now, &r)
	y.checkWaitingOps(now, &r)
	y.armTimer(&r)
	return r
}

func (y *layer) armTimer(r *protocol.Ready) {
	if y.ticking {
		return
	}
	if len(y.currentWrites) > 0 || y.ch.Busy() {
		y.ticking = true
		r.SetTimer(tickEvery, 0)
	}
}

// Tick implements protocol.Node: retransmit labels and ExecuteWrites.
func (y *layer) Tick(now time.Duration, _ uint64) protocol.Ready {
	var r protocol.Ready
	y.ticking = false
	y.ch.SendAcks(&r)
	y.ch.Resend(now, &r)
	for _, lid := range slices.Sorted(maps.Keys(y.currentWrites)) {
		e := y.currentWrites[lid]
		if e.retry.Due(now, resendAfter, maxBackoff) {
			y.sendExecute(e, &r)
		}
	}
	y.armTimer(&r)
	return r
}

// dcIndex returns dc's index, -1 if unknown.
func (y *layer) dcIndex(dc string) int { return slices.Index(y.dcs, dc) }

// Step implements protocol.Node.
func (y *layer) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	switch b := m.Body.(type) {
	case *cpb.LayerWrite:
		y.localWrite(now, m.From, b, &r)
	case *pb.ClientMigrate:
		y.clientMigrate(now, m.From, b, &r)
	case *pb.MigrateResponse:
		y.relayMigrateResponse(m.From, b, &r)
	case *pb.MigrateWatch:
		if y.dcIndex(m.From.DC()) >= 0 && m.From != LayerOf(m.From.DC()) {
			y.watched.Watch(m.From, b.MigId)
		}
	case *pb.Label:
		if src := y.dcIndex(m.From.DC()); src >= 0 && src != y.self {
			y.ch.Receive(now, src, b, &r)
		}
	case *pb.LabelAck:
		if dest := y.dcIndex(m.From.DC()); dest >= 0 {
			y.ch.Acked(now, dest, b.Seq, &r)
		}
	case *cpb.WriteExecuted:
		y.writeExecuted(now, m.From, b, &r)
	}
	y.checkWaitingOps(now, &r)
	y.armTimer(&r)
	return r
}

// localWrite labels a local write (Alg. 1 l.23-32): id = ++WriteCounter,
// deps = ExecutingClock, a write label to every DC replicating the key
// (this one included) and a clock label to every other DC.
func (y *layer) localWrite(now time.Duration, coord protocol.NodeID, b *cpb.LayerWrite, r *protocol.Ready) {
	ref := writeRef{coord: coord, id: b.Id, version: b.Version}
	if _, dup := y.byWrite[ref]; dup {
		return // a resent LayerWrite of a label in progress
	}
	y.writeCounter++
	id := y.writeCounter
	fifo.PutCounter(r, keyWriteCounter, id, true)
	y.local[id], y.byWrite[ref] = ref, id
	replicated := y.topo.PartitionDCs(b.Key)
	for dest, dc := range y.dcs {
		l := &pb.Label{Id: id, Deps: slices.Clone(y.executingClock)}
		if slices.Contains(replicated, dc) {
			l.Key, l.Version = b.Key, b.Version
		}
		if dest == y.self {
			y.ch.TakeNext(now, y.self, l, r)
			continue
		}
		y.ch.Send(now, dest, l, r)
	}
}

// clientMigrate sends a migrate label to the chosen target DC (Alg. 1
// l.19-22): deps = ExecutingClock; GetDatacenterWithLowestLoad is the
// nearest of the possible DCs.
func (y *layer) clientMigrate(now time.Duration, session protocol.NodeID, b *pb.ClientMigrate, r *protocol.Ready) {
	target := y.dcIndex(y.topo.Nearest(y.dc, b.PossibleDcs))
	if target < 0 {
		return
	}
	l := &pb.Label{Deps: slices.Clone(y.executingClock), Migrate: &pb.Migrate{Session: string(session), MigId: b.MigId}}
	if target == y.self {
		y.ch.TakeNext(now, y.self, l, r)
		return
	}
	y.ch.Send(now, target, l, r)
}

// ready reports whether deps ≤ ExecutedClock entry by entry (l.48-49).
func (y *layer) ready(deps []uint64) bool {
	for i, d := range deps {
		if i < len(y.executedClock) && d > y.executedClock[i] {
			return false
		}
	}
	return true
}

// checkWaitingOps executes queue heads whose dependencies have executed,
// until nothing moves (Alg. 1 l.42-54, with the empty queue guarded).
func (y *layer) checkWaitingOps(now time.Duration, r *protocol.Ready) {
	for moved := true; moved; {
		moved = false
		for src := range y.waitingOps {
			for len(y.waitingOps[src]) > 0 && y.ready(y.waitingOps[src][0].Deps) {
				l := y.waitingOps[src][0]
				y.waitingOps[src] = y.waitingOps[src][1:]
				moved = true
				switch {
				case l.Migrate != nil:
					y.executeMigration(src, l, r)
				case l.Key == "":
					y.executeClock(now, src, l, r)
				default:
					y.executeWrite(src, l, r)
				}
			}
		}
	}
}

// executeMigration answers the migrating session (l.55-56). A node can
// reach a session only if the session sent it something since the node
// started (the live runtime replies on the session's own connection): the
// source layer, which the session asked, or a target that has the
// session's MigrateWatch for this migration answers directly; any other
// target answers through the source's layer, which relays the answer
// (relayMigrateResponse).
func (y *layer) executeMigration(src int, l *pb.Label, r *protocol.Ready) {
	r.Write(storage.Write{Kind: storage.Delete, Key: seqKey(prefixIn, src, l.Seq)}, false)
	y.watched.AnswerMigration(y.id, protocol.NodeID(l.Migrate.Session), l.Migrate.MigId, y.dc, src == y.self, LayerOf(y.dcs[src]), r)
}

// relayMigrateResponse passes a target layer's MigrateResponse on to the
// session that asked this layer to migrate it. Not reliable: a lost
// answer is asked for again by the session's ClientMigrate resend.
func (y *layer) relayMigrateResponse(from protocol.NodeID, b *pb.MigrateResponse, r *protocol.Ready) {
	// Only a layer's answer names a session.
	RelayMigrateResponse(y.id, from == LayerOf(from.DC()) && y.dcIndex(from.DC()) >= 0, b, r)
}

// executeClock advances the clocks past a clock label (l.57-59).
func (y *layer) executeClock(now time.Duration, src int, l *pb.Label, r *protocol.Ready) {
	y.executingClock[src] = max(y.executingClock[src], l.Id)
	y.finishedExecuting(now, src, l.Id, r)
}

// executeWrite orders the key's local replicas to execute the write
// (l.60-64).
func (y *layer) executeWrite(src int, l *pb.Label, r *protocol.Ready) {
	y.executingClock[src] = max(y.executingClock[src], l.Id)
	e := &execution{src: src, id: l.Id, key: l.Key, version: l.Version, acked: map[protocol.NodeID]bool{}}
	for _, i := range y.topo.DCReplicas(y.dc, l.Key, y.rf) {
		e.targets = append(e.targets, protocol.MakeNodeID(y.dc, cassandra.ServerName(i)))
	}
	y.currentWrites[layerID(src, l.Id)] = e
	y.sendExecute(e, r)
}

func (y *layer) sendExecute(e *execution, r *protocol.Ready) {
	for _, t := range e.targets {
		if !e.acked[t] {
			r.Send(y.id, t, &cpb.ExecuteWrite{Key: e.key, Version: e.version, LayerId: layerID(e.src, e.id)})
		}
	}
}

// writeExecuted records a replica's execution (l.66-71): the label
// finishes at a quorum of its targets; ExecuteWrite is resent to the
// others until every target has executed it, so that all converge.
func (y *layer) writeExecuted(now time.Duration, from protocol.NodeID, b *cpb.WriteExecuted, r *protocol.Ready) {
	e := y.currentWrites[b.LayerId]
	if e == nil || e.key != b.Key || e.version != b.Version || !slices.Contains(e.targets, from) {
		return
	}
	e.acked[from] = true
	if !e.finished && len(e.acked) >= len(e.targets)/2+1 {
		e.finished = true
		y.finishedExecuting(now, e.src, e.id, r)
	}
	if len(e.acked) == len(e.targets) {
		delete(y.currentWrites, b.LayerId)
		if e.passed {
			y.dropIn(e.src, e.id, r)
		}
	}
}

// dropIn deletes a label's log record.
func (y *layer) dropIn(src int, id uint64, r *protocol.Ready) {
	if seq, ok := y.inSeq[src][id]; ok {
		delete(y.inSeq[src], id)
		r.Write(storage.Write{Kind: storage.Delete, Key: seqKey(prefixIn, src, seq)}, false)
	}
}

// finishedExecuting advances ExecutedClock[src] past id and every
// contiguous id that finished ahead of it (l.72-80, AheadExecutedOps; the
// paper's undefined ExecutedOps is this drain). A local write's
// coordinator is told its write is done.
func (y *layer) finishedExecuting(_ time.Duration, src int, id uint64, r *protocol.Ready) {
	if src == y.self {
		if ref, ok := y.local[id]; ok {
			delete(y.local, id)
			delete(y.byWrite, ref)
			r.Send(y.id, ref.coord, &cpb.LayerDone{Id: ref.id, Version: ref.version})
		}
	}
	if id <= y.executedClock[src] {
		return
	}
	if id != y.executedClock[src]+1 {
		y.aheadExecuted[src][id] = true
		return
	}
	passed := []uint64{id}
	for y.aheadExecuted[src][id+1] {
		id++
		delete(y.aheadExecuted[src], id)
		passed = append(passed, id)
	}
	y.executedClock[src] = id
	// The clock is written before the log records it makes obsolete: a
	// crash loses a suffix of unsynced writes, so a record is never lost
	// while the clock that passed it is.
	fifo.PutCounter(r, counterKey(prefixExecuted, src), id, false)
	for _, p := range passed {
		// A write some of whose targets have not executed it yet keeps
		// its record until they have: a layer restarted meanwhile sends
		// them ExecuteWrite again (recover), else they would hold the
		// data forever.
		if e := y.currentWrites[layerID(src, p)]; e != nil {
			e.passed = true
			continue
		}
		y.dropIn(src, p, r)
	}
}
