package cassandra

import (
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/cassandrapb"
)

// gate is a replica's side of a causality layer (C3, c3.txt §4): a gated
// write is applied only once the replica holds both its data (a Mutation)
// and the layer's ExecuteWrite, and the layer is then told.
type gate struct {
	data  map[string]*pb.Mutation // data waiting for its ExecuteWrite, by key@version
	order map[string]order        // ExecuteWrites waiting for their data
}

// order is an ExecuteWrite that arrived before its data.
type order struct {
	layer   protocol.NodeID
	layerID uint64
}

func newGate() *gate { return &gate{data: map[string]*pb.Mutation{}, order: map[string]order{}} }

func gateKey(key string, version uint64) string { return key + "@" + strconv.FormatUint(version, 16) }

// recover reloads the gated data a replica acknowledged before a crash,
// but for data applied already (or superseded: applied is the newest
// version applied of a key): executing a write superseded by a newer one
// deletes its record without a synced write after it, and a crash may
// undo the deletion.
func (g *gate) recover(st storage.Reader, applied func(key string) uint64) {
	_ = st.Scan("g/", func(rec storage.Record) error {
		var m pb.Mutation
		if proto.Unmarshal(rec.Value, &m) == nil && m.Version > applied(m.Key) {
			g.data[gateKey(m.Key, m.Version)] = &m
		}
		return nil
	})
}

// holdGated stores a gated write's data durably, applying it at once if
// its ExecuteWrite is already here.
func (s *Server) holdGated(now time.Duration, b *pb.Mutation, r *protocol.Ready) {
	gk := gateKey(b.Key, b.Version)
	if s.gated.data[gk] != nil {
		return // held already
	}
	if o, ok := s.gated.order[gk]; ok {
		// Its ExecuteWrite came first (or the write is superseded by a
		// newer version applied meanwhile, which apply ignores).
		delete(s.gated.order, gk)
		s.apply(b.Key, b.Value, b.Version, r)
		s.send(now, o.layer, &pb.WriteExecuted{Key: b.Key, Version: b.Version, LayerId: o.layerID}, r)
		return
	}
	if b.Version <= s.store[b.Key].version {
		return // applied (or superseded) already
	}
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(&pb.Mutation{Key: b.Key, Value: b.Value, Version: b.Version, Gated: true})
	if err != nil {
		panic(err)
	}
	s.gated.data[gk] = b
	r.Write(storage.Write{Kind: storage.Put, Key: "g/" + gk, Value: data}, true)
}

// execute handles a layer's ExecuteWrite: apply the write if its data is
// here (or a version as new is applied already) and tell the layer, else
// remember the order until the data comes. The layer resends its order
// until told, so orders need not be durable.
func (s *Server) execute(now time.Duration, layer protocol.NodeID, b *pb.ExecuteWrite, r *protocol.Ready) {
	gk := gateKey(b.Key, b.Version)
	done := &pb.WriteExecuted{Key: b.Key, Version: b.Version, LayerId: b.LayerId}
	if m := s.gated.data[gk]; m != nil {
		delete(s.gated.data, gk)
		r.Write(storage.Write{Kind: storage.Delete, Key: "g/" + gk}, false)
		s.apply(m.Key, m.Value, m.Version, r)
		s.send(now, layer, done, r)
		return
	}
	if b.Version <= s.store[b.Key].version {
		delete(s.gated.order, gk)
		s.send(now, layer, done, r)
		return
	}
	s.gated.order[gk] = order{layer: layer, layerID: b.LayerId}
}
