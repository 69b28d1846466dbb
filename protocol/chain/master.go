package chain

import (
	"maps"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// pingTimeout is how long the master waits for the first Pong of a
// suspected server; it pings pingTries times, doubling the wait, before it
// removes the server from the view (2.8 s in all: the torture runs'
// congestion adds up to a second each way).
const (
	pingTimeout = 400 * time.Millisecond
	pingTries   = 3
)

// maxRemovedResends bounds the view's retransmissions to a removed server
// that does not answer (it is down, and will Join when it restarts).
const maxRemovedResends = 20

// Master timer tokens: tokResend, or a ping nonce (incarnation<<32 |
// counter, never 1).
const viewKey = "view"

// master is the simulated membership service of a chain domain: it keeps
// the epoch-numbered view, pings servers reported as suspects, removes
// those that do not answer, admits restarted servers as joining tails and
// promotes them once they have their state (chainreaction.txt §3.7). Its
// view is persisted, synced, before it is sent.
type master struct {
	id      protocol.NodeID
	inc     uint64
	layout  *Layout
	view    *View
	pinging map[protocol.NodeID]uint64 // node -> outstanding nonce
	// round is each suspect's first ping nonce: a Pong to any ping
	// since clears the suspicion (a congested server answers late).
	round   map[protocol.NodeID]uint64
	tries   map[protocol.NodeID]int // pings sent to a suspect so far
	nonce   uint64
	unacked map[protocol.NodeID]int // view resends without ViewAck
	removed map[protocol.NodeID]int // removed servers not yet told, resends
	// askers are the sessions (and proxies, sequencers) that reported a
	// suspect since the last view: the next view is sent to them, so
	// that a session retransmitting with backoff learns the repaired
	// chain at once.
	askers  map[protocol.NodeID]bool
	servers map[protocol.NodeID]bool
	ticking bool
}

func newMaster(l *Layout, cfg protocol.NodeConfig) *master {
	m := &master{id: cfg.ID, inc: cfg.Incarnation, layout: l, view: l.InitialView(),
		pinging: map[protocol.NodeID]uint64{}, round: map[protocol.NodeID]uint64{}, tries: map[protocol.NodeID]int{}, unacked: map[protocol.NodeID]int{}, removed: map[protocol.NodeID]int{},
		askers: map[protocol.NodeID]bool{}, servers: map[protocol.NodeID]bool{}}
	for _, n := range l.Servers() {
		m.servers[n] = true
	}
	if cfg.Storage != nil {
		_ = cfg.Storage.Scan(viewKey, func(rec storage.Record) error {
			var w pb.View
			if proto.Unmarshal(rec.Value, &w) == nil && rec.Key == viewKey {
				m.view = FromWire(&w)
			}
			return nil
		})
	}
	return m
}

// Start implements protocol.Node: a restarted master re-sends its view.
func (m *master) Start(time.Duration) protocol.Ready {
	var r protocol.Ready
	if m.inc > 1 {
		// Servers removed before the crash may not know it yet.
		for _, n := range m.layout.Servers() {
			if _, ok := m.view.Members[n]; !ok {
				m.removed[n] = 0
			}
		}
		m.broadcast(nil, &r)
	}
	return r
}

func (m *master) broadcast(extra []protocol.NodeID, r *protocol.Ready) {
	w := m.view.ToWire()
	clear(m.unacked)
	for _, n := range slices.Sorted(maps.Keys(m.view.Members)) {
		m.unacked[n] = 0
		r.Send(m.id, n, w)
	}
	for _, n := range extra {
		m.removed[n] = 0
	}
	for _, n := range slices.Sorted(maps.Keys(m.removed)) {
		// A removed server is told too, until it acknowledges (it then
		// rejoins as a new tail): it may be alive behind a partition.
		r.Send(m.id, n, w)
	}
	m.arm(r)
}

func (m *master) arm(r *protocol.Ready) {
	if !m.ticking && len(m.unacked)+len(m.removed) > 0 {
		m.ticking = true
		r.SetTimer(ResendEvery, tokResend)
	}
}

// newView installs the next epoch, persists it and sends it.
func (m *master) newView(extra []protocol.NodeID, r *protocol.Ready) {
	m.view.Epoch++
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.view.ToWire())
	if err != nil {
		panic(err)
	}
	r.Write(storage.Write{Kind: storage.Put, Key: viewKey, Value: data}, true)
	m.broadcast(extra, r)
	w := m.view.ToWire()
	for _, n := range slices.Sorted(maps.Keys(m.askers)) {
		r.Send(m.id, n, w)
	}
	clear(m.askers)
}

