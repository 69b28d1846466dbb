package chain

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// BatchEvery is how long a remote-proxy gathers shipped puts before it
// cuts a remote-update (chainreaction.txt §4.1.1 leaves the interval open).
const BatchEvery = 5 * time.Millisecond

// Proxy timer tokens.
const (
	tokBatch uint64 = 2
)

// batch is one remote-update this proxy cut: puts first..first+len, and
// the vector of puts it had delivered from each DC when it cut them (the
// paper's rvp, §4.1.1).
type batch struct {
	first uint64
	msg   *pb.RemoteUpdate
	// resend paces its retransmissions: the first after ResendEvery,
	// then each wait twice the last, up to maxResendWait, so that a
	// backlog (a slow tail, a congested link) is not multiplied by
	// resends of everything outstanding every ResendEvery.
	resend protocol.Retry
}

// shipAck is the acknowledgement due to the tail that shipped a put.
type shipAck struct {
	to  protocol.NodeID
	ack *pb.ShipAck
}

// resumer is a resumed session's Stabilize of a version written in
// another DC, answered once this proxy applied it (or a later version of
// the key from the same origin, which its origin shipped after it).
type resumer struct {
	from protocol.NodeID
	msg  *pb.Stabilize
}

// queued is a remote put waiting to be applied in this DC (§4.1.2).
type queued struct {
	origin int
	seq    uint64
	put    *pb.RemotePut
	req    uint64         // the Stabilize's request id once applied (0: waiting)
	resend protocol.Retry // as batch.resend
}

// proxy is a DC's remote-proxy (chainreaction.txt §4.1): it logs the
// versions its tails ship, cuts them into remote-updates sent to every
// other DC's proxy and retransmitted until acknowledged, delivers the
// remote-updates it receives per origin in FIFO order (the reading
// notes' rule for rvp), and applies the delivered puts in parallel,
// holding a put while an earlier queued one may be among its
// dependencies (bloom filters, or cr-cops's explicit lists).
type proxy struct {
	id     protocol.NodeID
	c      *Client
	layout *Layout
	dcs    []string
	me     int

	// Outgoing.
	next    uint64          // sequence number of the next shipped put
	open    []*pb.RemotePut // shipped, not yet cut into a batch
	openAck []shipAck       // their acknowledgements, sent once logged
	batches []batch         // cut and not yet applied everywhere
	logged  map[string]bool // key@version of every put in batches/open
	acked   map[int]uint64  // per DC: prefix of our puts it applied
	global  uint64          // prefix applied everywhere
	cutting bool            // a tokBatch timer is armed

	// Incoming.
	delivered []uint64                            // per origin: puts delivered into the queue
	applied   []uint64                            // per origin: prefix applied here (persisted)
	held      map[int]map[uint64]*pb.RemoteUpdate // per origin: batches not yet deliverable
	queue     []*queued
	// done is, per origin and key, the newest version of that origin this
	// proxy has applied here (left the queue: its dependencies are
	// applied too), and resumers the resumed sessions' Stabilizes waiting
	// for it (ResumeSession in package chainreaction). In memory only: a
	// restarted proxy answers only for what it applies since.
	done     map[int]map[string]uint64
	resumers map[string][]resumer
	reqID    uint64
	ticking  bool
	// now is the time of the input being handled.
	now time.Duration
}

func newProxy(l *Layout, cfg protocol.NodeConfig) *proxy {
	dcs := l.DCs()
	p := &proxy{id: cfg.ID, c: NewClient(cfg.ID, l), layout: l, dcs: dcs, me: l.DCIndex(cfg.ID.DC()),
		logged: map[string]bool{}, acked: map[int]uint64{}, done: map[int]map[string]uint64{}, resumers: map[string][]resumer{},
		delivered: make([]uint64, len(dcs)), applied: make([]uint64, len(dcs)), held: map[int]map[uint64]*pb.RemoteUpdate{}}
	if cfg.Storage == nil {
		return p
	}
	_ = cfg.Storage.Scan("b/", func(rec storage.Record) error {
		var u pb.RemoteUpdate
		if proto.Unmarshal(rec.Value, &u) == nil {
			p.batches = append(p.batches, batch{first: u.First, msg: &u})
		}
		return nil
	})
	slices.SortFunc(p.batches, func(a, b batch) int { return int(a.first) - int(b.first) })
	for _, b := range p.batches {
		p.next = max(p.next, b.first+uint64(len(b.msg.Puts)))
		for _, x := range b.msg.Puts {
			p.logged[logKey(x.Key, x.Version)] = true
		}
	}
	_ = cfg.Storage.Scan(nextKey, func(rec storage.Record) error {
		if rec.Key == nextKey {
			p.next = max(p.next, rec.Version)
		}
		return nil
	})
	_ = cfg.Storage.Scan("a/", func(rec storage.Record) error {
		i, err := strconv.Atoi(strings.TrimPrefix(rec.Key, "a/"))
		if err == nil && i < len(dcs) {
			p.applied[i] = rec.Version
			p.delivered[i] = rec.Version
		}
		return nil
	})
	if len(p.batches) > 0 {
		p.global = p.batches[0].first
	}
	return p
}

