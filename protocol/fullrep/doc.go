// Package fullrep is a fully replicated, sharded, last-writer-wins key-value
// store: every datacenter holds every key, sharded over its storage servers
// by consistent hashing; a client session talks only to servers of its own
// DC; a put is made durable at the local shard, acknowledged at once, and
// replicated asynchronously to the same shard in every other DC, with
// retries until each acknowledges.
//
// It is the common core of two protocols that differ in one switch:
//
//   - Causal (protocol/cops): COPS's dependency tracking (Lloyd et al.,
//     SOSP 2011, §3–§4; karma.txt §5 "COPS-Ideal"). Versions are Lamport
//     timestamps; a session carries its nearest dependencies and its
//     highest seen version; a replicated write is committed in a remote DC
//     only after a dep_check for each dependency succeeds there.
//   - Not causal (protocol/eventual): versions come from the server's
//     (possibly skewed) physical clock and replicated writes are applied on
//     arrival — Cassandra-style LWW at consistency level ONE/LOCAL_ONE.
//
// Versions are (counter << 10 | server index), so that two servers never
// mint the same version and LWW is a total order.
//
// Sessions can move between DCs with a token (token.go, k2.txt §VI-B): in
// causal mode a session resumed in another DC first has its dependencies
// dep_checked there, with the servers' own DepCheck/DepOK messages.
//
// # Message catalogue (wire/fullreppb)
//
// Sizes are payload bytes (protobuf) for a key of k bytes and a value of
// n, with small request ids; each frame adds one byte, its kind
// (docs/formats/wire.md). v is a version field with its tag, 3–6 bytes; p
// a Replicate's packed dependencies.
//
//	GetRequest -> GetReply     session -> local shard      4+k -> 4+n+v (+2 if stable)
//	PutRequest -> PutReply     session -> local shard      6+k+n+v + 4+k+v per dependency -> 2+v
//	Replicate -> ReplicateAck  shard -> same shard in every other DC
//	                           6+k+n+2v+p (eventual: 4+k+n+v) -> 2+k+v
//	DepCheck -> DepOK          shard (or resumed session) -> owning shard, same DC
//	                           one per owner server per waiting write (or
//	                           resumed session), listing its dependencies
//	                           that server owns: 4+k+v per dependency, the
//	                           same bytes both ways
//
// A replicated write that waits for dependencies sends each server of its
// DC that owns some of them one DepCheck listing them all (depcheck.go),
// and the owner answers with one DepOK, listing them again, once every
// one is committed there; a write whose dependencies one server owns
// costs two messages however many dependencies it has. Each write checks
// its own dependencies, even one another waiting write already checks:
// since an owner answers only when everything listed is committed, a
// shared check would make a write wait for another write's dependencies,
// which may themselves wait for it (scenario depcheck_not_shared in
// protocol/cops). On karma-aws8 under YCSB 95/5 (2 s, seed 1) this took
// cops from 6.02 to 4.90 messages per operation.
//
// A Replicate's dependencies travel packed (depcodec.go): a YCSB key
// ("user" and 8 digits) with its version costs 4–6 bytes. On karma-aws8
// under YCSB 95/5 with 200-byte values a cops Replicate carries about 53
// bytes besides its value (metadata_bytes_per_write; 170 before issue #17
// packed dependencies and stopped sessions depending on stable versions),
// an eventual one 23; each is acknowledged by a ReplicateAck of about 20.
//
// # Stable versions (causal mode; stable.go)
//
// A version committed in every DC is stable: a session that reads it does
// not add it to its dependencies (COPS §5.3's never-depend flag). The
// server that minted a version knows it is stable once every other DC has
// acknowledged it; each Replicate carries its sender's frontier (its
// oldest unacknowledged version's counter) to the same shard elsewhere,
// which marks the versions below it stable in its GetReplies.
//
// # Storage (per server)
//
// "d/<key>" holds the key's current version and value, which that record
// alone marks committed; "s/<key>@<version>" marks a committed version
// that is not its key's current one and not yet covered by a stored
// frontier (causal mode);
// "t/<origin>" holds, in its record's version, the highest stable frontier
// of origin (a server index) whose versions were pruned (prune.go);
// "r/<key>@<version>" holds an
// outgoing Replicate until every other DC acknowledged it, so that a crash
// never loses replication of an acknowledged write. All writes are synced
// before the acknowledgement or the visibility they enable.
//
// # Deliberate deviations
//
//   - COPS sends a dep_check per dependency, in parallel (§4.3); one
//     DepCheck per owner server listing several dependencies, answered once
//     all are committed, is a transport choice: a check asks the same
//     question and a write is committed at the same moment (once its last
//     dependency is), with fewer messages. A server answers a dependency
//     only with the rest of its DepCheck, so a DepCheck mixing a committed
//     version with one that arrives late is answered late: harmless, since
//     the write waits for both anyway.
//   - A dep_check on (key, v) succeeds only once version v itself has been
//     committed in the DC — applied, or received with its own dependencies
//     satisfied and then discarded because a newer version had already won
//     — not on COPS's "v or newer" (§4.3): a newer concurrent write of the
//     same key says nothing about v's own dependencies, and the randomized
//     checker tests found the resulting stale reads. Each server therefore
//     remembers every committed version until it is stable — committed in
//     every DC, so that every dep_check on it succeeds from its origin's
//     frontier alone — and then prunes it (prune.go): the set holds about
//     a round trip's worth of versions, however long the run.
//   - Stable versions are learned per origin from its Replicates, not from
//     COPS's global checkpoint time (§5.3): no extra messages, but a
//     shard learns an origin's frontier only when that origin next writes
//     a key the shard holds.
//   - The rest (no chain replication inside a DC, no get_trans) is
//     listed in protocol/cops and
//     protocol/eventual, whose doc.go files describe each protocol.
package fullrep
