package cassandra

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/cassandrapb"
)

// Timing of retransmissions: a hint or an unanswered read is resent after
// resendAfter, then twice as long each time up to maxBackoff.
const (
	tickEvery   = 250 * time.Millisecond
	resendAfter = 500 * time.Millisecond
	maxBackoff  = 8 * time.Second
	// readLinger is how long a completed read waits for its other replicas'
	// answers, to repair the stale ones among them.
	readLinger = 2 * time.Second
	// giveUp drops a client operation the coordinator could not complete
	// (the session has timed out long before).
	giveUp = time.Minute
)

// entry is a key's newest applied version at a replica.
type entry struct {
	value   []byte
	version uint64
}

// Server is one storage server: a replica of the keys placed on it and the
// coordinator of the requests its DC's clients send it.
type Server struct {
	preset Preset
	id     protocol.NodeID
	dc     string
	topo   *topology.Topology
	index  uint64 // the server's index among all servers: the LWW tie-break
	clock  uint64 // last physical µs minted (timestamps never go back)
	loaded *protocol.Dataset

	// Replica state.
	store map[string]entry
	gated *gate // C3's pending writes (nil unless Preset.Gated)

	// Coordinator state.
	nextID  uint64
	ops     map[uint64]*op   // client operations in progress, by id
	hints   map[uint64]*hint // writes not yet acknowledged by every replica
	ticking bool
}

// hint is a write its coordinator resends until every replica holds it
// (Cassandra's hinted handoff, kept at the coordinator).
type hint struct {
	mut     *pb.Mutation
	unacked map[protocol.NodeID]bool
	// layer is true while a gated write waits for its DC's causality
	// layer's LayerDone (the LayerWrite is resent with the hint).
	layer bool
	retry protocol.Retry
}

// op is a client operation in progress at its coordinator.
type op struct {
	client protocol.NodeID
	reqID  uint64
	key    string
	write  bool
	level  Level
	place  placementOf
	start  time.Duration
	done   bool
	// answered are the replicas that acknowledged (write) or answered
	// (read); versions their versions (read).
	answered map[protocol.NodeID]bool
	versions map[protocol.NodeID]uint64
	value    []byte // newest value read
	version  uint64 // newest version read, or the write's
	asked    map[protocol.NodeID]bool
	retry    protocol.Retry
}

// NewServer creates (or recovers, from cfg.Storage) a server of preset.
func NewServer(preset Preset, cfg protocol.NodeConfig) *Server {
	s := &Server{preset: preset, id: cfg.ID, dc: cfg.ID.DC(), topo: cfg.Topology, loaded: cfg.Loaded,
		store: map[string]entry{}, ops: map[uint64]*op{}, hints: map[uint64]*hint{},
		nextID: cfg.Incarnation << 32}
	if preset.Gated {
		s.gated = newGate()
	}
	i := 0
	for _, d := range cfg.Topology.Datacenters {
		for j := 0; j < d.Servers; j++ {
			if protocol.MakeNodeID(d.Name, ServerName(j)) == cfg.ID {
				s.index = uint64(i)
			}
			i++
		}
	}
	if cfg.Storage == nil {
		return s
	}
	_ = cfg.Storage.Scan("d/", func(rec storage.Record) error {
		s.store[rec.Key[2:]] = entry{value: rec.Value, version: rec.Version}
		return nil
	})
	_ = cfg.Storage.Scan("h/", func(rec storage.Record) error {
		var m pb.Mutation
		if proto.Unmarshal(rec.Value, &m) != nil {
			return nil // batches are atomic: a torn record cannot exist
		}
		s.hints[m.Id] = &hint{mut: &m, unacked: s.replicaSet(m.Key), layer: m.Gated, retry: protocol.SentAt(-resendAfter)}
		s.clock = max(s.clock, m.Version>>serverBits)
		return nil
	})
	if s.gated != nil {
		s.gated.recover(cfg.Storage, func(key string) uint64 { return s.store[key].version })
	}
	return s
}

// ID returns the server's node id.
func (s *Server) ID() protocol.NodeID { return s.id }

func (s *Server) replicaSet(key string) map[protocol.NodeID]bool {
	out := map[protocol.NodeID]bool{}
	for _, id := range s.preset.placement(s.topo, key).all() {
		out[id] = true
	}
	return out
}

func hintKey(id uint64) string { return "h/" + strconv.FormatUint(id, 16) }

// Replicas implements protocol.Inspector.
func (s *Server) Replicas(fn func(key string, value []byte)) {
	for _, k := range slices.Sorted(maps.Keys(s.store)) {
		fn(k, s.store[k].value)
	}
}

