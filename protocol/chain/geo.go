package chain

import (
	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// The servers' part of geo-replication (chainreaction.txt §4, Layout.Geo):
// the tail of a DC's chain hands every version written in its DC to the
// DC's remote-proxy (Ship) and calls it DC-Write-Stable only once the
// proxy has logged it; a head applies a remote put at the version its
// origin assigned, unless it holds a newer one (last-writer-wins, §4.3);
// Global-Write-Stable travels from the proxy to the tail and up the chain.

// RoleProxy is the role of a DC's remote-proxy (chainreaction.txt §4.1).
const RoleProxy protocol.Role = "remote-proxy"

// dcBits is how many of a version's epoch bits hold, under Geo, the index
// of the DC whose head assigned it: versions then order by (counter, DC),
// the paper's last-writer-wins order (clock, DC id), §4.3.
const dcBits = 4

// Proxy is DC dc's remote-proxy.
func (l *Layout) Proxy(dc string) protocol.NodeID { return protocol.MakeNodeID(dc, "p0") }

// Origin is the index of the DC whose head assigned version v (0 unless
// Geo).
func Origin(v uint64) int { return int(v >> (epochBits - dcBits) & (1<<dcBits - 1)) }

// newVersion is the version a head assigns with counter: the epoch of its
// view and, under Geo, its DC.
func (s *server) newVersion(counter uint64) uint64 {
	if !s.layout.Geo {
		return MakeVersion(counter, s.view.Epoch)
	}
	low := uint64(s.layout.DCIndex(s.id.DC()))<<(epochBits-dcBits) | s.view.Epoch&(1<<(epochBits-dcBits)-1)
	return counter<<epochBits | low
}

// syncsWith says whether n is one of the servers whose Synced this one
// waits for after a view change: under Geo only its own DC's, which share
// its chains (and stay reachable when the WAN is cut).
func (s *server) syncsWith(n protocol.NodeID) bool {
	return !s.layout.Geo || n.DC() == s.id.DC()
}

// geoItem is a key's geo-replication state at a server.
type geoItem struct {
	// shipq holds, at the tail, the versions written in this DC that the
	// proxy has not acknowledged yet, oldest first; only the first is in
	// flight, so that the proxy logs a key's versions in order. While it
	// is not empty nothing newer becomes DC-Write-Stable.
	shipq []ver
	// global is the highest version known Global-Write-Stable.
	global uint64
	// replies are put answers a tail that answers puts (cr-cops) holds
	// until their version is logged at the proxy.
	replies []heldReply
	// reads are gets a tail that answers puts (cr-cops) holds until its
	// newest version is logged at the proxy.
	reads []*pb.Get
}

type heldReply struct {
	client, entry string
	req, version  uint64
}

// localOrigin says whether v was written in this server's DC.
func (s *server) localOrigin(v uint64) bool {
	return Origin(v) == s.layout.DCIndex(s.id.DC())
}

// atTail runs the tail's duty for key, after a version arrived or a view
// made this node the tail: under Geo every version written here above the
// stable one is shipped to the proxy, oldest first, before the newest
// becomes stable; otherwise (and for remote versions) it is stable at
// once. Every such version, not only the newest: each alone stands for
// its session's dependencies in the other DCs (its session, answered by
// node k, let its next put depend on it alone, §3.5), and a newer version
// may have overtaken one the old tail died before shipping (scenario
// geo_new_tail_ships_superseded). The proxy drops a version it has logged
// already.
func (s *server) atTail(key string, it *item, c []protocol.NodeID, i int, r *protocol.Ready) {
	if s.layout.Geo {
		for _, x := range it.aboveStable() {
			if s.localOrigin(x.v) && !shipping(it, x.v) {
				it.shipq = append(it.shipq, x)
				if len(it.shipq) == 1 {
					s.ship(key, x, r)
				}
			}
		}
	}
	if len(it.shipq) > 0 {
		s.dirty = true
		return
	}
	s.becomeStable(key, it, it.latest().v, c, i, r)
}

// unshipped lists the versions of it below newest that were written in
// this DC and are not yet stable, oldest first, for an Update that
// retransmits or pushes newest (Update.unshipped; none unless Geo).
func (s *server) unshipped(it *item, newest uint64) []*pb.Unshipped {
	if !s.layout.Geo {
		return nil
	}
	var out []*pb.Unshipped
	for _, x := range it.aboveStable() {
		if x.v < newest && s.localOrigin(x.v) {
			out = append(out, &pb.Unshipped{Version: x.v, Value: x.value, Geo: x.geo, Seq: s.wireSeq(x)})
		}
	}
	return out
}

// addUnshipped adds the older versions an Update carries (Update.unshipped).
func (s *server) addUnshipped(b *pb.Update, it *item, r *protocol.Ready) {
	for _, o := range b.Unshipped {
		x := ver{v: o.Version, value: o.Value, geo: o.Geo, seq: o.Seq}
		if it.add(x) {
			persist(b.Key, x, r)
			r.VisibleVersion(b.Key, x.value, x.v)
		}
	}
}

// aboveStable is the suffix of it's versions (ascending) newer than its
// stable one: usually none or the newest alone, so an Update's
// Update.unshipped costs no walk over the versions a head keeps.
func (it *item) aboveStable() []ver {
	i := len(it.versions)
	for i > 0 && it.versions[i-1].v > it.stable {
		i--
	}
	return it.versions[i:]
}

func shipping(it *item, v uint64) bool {
	for _, x := range it.shipq {
		if x.v == v {
			return true
		}
	}
	return false
}

func (s *server) ship(key string, x ver, r *protocol.Ready) {
	g := x.geo
	if g == nil {
		// Its dependencies are unknown (recovered from disk): it is
		// shipped as depending on every put queued before it.
		g = &pb.Geo{DepFilter: FullFilter()}
	}
	value := x.value
	if value == nil {
		value = []byte{}
	}
	r.Send(s.id, s.layout.Proxy(s.id.DC()), &pb.Ship{Key: key, Version: x.v, Value: value, Geo: g})
}

// shipAck releases the first shipped version of a key: the next is
// shipped, or, when none is left, the newest version becomes stable.
func (s *server) shipAck(b *pb.ShipAck, r *protocol.Ready) {
	it := s.items[b.Key]
	if it == nil || len(it.shipq) == 0 || it.shipq[0].v != b.Version {
		return
	}
	it.shipq = it.shipq[1:]
	if len(it.shipq) > 0 {
		s.ship(b.Key, it.shipq[0], r)
		return
	}
	c, _, i := s.chain(b.Key)
	if i >= 0 && i == len(c)-1 {
		s.becomeStable(b.Key, it, it.latest().v, c, i, r)
	}
}

// shipTick retransmits the version in flight to the proxy; it reports
// whether one was.
func (s *server) shipTick(key string, it *item, r *protocol.Ready) bool {
	if len(it.shipq) == 0 {
		return false
	}
	if c, _, i := s.chain(key); i < 0 || i != len(c)-1 {
		// No longer the tail: the new tail ships what it holds.
		it.shipq = nil
		return false
	}
	s.ship(key, it.shipq[0], r)
	return true
}

// deferReply holds a put's answer under LoggedTail (cr-cops) until the
// proxy has logged the version (it is stable here); it reports whether it
// did. The node that answers is the tail, except while the chain has
// fewer full members than k (a DC recovering, its restarted servers
// quarantined as tails): node k then answers before the tail has shipped
// the version, and an answer there would let the client's next put, on
// another chain, reach the proxy first.
func (s *server) deferReply(key string, it *item, x ver, client, entry string, req uint64) bool {
	if !s.layout.LoggedTail || x.v <= it.stable || !s.localOrigin(x.v) {
		return false
	}
	it.replies = append(it.replies, heldReply{client: client, entry: entry, req: req, version: x.v})
	return true
}

func (s *server) flushReplies(key string, it *item, r *protocol.Ready) {
	keep := it.replies[:0]
	for _, h := range it.replies {
		if h.version <= it.stable {
			_, _, i := s.chain(key)
			s.toClient(h.client, h.entry, &pb.PutReply{ReqId: h.req, Key: key, Version: h.version, ChainIndex: uint32(max(i, 0))}, r)
		} else {
			keep = append(keep, h)
		}
	}
	it.replies = keep
}

// remotePut applies, at the head, a put a remote-proxy delivers: at its
// origin's version if newer than what the head holds, else it is
// discarded (§4.1.2; last-writer-wins for concurrent writes, §4.3). seq
// is the number this DC's sequencer gave it on arrival (0: none).
func (s *server) remotePut(b *pb.Put, seq uint64, c []protocol.NodeID, full, i int, r *protocol.Ready) {
	it := s.get(b.Key)
	x := ver{v: b.Geo.RemoteVersion, value: b.Value, geo: b.Geo, seq: seq}
	if !it.add(x) {
		return
	}
	persist(b.Key, x, r)
	r.VisibleVersion(b.Key, x.value, x.v)
	s.apply(b.Key, x, "", "", 0, false, c, full, i, r)
}

// globalStable records that version v of key is Global-Write-Stable and
// passes it up the chain.
func (s *server) globalStable(key string, v uint64, r *protocol.Ready) {
	it := s.get(key)
	if v <= it.global {
		return
	}
	it.global = v
	if c, _, i := s.chain(key); i > 0 {
		r.Send(s.id, c[i-1], &pb.GlobalStable{Key: key, Version: v})
	}
}

// flushReads serves the gets held until the newest version was stable.
func (s *server) flushReads(it *item, r *protocol.Ready) {
	reads := it.reads
	it.reads = nil
	for _, b := range reads {
		s.read(b, r)
	}
}
