package chain

import (
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// RoleSequencer is the role of the sequencer of a chain domain
// (chainreaction.txt §5: "a sequencer process ... local to each
// datacenter" that orders every put and the reads of get-transactions).
const RoleSequencer protocol.Role = "sequencer"

// Sequencer is the sequencer that numbers the puts and get-transactions
// of DC dc's chains: under Geo each DC's own, else the domain's one, in
// the first DC beside the master (one chain domain spans the DCs).
func (l *Layout) Sequencer(dc string) protocol.NodeID {
	if !l.Geo {
		dc = l.topo.Datacenters[0].Name
	}
	return protocol.MakeNodeID(dc, "q0")
}

// SequencedDCs are the DCs that have a sequencer.
func (l *Layout) SequencedDCs() []string {
	if !l.Geo {
		return []string{l.topo.Datacenters[0].Name}
	}
	return l.DCs()
}

// seqRec is the last put of a client the sequencer has sequenced.
type seqRec struct{ req, seq uint64 }

// sequencer orders every put and every get-transaction of its domain
// (§5). It keeps one clock for the whole domain: each put's sequence
// number is the next tick, max(clock+1, now in µs), which becomes the
// counter of the put's version at the head; a get-transaction's snapshot
// is the clock itself, so that it covers exactly the puts sequenced
// before it. Its state is soft: a restarted sequencer starts its clock at
// the current time, above every number it handed out before (at most one
// put per µs) and above the high-water mark it persists (synced) a
// second ahead of its clock, so that a restart with a clock behind (a
// skewed clock) never reuses a number; a put it forgets is recognised by
// the head's request ids.
type sequencer struct {
	id protocol.NodeID
	c  *Client
	// clock is the last sequence number handed out (µs since the start
	// of the run, or above).
	clock uint64
	// hwm is the persisted bound that clock stays below (hwmKey).
	hwm     uint64
	lastPut map[string]seqRec
	// heard holds the sessions that sent this node a request since it
	// started (replies to relay, see route.go).
	heard map[protocol.NodeID]bool
}

// hwmKey stores the sequencer's high-water mark (as the record's
// version), and hwmAhead is how far ahead of the clock it is set, in µs.
const (
	hwmKey   = "seqhwm"
	hwmAhead = 1_000_000
)

func newSequencer(l *Layout, cfg protocol.NodeConfig) *sequencer {
	q := &sequencer{id: cfg.ID, c: NewClient(cfg.ID, l), lastPut: map[string]seqRec{}, heard: map[protocol.NodeID]bool{}}
	if cfg.Storage != nil {
		_ = cfg.Storage.Scan(hwmKey, func(rec storage.Record) error {
			if rec.Key == hwmKey {
				q.clock = max(q.clock, uint64(rec.Version))
			}
			return nil
		})
	}
	return q
}

// Start implements protocol.Node.
func (q *sequencer) Start(now time.Duration) protocol.Ready {
	q.clock = max(q.clock, micros(now))
	return protocol.Ready{}
}

// tick advances the clock to at least now and, for a put (next), one
// past its last number; it persists a new high-water mark when the clock
// reaches the old one.
func (q *sequencer) tick(now time.Duration, next bool, r *protocol.Ready) uint64 {
	if next {
		q.clock++
	}
	q.clock = max(q.clock, micros(now))
	if q.clock >= q.hwm {
		q.hwm = q.clock + hwmAhead
		r.Write(storage.Write{Kind: storage.Put, Key: hwmKey, Version: storage.Version(q.hwm)}, true)
		r.Write(storage.Write{Kind: storage.DeleteBelow, Key: hwmKey, Version: storage.Version(q.hwm)}, true)
	}
	return q.clock
}

// Tick implements protocol.Node: the sequencer sets no timers.
func (q *sequencer) Tick(time.Duration, uint64) protocol.Ready { return protocol.Ready{} }

func micros(now time.Duration) uint64 { return uint64(max(now, 0) / time.Microsecond) }

// Step implements protocol.Node.
func (q *sequencer) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	if q.c.OnView(m) {
		return r
	}
	switch b := m.Body.(type) {
	case *pb.SeqPut:
		q.put(now, m.From, b, &r)
	case *pb.SeqRequest:
		q.heard[m.From] = true
		// Every put sequenced so far has a number at or below the clock,
		// every later one above it.
		snap := q.tick(now, false, &r)
		snaps := make([]uint64, len(b.Keys))
		for i := range snaps {
			snaps[i] = snap
		}
		r.Send(q.id, m.From, &pb.SeqReply{ReqId: b.ReqId, Attempt: b.Attempt, Snapshots: snaps})
	case *pb.PutReply:
		// Node k answers through this node (the put's entry) a session it
		// has not heard from.
		if b.Client != "" && q.heard[protocol.NodeID(b.Client)] {
			out := proto.Clone(b).(*pb.PutReply)
			out.Client = ""
			r.Send(q.id, protocol.NodeID(b.Client), out)
		}
	}
	return r
}

// put sequences a session's put and forwards it to the head of its chain;
// a retransmission keeps its number, and the head, which may have failed,
// is reported to the master (whose answer is a newer view).
func (q *sequencer) put(now time.Duration, from protocol.NodeID, b *pb.SeqPut, r *protocol.Ready) {
	p := b.Put
	if p != nil && p.Geo.GetRemoteVersion() != 0 && from == q.c.Layout.Proxy(q.id.DC()) {
		// A remote put this DC's remote-proxy applies: numbered on
		// arrival, like a local put (a retransmission gets a new number;
		// the head keeps the first copy it applies).
		q.forward(p, q.tick(now, true, r), r)
		return
	}
	if p == nil || p.Client == "" || protocol.NodeID(p.Client) != from {
		return
	}
	q.heard[from] = true
	c, _ := q.c.Chain(p.Key)
	if len(c) == 0 {
		return
	}
	rec, ok := q.lastPut[p.Client]
	switch {
	case ok && rec.req > p.ReqId:
		return // a late copy of a put the session has finished with
	case ok && rec.req == p.ReqId:
		q.c.Retry(c[0], r)
	default:
		rec = seqRec{req: p.ReqId, seq: q.tick(now, true, r)}
		q.lastPut[p.Client] = rec
	}
	q.forward(p, rec.seq, r)
}

// forward sends put p, numbered seq, to the head of its chain.
func (q *sequencer) forward(p *pb.Put, seq uint64, r *protocol.Ready) {
	c, _ := q.c.Chain(p.Key)
	if len(c) == 0 {
		return
	}
	fwd := proto.Clone(p).(*pb.Put)
	fwd.Entry = string(q.id)
	r.Send(q.id, c[0], &pb.SeqPut{Put: fwd, Seq: seq})
}
