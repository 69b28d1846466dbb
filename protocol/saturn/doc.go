// Package saturn registers "saturn": the Saturn baseline of c3.txt (§2,
// §5.1; Bravo et al., EuroSys 2017), causal+ consistency for a partially
// geo-replicated Cassandra by labels disseminated over one tree of FIFO
// links, remote writes applied one at a time in label order, and client
// migration through the tree.
//
// # What is implemented
//
//   - The datastore (§5.1, §5.2): package cassandra's model with RF
//     placement.dc_replicas (3 of 4 on c3-azure9) and LOCAL_QUORUM for
//     every operation, gated by the serializer (Preset.Gated) as C3's: a
//     coordinator (Saturn's frontend and gear) sends a write's data to
//     every replica of every replica DC and hands (key, version) to its
//     DC's serializer (LayerWrite); a replica applies a write only once it
//     holds both the data and the serializer's ExecuteWrite, then tells
//     the serializer (WriteExecuted). Reads bypass the serializer.
//   - The dissemination tree (tree.go): the minimum spanning tree over the
//     topology's RTTs (Prim's algorithm from the first declared DC, ties
//     broken by declaration order), deterministic, the same at every DC.
//     §5.1's authors hand-built a tree "to minimize the overall latency
//     between neighboring datacenters" (the optimal solver took weeks).
//     On c3-azure9 the MST makes several labels cross two or more hops
//     (the visibility cost c3.txt §2 names).
//   - One serializer per DC (RoleSerializer, "DC/serializer";
//     serializer.go): Saturn's label sink (it labels the DC's local writes
//     in the order their LayerWrites arrive), its remote proxy (it
//     executes remote writes), and the DC's tree node: every label it
//     takes (made here, or taken from a tree edge) leaves on each other
//     edge behind which some DC needs it (a DC replicating the write's
//     key, a migration's target), in the order it took them. FIFO links
//     and that order make every DC receive labels in causal order (§2).
//   - Execution in label order (apply.go): the DC's order is the order the
//     serializer took the labels it executes. A remote write starts only
//     once everything before it in that order has finished at a local
//     quorum: one at a time, the serialisation C3 removes (§3.5; scenario
//     testdata/serial_remote, against c3's parallel_remote). A local
//     write does not wait for remote labels: its label leaves at once and
//     it starts as soon as the writes that had started here when it was
//     labelled have finished at a local quorum; the coordinator answers on
//     LayerDone, sent at a local quorum.
//   - Clients: C3's client library (c3.NewLayered; home and current DC,
//     automatic migration, the cache purged on write and migration, and
//     tokens that name the current DC, so a session resumed elsewhere
//     migrates from it on its first operation). A
//     migration is a migrate label from the session's current DC's
//     serializer to the target it picks (the nearest possible DC), relayed
//     along the tree (§5.3.2: it queues behind the remote writes before
//     it); the target answers MigrateResponse when it reaches the front of
//     its order, everything before it applied (testdata/migrate_wait).
//     The migration's time is the operation's migrate_ms metric; the DC
//     the session is attached to is Reply.DC.
//
// # Faults
//
// Not in c3.txt; Saturn's own paper rebuilds the tree, which §5.1's
// authors did not implement, and neither do we.
//
//   - Reliable FIFO links (package fifo, shared with c3): every label is
//     numbered per tree edge, logged durably before it is sent, resent
//     with backoff until the neighbour's cumulative LabelAck; the receiver
//     takes labels in order, once each. A serializer takes a label, relays
//     it on its other edges (logging it in their channels) and records it
//     for execution in one synced batch, acknowledging it upstream only
//     after that: a serializer that crashes after relaying a label whose
//     copy is lost resends it after its restart, though its upstream
//     neighbour has forgotten it (testdata/serializer_crash_partial_send).
//   - Serializer crash and restart: the channels, the label counter and
//     every pending record ("q/": a label to execute here, kept until
//     every local target has executed it, a migration until answered) are
//     recovered; the records execute again in order, one at a time
//     (ExecuteWrite is idempotent at the replicas), and a local write's
//     record names its coordinator so that a resent LayerWrite is not
//     labelled twice. A local write whose LayerWrite was lost is labelled
//     when its coordinator resends it (a duplicate label executes as a
//     no-op).
//   - Datastore crash and restart: package cassandra's synced replicas and
//     hints, as for C3.
//   - Partitions: a cut tree edge stalls every label behind it, so remote
//     application beyond it stalls while local operations continue (local
//     writes wait for no remote label); the channels drain after the heal
//     and every DC converges (testdata/partition_tree_edge). With no tree
//     reconfiguration, a cut edge also stalls labels between DCs that can
//     still reach each other directly.
//
// # Messages
//
// wire/saturnpb (sizes approximate, payload only):
//
//   - Label: serializer → tree neighbour, a write label (~20 B + key +
//     origin DC name) or a migrate label (~20 B + session id + two DC
//     names).
//
// wire/c3pb (package c3's, shared):
//
//   - LabelAck: serializer → tree neighbour (~5 B).
//   - ClientMigrate: session → its current DC's serializer (~10 B + DC
//     names); MigrateWatch: session → the serializer of the DC it expects
//     to move to (~5 B); MigrateResponse: target serializer → session
//     (~10 B), or target → source serializer (~10 B + session id), which
//     relays it (c3's doc, Deviations).
//
// and wire/cassandrapb (package cassandra): ClientRead/ClientWrite/
// ClientReply, Mutation/MutationAck, ReadCmd/ReadResp, LayerWrite/
// LayerDone between coordinator and serializer, ExecuteWrite/
// WriteExecuted between serializer and replicas.
//
// # Deviations
//
//   - Always causal (c3.txt §5.1's Saturn "does not correctly enforce
//     causal consistency in all situations", for the datastore is not
//     linearizable inside a DC): ours is, by C3's client cache rule (a
//     read answers the newer of the quorum's value and the cached one; the
//     cache is purged on write and migration) and by gating every write,
//     local ones included, behind the serializer: a local write starts
//     only once the writes executing when it was labelled reached a local
//     quorum (its client may have read one of them at one replica), and
//     is visible nowhere before its label exists. Saturn's local writes
//     skip the label sink; ours cost one round trip to the serializer
//     inside the DC, and wait for no remote label.
//   - Labels are not timestamps (Saturn's gears label writes with
//     Lamport-ordered timestamps and the label sink orders them): the
//     serializer's arrival order is the DC's order, and clients carry no
//     label (C3's client library instead; c3.txt's YCSB emulated Saturn's).
//   - No tree reconfiguration, no partial-replication-aware tree solver:
//     the MST.
//   - The serializer is a node of its own, not co-located on a storage
//     server (§5.2); it is charged as a storage node by the cost model.
//   - read_txn and write_txn answer ErrUnsupported.
package saturn
