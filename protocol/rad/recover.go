package rad

import (
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/radpb"
)

// recover rebuilds a restarted server from its storage: the clock above
// every time it handed out, each key's visible version (older versions
// are lost, so the chain's floor is its EVT), the committed versions, the
// decisions, prepared and received sub-requests, and the replication not
// yet acknowledged.
func (s *server) recover(st storage.Reader) {
	if rec, ok, _ := st.Get(clockKey); ok {
		s.clock.counter, s.clock.ceiling = rec.Version, rec.Version
	}
	_ = st.Scan(prefData, func(rec storage.Record) error {
		var m pb.Stored
		if proto.Unmarshal(rec.Value, &m) != nil {
			return nil
		}
		key := rec.Key[len(prefData):]
		s.chains[key] = &chain{versions: []version{{version: rec.Version, evt: m.Evt, value: m.Value}}, floor: m.Evt}
		s.clock.observe(m.Evt)
		return nil
	})
	_ = st.Scan(prefSeen, func(rec storage.Record) error {
		s.seen[rec.Key[len(prefSeen):]] = true
		return nil
	})
	_ = st.Scan(prefDecision, func(rec storage.Record) error {
		id := rec.Key[len(prefDecision):]
		var m pb.Commit
		if len(rec.Value) == 0 || proto.Unmarshal(rec.Value, &m) != nil {
			s.decisions[id] = decision{}
			return nil
		}
		s.decisions[id] = decision{commit: true, version: m.Version, evt: m.Evt}
		return nil
	})
	_ = st.Scan(prefPrepared, func(rec storage.Record) error {
		var b pb.WriteRequest
		if proto.Unmarshal(rec.Value, &b) != nil {
			return nil
		}
		p := &part{id: b.TxnId, coordKey: b.CoordKey, keys: b.Keys, writes: map[string][]byte{}, deps: b.Deps,
			complete: true, prepared: true, prepTime: rec.Version}
		for _, w := range b.Writes {
			p.writes[w.Key] = w.Value
		}
		s.parts[p.id] = p
		if s.coordinator(p.coordKey) == s.id {
			c := s.ensureCoord(p.id, 0)
			c.votes[s.id] = p.prepTime
		}
		return nil
	})
	_ = st.Scan(prefIncoming, func(rec storage.Record) error {
		var b pb.Replicate
		if proto.Unmarshal(rec.Value, &b) != nil {
			return nil
		}
		id := replicatedTxnID(b.Version)
		p := s.parts[id]
		if p == nil {
			p = &part{id: id, version: b.Version, coordKey: b.CoordKey, keys: b.Keys, writes: map[string][]byte{}}
			s.parts[id] = p
		}
		s.addIncoming(p, rec.Key, &b)
		return nil
	})
	_ = st.Scan(prefRemPrep, func(rec storage.Record) error {
		id := rec.Key[len(prefRemPrep):]
		p := s.parts[id]
		if p == nil {
			return nil
		}
		p.prepared, p.prepTime = true, rec.Version
		if s.coordinator(p.coordKey) == s.id {
			// It prepared itself only once its dependencies were
			// committed.
			c := s.ensureCoord(id, 0)
			c.depsOK = true
			c.votes[s.id] = p.prepTime
		}
		return nil
	})
	_ = st.Scan(prefOutgoing, func(rec storage.Record) error {
		var m pb.Outgoing
		if proto.Unmarshal(rec.Value, &m) != nil || len(m.Msgs) == 0 {
			return nil
		}
		o := &outgoing{msgs: map[protocol.NodeID]*pb.Replicate{}}
		for _, om := range m.Msgs {
			o.msgs[protocol.NodeID(om.To)] = om.Msg
		}
		s.out[m.Msgs[0].Msg.Version] = o
		return nil
	})
	// A replicated sub-request whose coordinator is this server and that
	// is complete but not prepared redoes its dependency checks in Start.
	for id, p := range s.parts {
		if strings.HasPrefix(id, "r") && p.complete && s.coordinator(p.coordKey) == s.id {
			s.ensureCoord(id, 0)
		}
	}
}
