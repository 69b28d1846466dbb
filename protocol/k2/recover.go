package k2

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/k2pb"
)

// Storage layout (every record synced before the message it enables):
//
//	v/<key>@<version>  a committed version (pb.Stored: EVT, value at a
//	                   replica or of a pinned local write, holders)
//	i/<key>@<version>  IncomingWrites: a phase-1 value not yet committed
//	p/<txn>            a local cohort's pending sub-request (pb.Pending)
//	q/<version>        a remote participant's pending keys (pb.Pending)
//	t/@<version>       a local coordinator's decided transaction
//	                   (pb.Decided) until its cohorts acknowledged and its
//	                   replication completed

// recover rebuilds a restarted server from its storage.
func (s *server) recover(st storage.Reader) {
	_ = st.Scan("v/", func(rec storage.Record) error {
		var m pb.Stored
		if proto.Unmarshal(rec.Value, &m) != nil {
			return nil
		}
		key, ver, ok := splitDepKey(rec.Key[2:])
		if !ok {
			return nil
		}
		k := s.state(key)
		k.done[ver] = m.Evt
		k.insert(ver, m.Evt, 0)
		if s.replica(key) {
			k.values[ver] = &stored{value: m.Value}
		} else {
			if len(m.Replicas) > 0 {
				k.replicas[ver] = m.Replicas
			}
			if m.HasValue {
				s.cache.put(key, ver, m.Value)
			}
		}
		s.clock = max(s.clock, clockOf(m.Evt), clockOf(ver))
		return nil
	})
	for _, k := range s.keys {
		for v, st := range k.values {
			if v < k.maxVer {
				st.supersededAt = 1
			}
		}
	}
	_ = st.Scan("i/", func(rec storage.Record) error {
		key, ver, ok := splitDepKey(rec.Key[2:])
		if !ok {
			return nil
		}
		k := s.state(key)
		if _, done := k.done[ver]; !done {
			k.incoming[ver] = rec.Value
		}
		return nil
	})
	_ = st.Scan("p/", func(rec storage.Record) error {
		var p pb.Pending
		if proto.Unmarshal(rec.Value, &p) != nil {
			return nil
		}
		s.cohortPending[p.TxnId] = &cohortTxn{p: &p}
		for _, w := range p.Writes {
			s.state(w.Key).pending[p.TxnId] = p.Prepared
		}
		s.clock = max(s.clock, clockOf(p.Prepared))
		return nil
	})
	_ = st.Scan("q/", func(rec storage.Record) error {
		var p pb.Pending
		if proto.Unmarshal(rec.Value, &p) != nil {
			return nil
		}
		s.rprepared[p.Version] = &p
		for _, km := range p.Keys {
			if _, done := s.state(km.Key).done[p.Version]; !done {
				s.state(km.Key).pending[p.TxnId] = p.Prepared
			}
		}
		s.clock = max(s.clock, clockOf(p.Prepared))
		return nil
	})
	_ = st.Scan("t/", func(rec storage.Record) error {
		var d pb.Decided
		if proto.Unmarshal(rec.Value, &d) != nil {
			return nil
		}
		dt := &decidedTxn{d: &d, unacked: map[protocol.NodeID]bool{}}
		for _, c := range d.Cohorts {
			dt.unacked[protocol.NodeID(c)] = true
		}
		if len(dt.unacked) > 0 {
			s.decided[d.TxnId] = dt
		}
		s.out[d.Version] = newOutTxn(&d, 0)
		s.clock = max(s.clock, clockOf(d.Version))
		return nil
	})
}

// splitDepKey parses "<key>@<hex version>".
func splitDepKey(s string) (key string, ver uint64, ok bool) {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return "", 0, false
	}
	v, err := strconv.ParseUint(s[at+1:], 16, 64)
	return s[:at], v, err == nil
}