func logKey(key string, v uint64) string { return fmt.Sprintf("%s@%d", key, v) }

// Start implements protocol.Node: a restarted proxy resends what it logged.
func (p *proxy) Start(time.Duration) protocol.Ready {
	var r protocol.Ready
	p.arm(&r)
	return r
}

func (p *proxy) arm(r *protocol.Ready) {
	if !p.ticking && (len(p.batches) > 0 || len(p.queue) > 0 || len(p.held) > 0) {
		p.ticking = true
		r.SetTimer(ResendEvery, tokResend)
	}
	if !p.cutting && len(p.open) > 0 {
		p.cutting = true
		r.SetTimer(BatchEvery, tokBatch)
	}
}

// Step implements protocol.Node.
func (p *proxy) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	p.now = now
	if p.c.OnView(m) {
		return r
	}
	switch b := m.Body.(type) {
	case *pb.Ship:
		p.onShip(m.From, b, &r)
	case *pb.RemoteUpdate:
		p.onRemoteUpdate(p.layout.DCIndex(m.From.DC()), b, &r)
	case *pb.RemoteAck:
		p.onRemoteAck(p.layout.DCIndex(m.From.DC()), b.Prefix, &r)
	case *pb.StabilizeReply:
		p.onApplied(b, &r)
	case *pb.Stabilize:
		p.onResume(m.From, b, &r)
	}
	p.arm(&r)
	return r
}

// onShip logs a version a tail shipped; it is acknowledged once cut into
// a batch and synced.
func (p *proxy) onShip(from protocol.NodeID, b *pb.Ship, r *protocol.Ready) {
	ack := &pb.ShipAck{Key: b.Key, Version: b.Version}
	k := logKey(b.Key, b.Version)
	if p.logged[k] {
		if !slices.ContainsFunc(p.open, func(x *pb.RemotePut) bool { return x.Key == b.Key && x.Version == b.Version }) {
			r.Send(p.id, from, ack)
		}
		return
	}
	p.logged[k] = true
	p.open = append(p.open, &pb.RemotePut{Key: b.Key, Version: b.Version, Value: b.Value, ReplyFilter: KeyFilter(b.Key), Geo: b.Geo})
	p.openAck = append(p.openAck, shipAck{to: from, ack: ack})
}

func (p *proxy) tail(key string) protocol.NodeID {
	c, _ := p.c.Chain(key)
	return c[len(c)-1]
}

// cut makes the open puts a batch: synced, then acknowledged to the
// tails and sent to every other DC.
func (p *proxy) cut(r *protocol.Ready) {
	if len(p.open) == 0 {
		return
	}
	u := &pb.RemoteUpdate{First: p.next, Rvp: slices.Clone(p.delivered), Puts: p.open}
	p.next += uint64(len(p.open))
	p.open = nil
	data, err := proto.Marshal(u)
	if err != nil {
		panic(err)
	}
	r.Write(storage.Write{Kind: storage.Put, Key: batchKey(u.First), Value: data}, true)
	// The next sequence number outlives the batches, which are dropped
	// once applied everywhere: a restarted proxy that reused numbers would
	// have its new puts taken for duplicates and dropped.
	r.Write(storage.Write{Kind: storage.Put, Key: nextKey, Version: p.next}, true)
	r.Write(storage.Write{Kind: storage.DeleteBelow, Key: nextKey, Version: p.next}, true)
	b := batch{first: u.First, msg: u}
	b.resend = protocol.SentAt(p.now)
	p.batches = append(p.batches, b)
	for _, a := range p.openAck {
		r.Send(p.id, a.to, a.ack)
	}
	p.openAck = nil
	for d := range p.dcs {
		if d != p.me {
			r.Send(p.id, p.layout.Proxy(p.dcs[d]), u)
		}
	}
	if len(p.dcs) == 1 {
		p.collect(r) // no other DC: stable everywhere already
	}
}

func batchKey(first uint64) string { return fmt.Sprintf("b/%020d", first) }

// nextKey is where a proxy persists its next sequence number.
const nextKey = "n"

// onRemoteAck records that DC d applied our puts below prefix: the puts
// applied everywhere are Global-Write-Stable (§4.1).
func (p *proxy) onRemoteAck(d int, prefix uint64, r *protocol.Ready) {
	if prefix <= p.acked[d] {
		return
	}
	p.acked[d] = prefix
	p.collect(r)
}

