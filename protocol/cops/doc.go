// Package cops registers the "cops" protocol: COPS with full replication —
// the "COPS-Ideal" baseline of karma.txt §5.
//
// Sources: Lloyd, Freedman, Kaminsky and Andersen, "Don't Settle for
// Eventual: Scalable Causal Consistency for Wide-Area Storage with COPS",
// SOSP 2011, §3–§4 (nearest dependencies, Lamport versions, put_after and
// dep_check, last-writer-wins convergence); karma.txt §5 (COPS-Ideal:
// every DC stores every key, clients bound to their DC) and §4.1.2
// (program-order propagation from the client side).
//
// How it runs (implemented by package fullrep in causal mode):
//   - Each DC holds every key, sharded over its servers by consistent
//     hashing (topology.ServerIndex). A session talks only to its own DC.
//   - get: the local shard answers with the value and its version; the
//     session adds (key, version) to its nearest dependencies (every
//     version it read, even a lower one of a key already depended on),
//     unless the shard marked the version stable: committed in every DC
//     (COPS §5.3's never-depend; its origin learns that from the acks and
//     tells the other DCs' shards in its next Replicates).
//   - put: the session sends its nearest dependencies and the highest
//     version it has seen; the shard mints a Lamport version larger than
//     both, syncs the value and an outgoing-replication record, then
//     acknowledges. The session's dependencies become just that put.
//   - replication: the shard sends Replicate{key, value, version, stable
//     frontier, packed deps} to
//     the key's shard in every other DC and resends, after 500 ms and then
//     with doubling backoff up to 8 s, until each acknowledges. The
//     receiver sends, for each local shard that owns some of the write's
//     missing dependencies, one DepCheck listing them; that shard answers
//     one DepOK once each of those exact versions is committed there. Only then is the write committed — applied if its
//     version is newer (LWW), remembered as committed either way — and
//     acknowledged.
//   - moving a session (k2.txt §VI-B; protocol.Mover, protocol.Resumer):
//     the session's token carries its nearest dependencies with their
//     exact versions and its highest seen version. A session resumed from
//     it in another DC sends one DepCheck per owning shard there, listing
//     that shard's dependencies (resent with the same backoff), and holds every operation until
//     all are answered DepOK; operations time out meanwhile. Its nearest
//     dependencies are the token's, so its next put depends on them.
//
// Message catalogue (wire/fullreppb; sizes in protocol/fullrep's doc):
// GetRequest/GetReply, PutRequest/PutReply (session <-> local shard);
// Replicate/ReplicateAck (shard <-> same shard in another DC; a
// Replicate's dependencies packed, about 53 bytes of metadata per
// replicated write on karma-aws8 under YCSB 95/5); DepCheck/DepOK (inside
// a DC: shard -> shard, and resumed session -> shard).
//
// Deliberate deviations from COPS:
//   - One DepCheck per owner server per write, listing every dependency
//     of the write that server owns and answered once all are committed,
//     instead of one dep_check per dependency (§4.3 lets them run in
//     parallel): a transport choice that changes the number of messages,
//     not when a write commits (protocol/fullrep/depcheck.go).
//   - dep_check succeeds on the exact version being committed, not on "the
//     version or a newer one" (COPS §4.3): under last-writer-wins a newer
//     concurrent write of the same key does not carry the older one's
//     dependencies, and with the weaker rule our randomized checker tests
//     found stale reads. So each server remembers every version committed
//     there until it is stable (committed in every DC), then prunes it.
//   - No chain replication inside a DC: each shard is one server (the
//     simulator's crash model keeps what a server synced).
//   - Dependencies are checked by message even when the owner is the same
//     server, so the code path is one.
//   - get_trans (COPS-GT) is not implemented: read_txn and write_txn answer
//     ErrUnsupported.
//   - Garbage collection of dependency metadata (COPS §5): a session's
//     nearest dependencies are reset at each put and skip stable versions,
//     and a server's committed-version set drops stable versions; a shard
//     learns stability from each origin's Replicates rather than from
//     COPS's global checkpoint time.
package cops

import (
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/fullrep"
)

// Name is the protocol's CLI name.
const Name = "cops"

func init() {
	protocol.Register(fullrep.New(fullrep.Mode{Name: Name, Causal: true,
		Summary: "COPS-Ideal: full replication, nearest dependencies, dep_check before remote apply (causal+)"}))
}
