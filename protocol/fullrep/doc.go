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
//	GetRequest -> GetReply          session -> local shard
//	PutRequest -> PutReply          session -> local shard
//	Replicate -> ReplicateAck       shard -> same shard in every other DC
//	DepCheck -> DepOK               shard (or resumed session) -> owning shard, same DC
//
// # Storage (per server)
//
// "d/<key>" holds the key's current version and value; "s/<key>@<version>"
// marks a committed version (causal mode); "r/<key>@<version>" holds an
// outgoing Replicate until every other DC acknowledged it, so that a crash
// never loses replication of an acknowledged write. All writes are synced
// before the acknowledgement or the visibility they enable.
//
// # Deliberate deviations
//
//   - A dep_check on (key, v) succeeds only once version v itself has been
//     committed in the DC — applied, or received with its own dependencies
//     satisfied and then discarded because a newer version had already won
//     — not on COPS's "v or newer" (§4.3): a newer concurrent write of the
//     same key says nothing about v's own dependencies, and the randomized
//     checker tests found the resulting stale reads. Each server therefore
//     remembers every committed version (docs/status.md, known gaps).
//   - The rest (no chain replication inside a DC, no get_trans, no
//     dependency garbage collection) is listed in protocol/cops and
//     protocol/eventual, whose doc.go files describe each protocol.
package fullrep
