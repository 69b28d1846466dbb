package karma

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// Mode selects the variant a Protocol runs.
type Mode struct {
	// Name and Summary are what `causeway protocols` shows.
	Name, Summary string
	// Caches enables the per-DC caches of §4.3 (off: Karma-NC, COPS-PR).
	Caches bool
	// OwnRing binds every session statically to its DC's ring (COPS-PR):
	// no dynamic ring choice, hence no ring restrictions to lift.
	OwnRing bool
}

// Options are the tunables of a deployment; zero values take the defaults.
type Options struct {
	// CachesPerDC is the number of cache nodes per DC (default 2, §5).
	CachesPerDC int
	// CacheCapacity is the number of objects each cache node holds (LRU).
	CacheCapacity int
	// NotifyEvery is the period of notify-after write insertion for a
	// session under ring restriction (§4.2).
	NotifyEvery time.Duration
}

func (o Options) withDefaults() Options {
	if o.CachesPerDC <= 0 {
		o.CachesPerDC = 2
	}
	if o.CacheCapacity <= 0 {
		o.CacheCapacity = 20000
	}
	if o.NotifyEvery <= 0 {
		o.NotifyEvery = 200 * time.Millisecond
	}
	return o
}

// Protocol is a Karma deployment factory (protocol.Protocol).
type Protocol struct {
	mode Mode
	opts Options
}

// New returns the protocol for mode with options opts.
func New(mode Mode, opts Options) *Protocol { return &Protocol{mode: mode, opts: opts.withDefaults()} }

// Name implements protocol.Protocol.
func (p *Protocol) Name() string { return p.mode.Name }

// Summary implements protocol.Protocol.
func (p *Protocol) Summary() string { return p.mode.Summary }

// Guarantee implements protocol.Protocol.
func (p *Protocol) Guarantee() protocol.Guarantee { return protocol.CausalPlus }

// ccBits is how many low bits of a version hold the minting CC's index.
const ccBits = 12

// Validate implements protocol.Protocol: Karma needs rings.
func (p *Protocol) Validate(t *topology.Topology) error {
	if len(t.Rings()) == 0 {
		return fmt.Errorf("%s: topology %s has no placement.rings (Karma groups DCs into rings, karma.txt §4.1.1)", p.mode.Name, t.Name)
	}
	n := 0
	for _, d := range t.Datacenters {
		n += d.Servers
	}
	if n > 1<<ccBits {
		return fmt.Errorf("%s: at most %d client coordinators in all, topology %s has %d", p.mode.Name, 1<<ccBits, t.Name, n)
	}
	return nil
}

// Node names inside a DC.
func storageName(i int) string { return "s" + strconv.Itoa(i) }
func ccName(i int) string      { return "cc" + strconv.Itoa(i) }
func cacheName(i int) string   { return "cache" + strconv.Itoa(i) }

// Availability zones (§4.4): front-ends (CCs, caches) and back-ends
// (storage servers with their middle men) fail independently.
const (
	zoneFront = "front"
	zoneBack  = "back"
)

// Nodes implements protocol.Protocol: per DC, the topology's storage
// servers (back zone), as many CCs (front zone: §5 co-locates one with
// each storage node) and, with caches, CachesPerDC cache nodes (front).
func (p *Protocol) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, d := range t.Datacenters {
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, storageName(i)), Zone: zoneBack})
		}
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, ccName(i)), Zone: zoneFront})
		}
		if p.mode.Caches {
			for i := 0; i < p.opts.CachesPerDC; i++ {
				out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, cacheName(i)), Zone: zoneFront})
			}
		}
	}
	return out
}

// replica is the storage server (with its MM) holding key in ring r.
func replica(t *topology.Topology, r int, key string) protocol.NodeID {
	dc, i := t.RingReplica(r, key)
	return protocol.MakeNodeID(dc, storageName(i))
}

// Replicas implements protocol.Protocol: one replica per ring.
func (p *Protocol) Replicas(t *topology.Topology, key string) []protocol.NodeID {
	out := make([]protocol.NodeID, len(t.Rings()))
	for r := range out {
		out[r] = replica(t, r, key)
	}
	return out
}

func hashOf(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}

// cacheFor is the cache node of dc that holds key.
func (p *Protocol) cacheFor(dc, key string) protocol.NodeID {
	return protocol.MakeNodeID(dc, cacheName(int(hashOf(key)%uint64(p.opts.CachesPerDC))))
}

// ccFor is the CC of the session's DC that coordinates it.
func ccFor(t *topology.Topology, session protocol.NodeID) protocol.NodeID {
	n := max(1, t.Servers(session.DC()))
	return protocol.MakeNodeID(session.DC(), ccName(int(hashOf(string(session))%uint64(n))))
}

// NewNode implements protocol.Protocol.
func (p *Protocol) NewNode(cfg protocol.NodeConfig) protocol.Node {
	name := cfg.ID.Name()
	switch {
	case len(name) > 2 && name[:2] == "cc":
		return newCoordinator(p, cfg)
	case len(name) > 5 && name[:5] == "cache":
		return newCache(p, cfg)
	default:
		return newMiddleMan(p, cfg)
	}
}

// NewSession implements protocol.Protocol.
func (p *Protocol) NewSession(cfg protocol.SessionConfig) protocol.Session {
	return &session{id: cfg.ID, cc: ccFor(cfg.Topology, cfg.ID), timeout: cfg.OpTimeout, proto: p.mode.Name}
}

// depKey names a version of a key in maps and storage keys.
func depKey(key string, version uint64) string { return key + "@" + strconv.FormatUint(version, 16) }

// Timing of retries: a retransmission waits resendAfter, then twice as
// long each time up to maxBackoff.
const (
	tickEvery   = 100 * time.Millisecond
	resendAfter = 500 * time.Millisecond
	maxBackoff  = 4 * time.Second
)

// due reports whether a retransmission is due (see protocol.Retry).
func due(r *protocol.Retry, now time.Duration) bool { return r.Due(now, resendAfter, maxBackoff) }
