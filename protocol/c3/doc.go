// Package c3 registers "c3": C3 (c3.txt), causal+ consistency for a
// partially geo-replicated Cassandra by a causality layer beside the
// datastore, with concurrent execution of remote writes and client
// migration.
//
// # What is implemented
//
//   - The datastore (§3.1, §4): package cassandra's model with RF
//     placement.dc_replicas (3 of 4 on c3-azure9, §5.2) and LOCAL_QUORUM
//     for every operation, gated (Preset.Gated): a coordinator sends a
//     write's data to every replica of every replica DC, then hands
//     (key, version) to its DC's layer (LayerWrite, §4 (i)); a replica
//     applies the write only once it holds both the data and the layer's
//     ExecuteWrite, then tells the layer (WriteExecuted, §4 (ii)). Read
//     repair stays inside the DC (§4); reads bypass the layer (§3.4).
//   - The causality layer (§3.2, §3.4, Algorithm 1; layer.go), one node per
//     DC (RoleLayer, "DC/layer"), full mesh: WriteCounter, ExecutingClock,
//     ExecutedClock, per-source WaitingOps, CurrentWrites and
//     AheadExecutedOps. A local write gets id = ++WriteCounter and deps =
//     ExecutingClock (l.23-26); its write label goes to every DC
//     replicating the key, this one included, and a clock label to every
//     other DC (l.27-32). Labels queue per source (l.33-41);
//     CheckWaitingOps runs queue heads whose deps ≤ ExecutedClock until
//     nothing moves (l.42-54); a clock label just advances the clocks
//     (l.57-59); a write label sends ExecuteWrite to the key's local
//     replicas (l.60-64) and finishes at a quorum (2 of 3) of them
//     (l.66-71); FinishedExecuting keeps out-of-order completions in
//     AheadExecutedOps and drains them (l.72-80).
//   - Local writes wait too (§3.4): the coordinator answers the client
//     only on the layer's LayerDone, sent when the write's own label
//     finished executing at a local quorum.
//   - Clients (§3.3, §3.5; session.go): a home DC (the session's NodeID's)
//     and a current DC. Before an operation on a key the current DC does
//     not replicate, the library migrates: ClientMigrate(possible DCs) to
//     the current DC's layer, which sends a migrate label with deps =
//     its ExecutingClock to the target it picks (l.19-22:
//     GetDatacenterWithLowestLoad is the nearest possible DC); the
//     target's layer queues it in WaitingOps[source] and answers
//     MigrateResponse when it can execute (l.33-35, 55-56): directly if
//     the session's MigrateWatch reached it first, else through the
//     source DC's layer (see Deviations). A session
//     goes back home as soon as home replicates the key it uses. The
//     migration's time is the operation's migrate_ms metric, the DC the
//     session is attached to is Reply.DC, and an operation run in a
//     current DC other than home counts one wan_round, a migration one
//     more.
//   - Intra-DC property (i) of §3.4 by the client cache (§4), not by
//     reading the same quorum: a read answers the newer of the quorum's
//     value and the cached one, and caches it; the cache is purged on
//     every write and migration. Why the cache: reading one fixed quorum
//     blocks a key's reads while any node of that quorum is down, which a
//     fault-tolerant store cannot accept; the cache costs nothing on the
//     wire. Purging is safe because a write or migration completes only
//     after every write executing when it was labelled (hence every
//     in-flight write the session may have read) has finished at a local
//     quorum (deps = ExecutingClock).
//
// # Defects of Algorithm 1 fixed
//
//   - l.79 assigns an undefined "ExecutedOps": FinishedExecuting here
//     advances ExecutedClock[src] over every contiguous id in
//     AheadExecutedOps[src] and removes them.
//   - Line number 2 appears twice (Π and LocalDC): no behavior.
//   - CurrentWrites is keyed by writeInfo, ambiguous when one key is
//     written twice: keyed here by (source DC, label id), carried in
//     ExecuteWrite/WriteExecuted as layer_id, matched with key and version.
//   - The peek at an empty queue (l.47) is guarded.
//   - Migrate labels have no id, yet queues are "ordered by identifier"
//     (l.6): queues are FIFO in the order of a per-pair channel sequence
//     number (Label.seq) that numbers migrate labels too.
//   - The paper's write completion (l.68) counts acks at a quorum; the
//     layer keeps resending ExecuteWrite to the remaining targets until
//     all have executed, or the third replica would hold its data forever.
//   - §3.4's prose sends labels only to replica DCs; Alg. 1's clock labels
//     to every other DC are followed, or ExecutedClock would stall.
//   - ExecutingClock[src]++ "will always equal labelId" (l.58, 61) is
//     written as ExecutingClock[src] = max(…, id), which stays true after
//     a recovery (below).
//   - LWW timestamps (not in the paper): the coordinator mints a write's
//     version above the highest version its session has seen
//     (ClientWrite.min_version, a Lamport clock the session carries), so a
//     write is newer than every write in its causal past whatever the
//     skew of the coordinators' clocks.
//
// # Moving a session by token
//
// Not in the paper, which migrates a session only inside one client
// library (§3.5): a session's token (token.go) names its current DC and
// the highest version it has seen; a session resumed from it in another
// process starts in that DC, so its first operation on a key its own DC
// replicates migrates it there through the old DC's layer, exactly as a
// migration inside one session (runtime/node's
// TestSessionMovesWithToken reads the session's own write in the new DC
// before it could have replicated there). Saturn's sessions do the same
// through its serializers.
//
// # Faults
//
// Not in the paper: §3.2 only says pairwise links "simplify
// fault-tolerance".
//
//   - Reliable FIFO channels (package fifo, shared with saturn;
//     channel.go): every label a layer sends is numbered per destination,
//     logged durably (synced) before it is sent and resent with backoff
//     until the destination's cumulative LabelAck; the receiver takes
//     labels only in sequence, each once.
//   - The durable label log: the sender's log ("o/") is what makes a layer
//     that crashed after sending a label to only some DCs resend it to the
//     others after its restart (testdata/layer_crash_partial_send);
//     without it those DCs would wait for the missing sequence number, and
//     their ExecutedClock for its id, forever. A receiver logs every label
//     it takes ("i/") before acknowledging it, and keeps it until
//     ExecutedClock passes it and, for a write label, every local target
//     has executed it (a migrate label until it executes): a layer that
//     restarts sends ExecuteWrite again to the targets of a passed write
//     that had not all executed it, which would otherwise hold its data
//     forever (found by torture's crash-node nemesis on c3-azure9).
//   - Layer crash and restart: WriteCounter, the channels' counters,
//     ExecutedClock and both logs are recovered; WaitingOps is rebuilt from
//     the taken labels not yet passed, in order; CurrentWrites and
//     AheadExecutedOps start empty and those labels execute again
//     (ExecuteWrite is idempotent at the replicas). ExecutingClock restarts
//     at the highest id taken from each source: any of them may have been
//     executing, and a later local label must depend on it. A local
//     write's coordinator resends LayerWrite until LayerDone (with its
//     durable hint), so a write whose label was lost is labelled again (a
//     duplicate label is harmless: executing a write twice is a no-op).
//   - Datastore crash and restart: replicas sync applied values and held
//     gated data before acknowledging; coordinators sync hints (data and
//     the pending LayerWrite) and resend them (package cassandra).
//   - Partitions: labels from a cut-off DC wait in its channel, so remote
//     writes that depend on it wait too, while local operations go on
//     (local labels depend only on what is executing here); after the heal
//     the channels drain and every DC converges. A migration across a cut
//     waits and the session's operation times out; it retries its
//     ClientMigrate every 2 s (each retry is one more migrate label).
//
// # Messages
//
// wire/c3pb (sizes approximate, payload only; n = number of DCs):
//
//   - Label: layer → layer, a write label (~15 B + 2n + key), a clock
//     label (~10 B + 2n) or a migrate label (~20 B + 2n + session id);
//     LabelAck: layer → layer (~5 B).
//   - ClientMigrate: session → its current DC's layer (~10 B + DC names);
//     MigrateWatch: session → the layer of the DC its current layer will
//     pick, with each ClientMigrate (~5 B); MigrateResponse: target
//     layer → session (~10 B), or, when the target has no MigrateWatch
//     for that migration, target layer → source layer (~10 B + session
//     id), which relays it to the session.
//
// and wire/cassandrapb (package cassandra): ClientRead/ClientWrite/
// ClientReply between a session and its coordinator, Mutation/MutationAck
// and ReadCmd/ReadResp between coordinator and replicas, LayerWrite/
// LayerDone between coordinator and layer, ExecuteWrite/WriteExecuted
// between layer and replicas.
//
// # Deviations
//
//   - read_txn and write_txn answer ErrUnsupported.
//   - The layer is a node of its own, not co-located on a storage server
//     (§5.2); the default cost model charges its inputs a tenth of a
//     storage node's (in-memory metadata work, runtime/sim's
//     DefaultCostModel).
//   - GetDatacenterWithLowestLoad is the nearest possible DC.
//   - MigrateWatch (not in the paper): a node can reach a session only if
//     the session sent it something since the node started, for the live
//     runtime answers a session on the connection the session opened
//     (ARCHITECTURE.md, "Replies to sessions"). Alg. 1 l.56 has the target
//     layer answer the session, which asked only the source layer; so the
//     session also sends MigrateWatch to the target (the nearest possible
//     DC from its current one, the source's own choice, l.20), and the
//     target answers directly once it has the watch for that migration
//     (or a later one). Without it (the watch arrived after the label
//     executed, was lost, or the target restarted since) the target's
//     MigrateResponse names the session and goes to the source layer,
//     which relays it: one WAN leg more when the session is not at its
//     current DC. A source layer restarted meanwhile cannot relay it, and
//     the session's ClientMigrate resend (with a new watch) asks again.
//     Without either, every migration stalled on the live runtime.
package c3