// Step implements protocol.Node.
func (m *master) Step(_ time.Duration, msg protocol.Message) protocol.Ready {
	var r protocol.Ready
	switch b := msg.Body.(type) {
	case *pb.ViewRequest:
		w := m.view.ToWire()
		if !m.servers[msg.From] && len(m.pinging) > 0 {
			// A session (Client.Fetch) learns whom the master
			// suspects, and gets the view that may remove them.
			for _, n := range slices.Sorted(maps.Keys(m.pinging)) {
				w.Suspects = append(w.Suspects, string(n))
			}
			m.askers[msg.From] = true
		}
		r.Send(m.id, msg.From, w)
	case *pb.ViewAck:
		if b.Epoch == m.view.Epoch {
			delete(m.unacked, msg.From)
			delete(m.removed, msg.From)
		}
	case *pb.Suspect:
		if b.Epoch < m.view.Epoch {
			r.Send(m.id, msg.From, m.view.ToWire())
		} else if !m.servers[msg.From] {
			m.askers[msg.From] = true
		}
		m.suspect(protocol.NodeID(b.Node), &r)
	case *pb.Pong:
		n := msg.From
		if p, ok := m.pinging[n]; ok && b.Nonce >= m.round[n] && b.Nonce <= p {
			delete(m.pinging, n)
		}
		if mem, ok := m.view.Members[n]; ok && b.Incarnation > mem.Incarnation {
			m.view.Members[n] = MemberState{Incarnation: b.Incarnation, Joining: true}
			m.newView(nil, &r)
		}
	case *pb.Join:
		n := msg.From
		if mem, ok := m.view.Members[n]; ok && mem.Incarnation >= b.Incarnation {
			r.Send(m.id, n, m.view.ToWire())
			break
		}
		delete(m.pinging, n)
		delete(m.removed, n)
		m.view.Members[n] = MemberState{Incarnation: b.Incarnation, Joining: true}
		m.newView(nil, &r)
	case *pb.JoinDone:
		n := msg.From
		if mem, ok := m.view.Members[n]; ok && mem.Joining && mem.Incarnation == b.Incarnation && b.Epoch == m.view.Epoch {
			m.view.Members[n] = MemberState{Incarnation: b.Incarnation}
			m.newView(nil, &r)
		}
	}
	return r
}

func (m *master) suspect(n protocol.NodeID, r *protocol.Ready) {
	if _, ok := m.view.Members[n]; !ok {
		return
	}
	if _, ok := m.pinging[n]; ok {
		return
	}
	m.tries[n] = 0
	m.round[n] = m.nextNonce()
	m.ping(n, r)
}

// ping sends the next Ping to a suspect, each waiting twice as long as
// the one before, so that a congested but live server is not removed.
func (m *master) ping(n protocol.NodeID, r *protocol.Ready) {
	nonce := m.nextNonce()
	m.nonce++
	m.pinging[n] = nonce
	r.Send(m.id, n, &pb.Ping{Nonce: nonce})
	r.SetTimer(pingTimeout<<m.tries[n], nonce)
	m.tries[n]++
}

// nextNonce is the nonce the next Ping carries.
func (m *master) nextNonce() uint64 {
	return m.inc<<32 | (m.nonce + 2)
}

// Tick implements protocol.Node: view retransmissions and ping timeouts.
func (m *master) Tick(_ time.Duration, token uint64) protocol.Ready {
	var r protocol.Ready
	if token != tokResend {
		for n, nonce := range m.pinging {
			if nonce == token {
				if m.tries[n] < pingTries {
					m.ping(n, &r)
					break
				}
				delete(m.pinging, n)
				if m.lastOfDC(n) {
					break
				}
				delete(m.view.Members, n)
				m.newView([]protocol.NodeID{n}, &r)
				break
			}
		}
		return r
	}
	m.ticking = false
	w := m.view.ToWire()
	for _, n := range slices.Sorted(maps.Keys(m.unacked)) {
		m.unacked[n]++
		r.Send(m.id, n, w)
		if m.unacked[n] > suspectAfter {
			m.suspect(n, &r)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(m.removed)) {
		if m.removed[n]++; m.removed[n] > maxRemovedResends {
			delete(m.removed, n) // down: it will Join when it restarts
			continue
		}
		r.Send(m.id, n, w)
	}
	m.arm(&r)
	return r
}

// lastOfDC says whether, under Layout.Geo, n is the last full member of
// its DC in the view: it is never removed, since its DC's chains hold
// the only copy there (removed while alive, it would drop its state and
// the DC lose writes the other DCs shipped it); a partition from the
// master's DC only makes the master stop hearing from it.
func (m *master) lastOfDC(n protocol.NodeID) bool {
	if !m.layout.Geo {
		return false
	}
	for o, st := range m.view.Members {
		if o != n && o.DC() == n.DC() && !st.Joining {
			return false
		}
	}
	return true
}
