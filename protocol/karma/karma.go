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
	// ProbeEvery is the period of a CC's probes of every DC's latency
	// while it serves clients (§6.2's background monitor, probe.go;
	// default 1s); negative turns the probes off.
	ProbeEvery time.Duration
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
	if o.ProbeEvery == 0 {
		o.ProbeEvery = time.Second
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

// RingOrdered reports that a thread's writes are installed in each ring
// in program order (§4.1.2), across the ring's DCs: the benchmark's
// ordered visibility bound (bench.RingOrdered) holds for every variant.
func (p *Protocol) RingOrdered() bool { return true }

// ccBits is how many low bits of a version hold the minting CC's index.
const ccBits = 12

// Validate implements protocol.Protocol: Karma needs rings.
func (p *Protocol) Validate(t *topology.Topology) error {
	if len(t.Rings()) == 0 {
		return fmt.Errorf("%s: topology %s has no placement.rings (Karma groups DCs into rings, karma.txt §4.1.1)", p.mode.Name, t.Name)
	}
	for _, dc := range t.DCNames() {
		if t.RingOf(dc) < 0 {
			// Its storage servers would hold nothing, and its clients have
			// no ring of their own (COPS-PR binds them to it).
			return fmt.Errorf("%s: datacenter %s of topology %s is in no ring of placement.rings: every DC must be in one (karma.txt §4.1.1: the rings partition the DCs)", p.mode.Name, dc, t.Name)
		}
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

// cacheCost is a cache node's per-message cost relative to a storage
// server's in the simulator: the caches of §5 hold objects in memory,
// where a storage server runs Cassandra.
const cacheCost = 0.1

// Availability zones (§4.4): front-ends (CCs, caches) and back-ends
// (storage servers with their middle men) fail independently.
const (
	zoneFront = "front"
	zoneBack  = "back"
)

// Nodes implements protocol.Protocol: per DC, the topology's storage
// servers (back zone), as many CCs (front zone: §5 co-locates one with
// each storage node) and, with caches, CachesPerDC cache nodes (front).
//
// Roles: a storage server and its middle man are one node (Fig. 4 puts
// the MM beside the server, and they share its storage), so the MM has
// no role of its own: RoleStorage. CCs are RoleCoordinator, caches
// RoleCache; NewNode builds each node from its role.
func (p *Protocol) Nodes(t *topology.Topology) []protocol.NodeSpec {
	var out []protocol.NodeSpec
	for _, d := range t.Datacenters {
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, storageName(i)), Role: protocol.RoleStorage, Zone: zoneBack})
		}
		for i := 0; i < d.Servers; i++ {
			out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, ccName(i)), Role: protocol.RoleCoordinator, Zone: zoneFront})
		}
		if p.mode.Caches {
			for i := 0; i < p.opts.CachesPerDC; i++ {
				out = append(out, protocol.NodeSpec{ID: protocol.MakeNodeID(d.Name, cacheName(i)), Role: protocol.RoleCache, Zone: zoneFront, Cost: cacheCost})
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

// NewNode implements protocol.Protocol: the node's role (from Nodes)
// says what it is, not its name. A role Karma does not have panics: the
// runtime passed a NodeConfig that is not one of Nodes'.
func (p *Protocol) NewNode(cfg protocol.NodeConfig) protocol.Node {
	switch cfg.Role {
	case protocol.RoleCoordinator:
		return withInvariants(newCoordinator(p, cfg))
	case protocol.RoleCache:
		return newCache(p, cfg)
	case protocol.RoleStorage, "":
		return withInvariants(newMiddleMan(p, cfg))
	default:
		panic(fmt.Sprintf("%s: node %s has role %q, not one of karma's (storage, coordinator, cache)", p.mode.Name, cfg.ID, cfg.Role))
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

// maxRetransmitWait bounds the first wait of a write's retransmission to
// a ring, which follows the ring's measured acknowledgement time.
const maxRetransmitWait = 30 * time.Second

// rttEstimate times the retransmissions of writes to one ring as TCP
// times its own (RFC 6298): a smoothed round trip and its variation from
// the acknowledgements of writes sent once (Karn's rule), and a timeout
// that doubles, at most once per timeout, while writes keep needing a
// retransmission although the ring acknowledges others — a ring that is
// slow, not cut off. Under load retransmissions thus wait longer instead of
// adding to the backlog that delays them, while after a partition (no
// acknowledgements at all) they keep their pace and notice the heal soon;
// the timeout comes back down with the first write acknowledged without a
// retransmission.
type rttEstimate struct {
	srtt, rttvar time.Duration
	rto          time.Duration // 0: not yet measured (resendAfter)
	backedOffAt  time.Duration
	lastAck      time.Duration
}

// acked records an acknowledgement from the ring at now.
func (e *rttEstimate) acked(now time.Duration) { e.lastAck = now }

func (e *rttEstimate) sample(d time.Duration) {
	if e.srtt == 0 {
		e.srtt, e.rttvar = d, d/2
	} else {
		diff := e.srtt - d
		if diff < 0 {
			diff = -diff
		}
		e.rttvar = (3*e.rttvar + diff) / 4
		e.srtt = (7*e.srtt + d) / 8
	}
	e.rto = min(maxRetransmitWait, max(resendAfter, e.srtt+4*e.rttvar))
}

// timeout is the wait before a first retransmission.
func (e *rttEstimate) timeout() time.Duration {
	if e.rto == 0 {
		return resendAfter
	}
	return e.rto
}

// backOff doubles the timeout after a retransmission at now, unless it
// was doubled less than a timeout ago or the ring has not acknowledged
// anything since.
func (e *rttEstimate) backOff(now time.Duration) {
	if e.backedOffAt != 0 && (now-e.backedOffAt < e.timeout() || e.lastAck <= e.backedOffAt) {
		return
	}
	e.backedOffAt = now
	e.rto = min(maxRetransmitWait, 2*e.timeout())
}

// backoffLimit caps the doubling waits between one write's
// retransmissions: maxBackoff while acknowledgements are quick (a healed
// partition is noticed soon), twice the timeout when they are slow.
func (e *rttEstimate) backoffLimit() time.Duration { return max(maxBackoff, 2*e.timeout()) }