// collect tells the tails which puts every other DC has applied
// (Global-Write-Stable) and drops their batches.
func (p *proxy) collect(r *protocol.Ready) {
	g := p.next
	for i := range p.dcs {
		if i != p.me {
			g = min(g, p.acked[i])
		}
	}
	for len(p.batches) > 0 {
		b := p.batches[0]
		for j, x := range b.msg.Puts {
			if s := b.first + uint64(j); s >= p.global && s < g {
				r.Send(p.id, p.tail(x.Key), &pb.GlobalStable{Key: x.Key, Version: x.Version})
			}
		}
		end := b.first + uint64(len(b.msg.Puts))
		if end > g {
			break
		}
		for _, x := range b.msg.Puts {
			delete(p.logged, logKey(x.Key, x.Version))
		}
		r.Write(storage.Write{Kind: storage.Delete, Key: batchKey(b.first)}, false)
		p.batches = p.batches[1:]
	}
	p.global = max(p.global, g)
}

// onRemoteUpdate delivers a batch from origin o when it is the next one
// from o and this DC has delivered, from every other DC, what o had when
// it cut it (per-origin FIFO, the reading notes' working form of §4.1.1's
// rvp rule); otherwise it is held.
func (p *proxy) onRemoteUpdate(o int, u *pb.RemoteUpdate, r *protocol.Ready) {
	if u.First+uint64(len(u.Puts)) <= p.delivered[o] {
		// A retransmission: its acknowledgement was lost.
		r.Send(p.id, p.layout.Proxy(p.dcs[o]), &pb.RemoteAck{Prefix: p.applied[o]})
		return
	}
	if p.held[o] == nil {
		p.held[o] = map[uint64]*pb.RemoteUpdate{}
	}
	p.held[o][u.First] = u
	p.deliver(r)
}

// deliver moves every deliverable held batch into the queue.
func (p *proxy) deliver(r *protocol.Ready) {
	for progress := true; progress; {
		progress = false
		for _, o := range slices.Sorted(maps.Keys(p.held)) {
			for _, first := range slices.Sorted(maps.Keys(p.held[o])) {
				u := p.held[o][first]
				end := first + uint64(len(u.Puts))
				if end <= p.delivered[o] {
					delete(p.held[o], first)
					continue
				}
				if first > p.delivered[o] || !p.covers(o, u.Rvp) {
					continue
				}
				for j := p.delivered[o] - first; j < uint64(len(u.Puts)); j++ {
					p.queue = append(p.queue, &queued{origin: o, seq: first + j, put: u.Puts[j]})
				}
				p.delivered[o] = end
				delete(p.held[o], first)
				progress = true
			}
			if len(p.held[o]) == 0 {
				delete(p.held, o)
			}
		}
	}
	p.apply(r)
}

// covers says whether this DC has delivered, from every DC but o and
// itself, what rvp says o had.
func (p *proxy) covers(o int, rvp []uint64) bool {
	for l, n := range rvp {
		if l != o && l != p.me && l < len(p.delivered) && p.delivered[l] < n {
			return false
		}
	}
	return true
}

// apply sends to its head every queued put no earlier queued put may be a
// dependency of (§4.1.2, with the reading notes' correction: the put
// whose dependency filter contains the other's reply filter is the
// dependent one, compared only with puts queued before it).
func (p *proxy) apply(r *protocol.Ready) {
	for i, q := range p.queue {
		if q.req != 0 {
			continue
		}
		blocked := false
		for _, e := range p.queue[:i] {
			if dependsOn(q.put, e.put) {
				blocked = true
				break
			}
		}
		if blocked {
			continue
		}
		p.reqID++
		q.req = p.reqID
		q.resend = protocol.SentAt(p.now)
		p.send(q, r)
	}
}

// dependsOn says whether put q may depend on put e.
func dependsOn(q, e *pb.RemotePut) bool {
	for _, d := range q.Geo.GetDeps() {
		if d.Key == e.Key {
			return true
		}
	}
	return FilterContains(q.Geo.GetDepFilter(), e.ReplyFilter)
}

// send applies q at its head and asks the tail to answer once it is
// DC-Write-Stable (or discarded under a newer version).
func (p *proxy) send(q *queued, r *protocol.Ready) {
	head, _ := p.c.PutTargets(q.put.Key)
	geo := &pb.Geo{}
	if q.put.Geo != nil {
		geo = proto.Clone(q.put.Geo).(*pb.Geo)
	}
	geo.RemoteVersion = q.put.Version
	put := &pb.Put{Key: q.put.Key, Value: q.put.Value, Geo: geo}
	if p.layout.Sequenced {
		// Numbered on arrival by this DC's sequencer, which passes it on
		// to the head (chainreaction.txt §5: it orders every put).
		r.Send(p.id, p.layout.Sequencer(p.id.DC()), &pb.SeqPut{Put: put})
	} else {
		r.Send(p.id, head, put)
	}
	r.Send(p.id, p.tail(q.put.Key), &pb.Stabilize{Client: string(p.id), ReqId: q.req, Key: q.put.Key, Version: q.put.Version})
}

