// Package cassandra is a Cassandra-like datastore model shared by several
// designs: C3's datastore (c3.txt §3.1, §4), c3.txt §5.1's Cassandra
// baselines E-LQ, E-Q and E-EQ, and ChainReaction's Cassandra-E and
// Cassandra-L (chainreaction.txt §7). Every preset claims only eventual
// consistency; the checker is expected to catch them where they break
// causality (TestLQCaught: on c3-azure9 under random faults, and on local3 without).
//
// Placement. A key's replica DCs are its partition's
// (topology.PartitionDCs: c3.txt Table 2; every DC on a topology without
// partitions); in each, the key lives on RF distinct servers of the DC's
// ring (topology.DCReplicas), RF being the preset's, else
// placement.dc_replicas, else 3 (c3.txt §5.2: "3 out of the 4 existing
// nodes").
//
// Requests. A session sends every operation to one server of its DC, its
// coordinator (Coordinator: a hash of the session id, as a driver picks a
// node), at the preset's level for the key (Preset.Levels: the remote
// levels when the client's DC does not replicate the key).
//
//   - A write gets an LWW timestamp from its coordinator (its clock in µs,
//     never going back, the server's index in the low 10 bits as the
//     deterministic tie-break), is recorded as a durable hint, and is sent
//     to every replica in every replica DC. The client is answered once the
//     level's replicas have acknowledged; the hint is resent (with backoff)
//     until every replica has (Cassandra's hinted handoff, kept here at the
//     coordinator instead of being handed to a live node).
//   - A read asks the local DC's replicas (LOCAL_QUORUM), the nearest
//     replica DC's (ONE, TWO, THREE) or every replica (QUORUM,
//     EACH_QUORUM), and answers with the newest version among the first
//     replicas to meet the level. An unanswered read is asked again, on
//     its retransmission, of every replica its level counts (the local
//     DC's for LOCAL_QUORUM, whose answers alone it takes; every replica
//     otherwise).
//   - Read repair inside a DC: a replica of the coordinator's DC that
//     answered a read with an older version than the one returned (also
//     one answering after the client was answered, for readLinger) is sent
//     the newer version as an unacknowledged Mutation (id 0).
//
// Levels (Level): ONE, TWO, THREE count replicas in any DC; LOCAL_QUORUM
// a majority of the coordinator's DC's RF; QUORUM a majority of every
// replica; EACH_QUORUM a majority in each replica DC.
//
// Presets (presets.go): cassandra-lq (LOCAL_QUORUM, TWO for a key not
// replicated in the client's DC), cassandra-q (QUORUM), cassandra-eq
// (EACH_QUORUM writes, LOCAL_QUORUM reads, TWO remote reads),
// cassandra-e (one site: RF 6, W THREE, R ONE; several DCs: RF 4, W TWO,
// R ONE) and cassandra-l (one site: RF 6, QUORUM = 4; several DCs: RF 4,
// EACH_QUORUM).
//
// The causality-layer hook (C3). With Preset.Gated, a Mutation is marked
// gated and a replica holds its data durably (acknowledging the
// coordinator) but applies it only once it also holds the layer's
// ExecuteWrite for the same key and version; it then sends WriteExecuted
// to the layer (gate.go; c3.txt §4: "a node executes a write only once it
// has both the data and the label"). The coordinator sends the write's
// key and version to its DC's layer (LayerWrite, Preset.Layer) right after
// the data, resends it with the hint until the layer's LayerDone, and
// answers the client on LayerDone, not on replica acks (§3.4: local writes
// wait for the layer too). A session of a gated store passes the highest
// version it has seen (ClientWrite.min_version) and the coordinator mints
// above it: LWW timestamps then grow along causality, whatever the skew
// of the coordinators' clocks.
//
// Messages (wire/cassandrapb; sizes are payload bytes, value excluded):
//
//   - ClientRead / ClientWrite: session → its coordinator (~20 B + key);
//     ClientReply: coordinator → session (~15 B).
//   - Mutation: coordinator → every replica (~25 B + key); MutationAck:
//     replica → coordinator (~20 B + key).
//   - ReadCmd: coordinator → replica (~10 B + key); ReadResp: replica →
//     coordinator (~20 B + key).
//   - ExecuteWrite: causality layer → local replica; WriteExecuted: replica
//     → layer (~20 B + key each), only with Preset.Gated.
//   - LayerWrite: coordinator → its DC's causality layer (~20 B + key);
//     LayerDone: layer → coordinator (~15 B), only with Preset.Gated.
//
// Faults. Replicas sync applied values ("d/key") and held gated data
// ("g/key@version") before acknowledging; coordinators sync hints ("h/id")
// before sending a write, resend them after a restart, and lose their
// in-progress client operations on a crash (the session times out). Ids
// embed the incarnation, so an acknowledgement to an earlier incarnation
// matches nothing but a recovered hint of the same id, key and version.
//
// Sessions move by token (token.go) carrying no causal context: a resumed
// session is a new one in its new DC, and promises nothing beyond the
// consistency levels (a read there may miss the session's own writes).
//
// Deviations from Cassandra: no digest reads (every asked replica returns
// its value); no speculative retry, only retransmission; hints are kept
// by the coordinator, not stored on another live node; no anti-entropy
// repair (hints always complete after a heal); the coordinator is a fixed
// server per session; read repair is always on, never probabilistic;
// read_txn and write_txn answer ErrUnsupported.
package cassandra
