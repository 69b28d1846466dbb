package c3

import (
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/cassandra"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/c3pb"
	cpb "github.com/causeway/causeway/wire/cassandrapb"
)

// MetricMigrate names the per-operation metric of the time an operation
// spent migrating its session (c3.txt §3.3), in milliseconds.
const MetricMigrate = "migrate_ms"

// migrateToken marks the timer that resends a ClientMigrate.
const migrateToken = 1 << 63

// readToken marks the timer that sends an unanswered read to the next
// server of the current DC (cassandra.ReadRetry).
const readToken = 1 << 62

// migrateResend is how long a session waits for a MigrateResponse before
// it asks again (a lost ClientMigrate, or a layer that crashed before
// logging the label): a migration may rightly wait for remote labels,
// and every resend makes one more migrate label.
const migrateResend = 2 * time.Second

// session is C3's client library (c3.txt §3.3, §3.5, §4): it has a home
// DC (its NodeID's) and a current DC, migrates automatically before an
// operation on a key its current DC does not replicate (back home as soon
// as home replicates the key), keeps no dependency metadata, and keeps a
// cache of the values it read, purged on every write and migration.
type session struct {
	name    string // the protocol's, for tokens
	id      protocol.NodeID
	home    string
	cur     string
	coord   protocol.NodeID
	topo    *topology.Topology
	timeout time.Duration
	layerOf func(dc string) protocol.NodeID // the DC's node to migrate through

	reqID   uint64
	pending *protocol.Request
	// Migration of the pending operation.
	migID     uint64
	migrating bool
	migStart  time.Duration
	migRetry  protocol.Retry
	migMs     float64
	migrated  bool

	// cache maps a key to the newest version the session read of it
	// since its last write or migration (§4's client cache).
	cache map[string]cached
	// maxVersion is the highest version the session has seen: its writes
	// are minted above it (ClientWrite.min_version).
	maxVersion uint64
}

type cached struct {
	value   []byte
	version uint64
}

func newSession(cfg protocol.SessionConfig) *session { return newClient(Name, cfg, LayerOf) }

// newClient returns C3's client library for protocol name, asking
// layerOf(dc) to migrate it from dc (Saturn's sessions use it with its
// serializers).
func newClient(name string, cfg protocol.SessionConfig, layerOf func(dc string) protocol.NodeID) *session {
	c := &session{name: name, id: cfg.ID, home: cfg.ID.DC(), topo: cfg.Topology, timeout: cfg.OpTimeout,
		layerOf: layerOf, cache: map[string]cached{}}
	c.attach(c.home)
	return c
}

// attach makes dc the session's current DC, with the coordinator the
// session's id hashes to among dc's servers.
func (c *session) attach(dc string) {
	c.cur = dc
	c.coord = cassandra.Coordinator(c.topo, protocol.MakeNodeID(dc, c.id.Name()))
}

// Start implements protocol.Node.
func (c *session) Start(time.Duration) protocol.Ready { return protocol.Ready{} }

// Submit implements protocol.Session: get and put.
func (c *session) Submit(now time.Duration, req protocol.Request) protocol.Ready {
	var r protocol.Ready
	if req.Op != protocol.OpGet && req.Op != protocol.OpPut {
		r.Reply(protocol.Reply{Op: req.Op, Err: protocol.ErrUnsupported})
		return r
	}
	c.reqID++
	c.pending = &req
	c.migMs, c.migrated = 0, false
	c.route(now, &r)
	if c.timeout > 0 {
		r.SetTimer(c.timeout, c.reqID)
	}
	return r
}

// route sends the pending operation to the current DC if it replicates
// the key (and home does not, or is current), else starts a migration.
func (c *session) route(now time.Duration, r *protocol.Ready) {
	possible := c.possibleDCs()
	if slices.Contains(possible, c.cur) {
		c.send(r)
		return
	}
	c.migID++
	c.migrating, c.migStart, c.migRetry = true, now, protocol.SentAt(now)
	c.askMigrate(possible, r)
	r.SetTimer(migrateResend, migrateToken|c.migID)
}

