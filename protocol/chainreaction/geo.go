package chainreaction

import (
	"maps"
	"slices"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// NameCops is the CLI name of the cr-cops baseline.
const NameCops = "cr-cops"

func init() {
	protocol.Register(chain.New(chain.Mode{
		Name:       NameCops,
		Summary:    "CR-COPS: ChainReaction linearizable inside each DC (k = R, reads at the tail) with COPS-style explicit dependencies across DCs",
		K:          chainLength,
		Geo:        func(*topology.Topology) bool { return true },
		LoggedTail: true,
		NewSession: newCopsSession,
		Resume:     resumeCops,
	}))
}

// geoTopology says whether ChainReaction runs §4's geo-replication on t:
// whenever t has more than one DC.
func geoTopology(t *topology.Topology) bool { return len(t.Datacenters) > 1 }

// chainLength is R on t (cr-cops's k: the tail answers puts).
func chainLength(t *topology.Topology) int {
	r := t.Placement.ChainLength
	if r == 0 {
		r = chain.DefaultChainLength
	}
	return min(r, t.Datacenters[0].Servers)
}

func newCopsSession(cfg protocol.SessionConfig, l *chain.Layout) protocol.Session {
	s := newSession(cfg, l).(*session)
	s.cops = true
	return s
}

// geoMeta is the geo-replication metadata of the pending put: the
// dependency filter of every key in the metadata table (§4.1.2), or, for
// cr-cops, the explicit (key, version) list (COPS's nearest
// dependencies). Nil when the chains do not leave the DC.
func (s *session) geoMeta() *pb.Geo {
	if !s.geo {
		return nil
	}
	g := &pb.Geo{}
	if s.cops {
		for _, k := range slices.Sorted(maps.Keys(s.meta)) {
			g.Deps = append(g.Deps, &pb.Dep{Key: k, Version: s.meta[k].version})
		}
		return g
	}
	g.DepFilter = chain.NewFilter()
	for k := range s.meta {
		chain.FilterAdd(g.DepFilter, k)
	}
	return g
}

// observeGeo is §3.6's update rules under geo-replication, where a reply's
// stable flag means Global-Write-Stable, which servers report only for
// versions written in their own DC: an entry is dropped when its own
// version is, unless it once stood for a version written elsewhere (the
// entry is then pinned until the next put: a newer version of the key,
// even globally stable, does not carry that one's dependencies to the
// DCs that have not applied it yet).
func (s *session) observeGeo(e entry, ok bool, b *pb.GetReply) {
	switch {
	case ok && b.Version < e.version:
	case ok && b.Version == e.version:
		if b.Stable && !e.pinned {
			delete(s.meta, b.Key)
			return
		}
		e.chainIndex = max(e.chainIndex, int(b.ChainIndex))
		s.meta[b.Key] = e
	default:
		n := entry{version: b.Version, chainIndex: int(b.ChainIndex)}
		if ok {
			n.pinned = e.pinned || chain.Origin(e.version) != s.c.Layout.DCIndex(s.c.ID.DC())
		}
		if b.Stable && !n.pinned {
			delete(s.meta, b.Key)
			return
		}
		s.meta[b.Key] = n
	}
}