// onApplied removes an applied put from the queue, releases the puts it
// held, and acknowledges its origin's applied prefix.
func (p *proxy) onApplied(b *pb.StabilizeReply, r *protocol.Ready) {
	i := slices.IndexFunc(p.queue, func(q *queued) bool { return q.req == b.ReqId && q.req != 0 })
	if i < 0 {
		return
	}
	o, put := p.queue[i].origin, p.queue[i].put
	p.queue = slices.Delete(p.queue, i, i+1)
	if p.done[o] == nil {
		p.done[o] = map[string]uint64{}
	}
	p.done[o][put.Key] = max(p.done[o][put.Key], put.Version)
	p.wakeResumers(put.Key, r)
	p.advance(o, r)
	p.apply(r)
}

// advance recomputes origin o's applied prefix; a larger one is synced
// and acknowledged.
func (p *proxy) advance(o int, r *protocol.Ready) {
	prefix := p.delivered[o]
	for _, q := range p.queue {
		if q.origin == o {
			prefix = min(prefix, q.seq)
		}
	}
	if prefix <= p.applied[o] {
		return
	}
	p.applied[o] = prefix
	r.Write(storage.Write{Kind: storage.Put, Key: "a/" + strconv.Itoa(o), Version: prefix}, true)
	r.Write(storage.Write{Kind: storage.DeleteBelow, Key: "a/" + strconv.Itoa(o), Version: prefix}, true)
	r.Send(p.id, p.layout.Proxy(p.dcs[o]), &pb.RemoteAck{Prefix: prefix})
}

// Tick implements protocol.Node: cutting batches, and retransmissions of
// unacknowledged batches and of applied puts not yet stable.
func (p *proxy) Tick(now time.Duration, token uint64) protocol.Ready {
	var r protocol.Ready
	p.now = now
	if token == tokBatch {
		p.cutting = false
		p.cut(&r)
		p.arm(&r)
		return r
	}
	p.ticking = false
	for i := range p.batches {
		b := &p.batches[i]
		if !b.resend.Due(now, ResendEvery, maxResendWait) {
			continue
		}
		for d := range p.dcs {
			if d != p.me && b.first+uint64(len(b.msg.Puts)) > p.acked[d] {
				r.Send(p.id, p.layout.Proxy(p.dcs[d]), b.msg)
			}
		}
	}
	suspected := map[protocol.NodeID]bool{}
	for _, q := range p.queue {
		if q.req == 0 || !q.resend.Due(now, ResendEvery, maxResendWait) {
			continue
		}
		if t := p.tail(q.put.Key); !suspected[t] {
			// Ask for a newer view (a repaired chain), once per node.
			suspected[t] = true
			p.c.Retry(t, &r)
		}
		p.send(q, &r)
	}
	p.arm(&r)
	return r
}

// onResume answers a resumed session's Stabilize of a version written in
// another DC once this proxy has applied it here, and with it its
// dependencies (a tail's answer, "that version or a newer one", may come
// from a concurrent newer version while this one and its dependencies
// are still on their way).
func (p *proxy) onResume(from protocol.NodeID, b *pb.Stabilize, r *protocol.Ready) {
	if p.done[Origin(b.Version)][b.Key] >= b.Version {
		r.Send(p.id, from, &pb.StabilizeReply{ReqId: b.ReqId, Key: b.Key, Version: b.Version})
		return
	}
	ws := p.resumers[b.Key]
	for _, w := range ws {
		if w.from == from && w.msg.Version == b.Version {
			return // a retransmission waits once
		}
	}
	p.resumers[b.Key] = append(ws, resumer{from: from, msg: b})
}

// wakeResumers answers the resumed sessions' Stabilizes of key that are
// now applied.
func (p *proxy) wakeResumers(key string, r *protocol.Ready) {
	ws := p.resumers[key]
	keep := ws[:0]
	for _, w := range ws {
		if p.done[Origin(w.msg.Version)][key] >= w.msg.Version {
			r.Send(p.id, w.from, &pb.StabilizeReply{ReqId: w.msg.ReqId, Key: key, Version: w.msg.Version})
		} else {
			keep = append(keep, w)
		}
	}
	if len(keep) == 0 {
		delete(p.resumers, key)
	} else {
		p.resumers[key] = keep
	}
}