// askMigrate sends ClientMigrate to the current DC's layer, and
// MigrateWatch to the layer of the DC that layer will pick (the nearest
// possible one, Alg. 1 l.20), so that the target may answer directly.
func (c *session) askMigrate(possible []string, r *protocol.Ready) {
	r.Send(c.id, c.layerOf(c.cur), &pb.ClientMigrate{MigId: c.migID, PossibleDcs: possible})
	if target := c.topo.Nearest(c.cur, possible); target != "" && target != c.cur {
		r.Send(c.id, c.layerOf(target), &pb.MigrateWatch{MigId: c.migID})
	}
}

// possibleDCs are the DCs the pending operation may run at: home when it
// replicates the key (a session goes home as soon as it can), else every
// DC replicating the key.
func (c *session) possibleDCs() []string {
	dcs := c.topo.PartitionDCs(c.pending.Key)
	if slices.Contains(dcs, c.home) {
		return []string{c.home}
	}
	return dcs
}

// send sends the pending operation to the coordinator at LOCAL_QUORUM.
func (c *session) send(r *protocol.Ready) {
	req := c.pending
	if req.Op == protocol.OpGet {
		r.Send(c.id, c.coord, &cpb.ClientRead{ReqId: c.reqID, Key: req.Key, Level: uint32(cassandra.LocalQuorum)})
		r.SetTimer(cassandra.ReadRetry, readToken|c.reqID)
		return
	}
	r.Send(c.id, c.coord, &cpb.ClientWrite{ReqId: c.reqID, Key: req.Key, Value: req.Value,
		Level: uint32(cassandra.LocalQuorum), MinVersion: c.maxVersion})
}

// Step implements protocol.Node: migrate responses and the coordinator's
// answers.
func (c *session) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	switch b := m.Body.(type) {
	case *pb.MigrateResponse:
		if !c.migrating || b.MigId != c.migID || c.pending == nil {
			return r // a duplicate, or a migration given up
		}
		c.migrating = false
		c.migMs += float64(now-c.migStart) / float64(time.Millisecond)
		c.migrated = true
		c.attach(b.Dc)
		clear(c.cache) // §4: the cache is purged on migration
		c.route(now, &r)
	case *cpb.ClientReply:
		if c.pending == nil || c.migrating || b.ReqId != c.reqID {
			return r
		}
		c.answer(b, &r)
	}
	return r
}

// answer completes the pending operation with the coordinator's reply.
func (c *session) answer(b *cpb.ClientReply, r *protocol.Ready) {
	req := c.pending
	c.pending = nil
	c.maxVersion = max(c.maxVersion, b.Version)
	rep := protocol.Reply{Op: req.Op, Key: req.Key, DC: c.cur}
	if req.Op == protocol.OpGet {
		v := cached{value: b.Value, version: b.Version}
		if old, ok := c.cache[req.Key]; ok && old.version > v.version {
			v = old // an older quorum than the one read before: the cache answers (§3.4 (i))
		} else if v.version > 0 {
			c.cache[req.Key] = v
		}
		rep.Value = v.value
		if v.version > 0 && rep.Value == nil {
			rep.Value = []byte{}
		}
	} else {
		clear(c.cache) // §4: the cache is purged on write
	}
	rounds := 0
	if c.cur != c.home {
		rounds++
	}
	if c.migrated {
		rounds++
		rep.SetMetric(MetricMigrate, c.migMs)
	}
	rep.SetWANRounds(rounds)
	r.Reply(rep)
}

// Tick implements protocol.Node: the operation timeout and ClientMigrate
// resends.
func (c *session) Tick(now time.Duration, token uint64) protocol.Ready {
	var r protocol.Ready
	if token&readToken != 0 {
		if c.pending != nil && !c.migrating && c.pending.Op == protocol.OpGet && token&^readToken == c.reqID {
			c.coord = cassandra.NextCoordinator(c.topo, c.coord)
			c.send(&r)
		}
		return r
	}
	if token&migrateToken != 0 {
		if c.migrating && token&^migrateToken == c.migID && c.pending != nil {
			if c.migRetry.Due(now, migrateResend, 4*migrateResend) {
				c.askMigrate(c.possibleDCs(), &r)
			}
			r.SetTimer(migrateResend, token)
		}
		return r
	}
	if c.pending != nil && token == c.reqID {
		op := c.pending.Op
		c.pending, c.migrating = nil, false
		c.coord = cassandra.NextCoordinator(c.topo, c.coord) // it may be down
		r.Reply(protocol.Reply{Op: op, Err: protocol.ErrTimeout, DC: c.cur})
	}
	return r
}