// Start implements protocol.Node: resume the hints recovered from storage.
func (s *Server) Start(now time.Duration) protocol.Ready {
	var r protocol.Ready
	s.resend(now, &r)
	s.armTimer(&r)
	return r
}

func (s *Server) armTimer(r *protocol.Ready) {
	if !s.ticking && (len(s.ops) > 0 || len(s.hints) > 0) {
		s.ticking = true
		r.SetTimer(tickEvery, 0)
	}
}

// Tick implements protocol.Node: retransmissions and expiry.
func (s *Server) Tick(now time.Duration, _ uint64) protocol.Ready {
	var r protocol.Ready
	s.ticking = false
	s.resend(now, &r)
	s.armTimer(&r)
	return r
}

// send hands body to node to, delivering it at once when to is this
// server (a coordinator that is also a replica).
func (s *Server) send(now time.Duration, to protocol.NodeID, body proto.Message, r *protocol.Ready) {
	if to == s.id {
		r.Merge(s.Step(now, protocol.Message{From: s.id, To: s.id, Body: body}))
		return
	}
	r.Send(s.id, to, body)
}

func (s *Server) resend(now time.Duration, r *protocol.Ready) {
	for _, id := range slices.Sorted(maps.Keys(s.hints)) {
		h := s.hints[id]
		if !h.retry.Due(now, resendAfter, maxBackoff) {
			continue
		}
		for _, to := range slices.Sorted(maps.Keys(h.unacked)) {
			s.send(now, to, h.mut, r)
		}
		if h.layer {
			s.send(now, s.preset.Layer(s.dc), &pb.LayerWrite{Id: id, Key: h.mut.Key, Version: h.mut.Version}, r)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.ops)) {
		o := s.ops[id]
		switch {
		case o.done && (now-o.start > readLinger || len(o.answered) == len(o.asked)):
			delete(s.ops, id)
		case now-o.start > giveUp:
			delete(s.ops, id)
		case !o.done && !o.write && o.retry.Due(now, resendAfter, maxBackoff):
			// An unanswered read is asked of every replica its level
			// counts.
			for _, to := range s.readScope(o) {
				if !o.answered[to] {
					o.asked[to] = true
					s.send(now, to, &pb.ReadCmd{Id: id, Key: o.key}, r)
				}
			}
		}
	}
}

// Step implements protocol.Node.
func (s *Server) Step(now time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	switch b := m.Body.(type) {
	case *pb.ClientRead:
		s.read(now, m.From, b, &r)
	case *pb.ClientWrite:
		s.write(now, m.From, b, &r)
	case *pb.Mutation:
		s.mutate(now, m.From, b, &r)
	case *pb.MutationAck:
		s.mutationAck(now, m.From, b, &r)
	case *pb.ReadCmd:
		e := s.get(b.Key)
		s.send(now, m.From, &pb.ReadResp{Id: b.Id, Key: b.Key, Value: e.value, Version: e.version}, &r)
	case *pb.ReadResp:
		s.readResp(now, m.From, b, &r)
	case *pb.ExecuteWrite:
		if s.gated != nil {
			s.execute(now, m.From, b, &r)
		}
	case *pb.LayerDone:
		s.layerDone(now, b, &r)
	}
	s.armTimer(&r)
	return r
}

// get returns the replica's value of key (a loaded record never written
// at version 0).
func (s *Server) get(key string) entry {
	e, ok := s.store[key]
	if !ok {
		e.value = s.loaded.Value(key)
	}
	return e
}

// apply makes version of key the replica's value if it is newer (LWW),
// durably.
func (s *Server) apply(key string, value []byte, version uint64, r *protocol.Ready) {
	if version <= s.store[key].version {
		return
	}
	s.store[key] = entry{value: value, version: version}
	r.Write(storage.Write{Kind: storage.Put, Key: "d/" + key, Version: version, Value: value}, true)
	r.Write(storage.Write{Kind: storage.DeleteBelow, Key: "d/" + key, Version: version}, true)
	r.VisibleVersion(key, value, version)
}

// mutate applies a write at a replica (or, gated, holds it for its
// ExecuteWrite) and acknowledges it to its coordinator.
func (s *Server) mutate(now time.Duration, from protocol.NodeID, b *pb.Mutation, r *protocol.Ready) {
	if b.Gated && s.gated != nil {
		s.holdGated(now, b, r)
	} else {
		s.apply(b.Key, b.Value, b.Version, r)
	}
	if b.Id != 0 {
		s.send(now, from, &pb.MutationAck{Id: b.Id, Key: b.Key, Version: b.Version}, r)
	}
}
