package k2

import (
	"fmt"
	"strconv"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// Mode selects K2 or PaRiS*.
type Mode struct {
	// Name and Summary are what `causeway protocols` shows.
	Name, Summary string
	// Paris runs PaRiS* (k2.txt §VII-A): no shared DC cache, a private
	// cache of each session's own writes for PrivateCacheTTL instead.
	Paris bool
}

// Protocol is a K2 deployment factory (protocol.Protocol).
type Protocol struct{ mode Mode }

// New returns the protocol for mode.
func New(mode Mode) *Protocol { return &Protocol{mode: mode} }

// Name implements protocol.Protocol.
func (p *Protocol) Name() string { return p.mode.Name }

// Summary implements protocol.Protocol.
func (p *Protocol) Summary() string { return p.mode.Summary }

// Guarantee implements protocol.Protocol: causal+.
func (p *Protocol) Guarantee() protocol.Guarantee { return protocol.CausalPlus }

// nodeBits is the width of the stamping node's index in the low bits of a
// Lamport timestamp (k2.txt §III-A).
const nodeBits = 12

// Validate implements protocol.Protocol.
func (p *Protocol) Validate(t *topology.Topology) error {
	n := 0
	for _, d := range t.Datacenters {
		n += d.Servers
	}
	if n >= 1<<nodeBits {
		return fmt.Errorf("%s: at most %d servers in all, topology %s has %d", p.mode.Name, 1<<nodeBits-1, t.Name, n)
	}
	return nil
}

// Timing.
const (
	// tickEvery is the period of a server's retransmission timer.
	tickEvery = 100 * time.Millisecond
	// resendAfter is the first retransmission's wait, doubling up to
	// maxBackoff.
	resendAfter = 500 * time.Millisecond
	maxBackoff  = 4 * time.Second
	// resendPerTick bounds the records a server retransmits per tick
	// (server.resendDue).
	resendPerTick = 16
	// abortAfter: a local coordinator still missing a cohort's Yes aborts.
	abortAfter = time.Second
	// statusAfter: a cohort pending this long asks its coordinator.
	statusAfter = 2 * time.Second
	// failoverAfter: phase 2 proceeds without a replica DC that has not
	// acknowledged phase 1 this long, if another replica of the key did
	// (k2.txt §VI-A).
	failoverAfter = time.Second
	// GCAfter is how long a superseded version is kept (k2.txt §IV-A).
	GCAfter = 5 * time.Second
	// fetchRetention is how long a replica server keeps a superseded
	// version's value for remote fetches (see doc.go, deviations).
	fetchRetention = 30 * time.Second
	// PrivateCacheTTL is how long a PaRiS* session keeps its own writes.
	PrivateCacheTTL = 5 * time.Second
	// DefaultCacheFraction is the DC cache's size as a share of the keys
	// (k2.txt §VII-B: 5%).
	DefaultCacheFraction = 0.05
	// defaultCacheKeys is the per-DC cache size when the key count is
	// unknown (a live cluster): 5% of K2's 1M keys.
	defaultCacheKeys = 50000
)

// serverName names the i-th storage server of a DC.
func serverName(i int) string { return "s" + strconv.Itoa(i) }

// Nodes implements protocol.Protocol: Servers storage servers per DC.
func (p *Protocol) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, d := range t.Datacenters {
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, serverName(i)), Role: protocol.RoleStorage})
		}
	}
	return out
}

// owner returns the server of dc responsible for key.
func owner(t *topology.Topology, dc, key string) protocol.NodeID {
	return protocol.MakeNodeID(dc, serverName(t.ServerIndex(dc, key)))
}

// factor is the topology's replication factor f (2 when unset).
func factor(t *topology.Topology) int {
	if f := t.Placement.ReplicationFactor; f > 0 {
		return f
	}
	return 2
}

// replicaDCs lists key's replica DCs.
func replicaDCs(t *topology.Topology, key string) []string { return t.ReplicaDCs(key, factor(t)) }

// isReplica reports whether dc stores key's value.
func isReplica(t *topology.Topology, dc, key string) bool {
	for _, d := range replicaDCs(t, key) {
		if d == dc {
			return true
		}
	}
	return false
}

// Replicas implements protocol.Protocol: key's server in each replica DC.
func (p *Protocol) Replicas(t *topology.Topology, key string) []protocol.NodeID {
	var out []protocol.NodeID
	for _, dc := range replicaDCs(t, key) {
		out = append(out, owner(t, dc, key))
	}
	return out
}

// VisibleAt implements protocol.Visibler: every DC's server of key, since
// every DC holds its metadata.
func (p *Protocol) VisibleAt(t *topology.Topology, key string) []protocol.NodeID {
	out := make([]protocol.NodeID, 0, len(t.Datacenters))
	for _, d := range t.Datacenters {
		out = append(out, owner(t, d.Name, key))
	}
	return out
}

// Tags implements protocol.Tagger.
func (p *Protocol) Tags() []string { return []string{TagSecondRound, TagCacheHit} }

// Reply tags and metrics.
const (
	// TagSecondRound marks a read-only transaction that needed Fig. 5's
	// second round for some key.
	TagSecondRound = "second_round"
	// TagCacheHit marks a read-only transaction that used a value from the
	// DC cache (K2) or the session's private cache (PaRiS*).
	TagCacheHit = "cache_hit"
	// MetricFetchWaited counts remote fetches that waited at the replica
	// DC (K2 never waits: always 0).
	MetricFetchWaited = "remote_fetch_waited"
	// MetricFetchMissing counts remote fetches that did not find the
	// version and were retried (must stay 0).
	MetricFetchMissing = "remote_fetch_missing"
	// MetricStaleness is how long before the read a newer version of a
	// key read had become visible in the DC, the largest over the keys.
	MetricStaleness = "staleness_ms"
	// MetricStalenessKey is the staleness of the transaction's first key:
	// one sample per transaction of the per-key staleness k2.txt §VII-D
	// reports ("the time since a newer version of that key has been
	// written", per key read), the keys of a transaction being drawn alike.
	MetricStalenessKey = "staleness_key_ms"
	// MetricCacheHits counts the values a transaction took from a cache.
	MetricCacheHits = "cache_hits"
)

// NewNode implements protocol.Protocol.
func (p *Protocol) NewNode(cfg protocol.NodeConfig) protocol.Node { return newServer(p.mode, cfg) }

// NewSession implements protocol.Protocol.
func (p *Protocol) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return newSession(p.mode, cfg)
}

// nodeIndex returns id's index among every server of t (its low bits in
// the timestamps it stamps).
func nodeIndex(t *topology.Topology, id protocol.NodeID) uint64 {
	i := uint64(1)
	for _, d := range t.Datacenters {
		for j := 0; j < d.Servers; j++ {
			if protocol.MakeNodeID(d.Name, serverName(j)) == id {
				return i
			}
			i++
		}
	}
	return 0
}

// stamp makes a timestamp of a clock value and a node index.
func stamp(clock, node uint64) uint64 { return clock<<nodeBits | node }

// clockOf returns a timestamp's clock part.
func clockOf(ts uint64) uint64 { return ts >> nodeBits }
