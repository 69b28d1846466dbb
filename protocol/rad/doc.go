// Package rad registers the "rad" protocol: RAD ("replicas across
// datacenters"), the baseline of K2 (k2.txt §VII-A): Eiger configured so
// that each replica of the data is split across the datacenters of a
// replica group.
//
// Sources: k2.txt §II-B (Eiger's rounds on RAD: a second read round when
// the first is inconsistent, plus one more wide-area round trip to check
// the status of pending updates) and §VII-A (RAD itself); Lloyd,
// Freedman, Kaminsky and Andersen, "Stronger Semantics for Low-Latency
// Geo-Replicated Storage" (Eiger), NSDI 2013: §4.1 (Lamport clocks, one-hop
// dependencies), §4.2 and §5.2 (read-only transactions: validity intervals
// [EVT, LVT], the effective time, the second round), §4.3 (write-only
// transactions: 2PC from the client, the coordinator key), §4.4 and §5.3
// (replicated write-only transactions: cohort notification, dependency
// checks by the coordinator, 2PC in the remote replica).
//
// # Placement
//
// topology.ReplicaGroups(f) splits the DCs into f replica groups (f =
// placement.replication_factor, 2 when the topology names none; on
// k2-emulab6 {va, sp, tyo} and {ca, ldn, sg}); each group holds one copy
// of every key, on one DC of the group (topology.ReplicaDCs) and there on
// the server of the DC's ring (topology.ServerIndex). A session sends
// every request to the server of its own group that holds the key,
// wherever in the group it is: most requests cross the wide area. No DC
// cache (k2.txt §VII-A).
//
// # Clocks and versions
//
// Every server keeps a Lamport clock; a timestamp is counter << 10 | the
// server's index, unique across servers. As in Eiger's LamportClock, the
// counter ticks on every message a server handles and every message it
// sends, and jumps past any time a message carries: a busy server's clock
// runs ahead of a quiet one's, so a key just written on a hot server can
// have an EVT above the LVT of keys on quieter servers, and the read-only
// transaction then takes its second round (k2.txt §VII-C). Clients carry
// their time to every server they read, which keeps clocks close: at the
// load of `causeway repro k2` the share of second rounds is the same with
// and without the per-message ticks. A write-only transaction's
// version is its origin coordinator's time at commit, the same in every
// group (last writer wins by version). Each group commits it at its own
// EVT (earliest valid time). A server keeps every committed version of a
// key with its EVT (chain.go); the version visible at time t is the highest
// version committed with EVT <= t. A restarted server's clock starts above
// every time it handed out before (a stored lease, clock.go).
//
// # Read-only transactions (read.go, session.go)
//
// get is a one-key read_txn. Round 1 sends each server of the session's
// group its keys with the session's clock ts (which the server absorbs).
// The server answers, without blocking, each key's visible version with
// its validity interval [EVT, LVT]: LVT is the server's current time, or
// the earliest prepare time of a prepared transaction writing the key (it
// will commit above it). The session takes the effective time eff = the
// smallest LVT at or above the largest EVT (Eiger's client library), and
// not below ts; keys whose LVT is below eff are read again at eff (round
// 2). A round-2 read waits for every prepared transaction on the key that
// prepared below eff; the server asks that transaction's coordinator for
// its decision (its vote, resent, is the status check) — Eiger's
// indirection, which crosses the wide area when the transaction's
// participants are in several DCs. The session then depends on every
// version read and sets ts to eff.
//
// # Write-only transactions (wot.go)
//
// put is a one-key write_txn. The session picks the coordinator key at
// random among the keys (K2 §III-C, after Eiger) and sends each server of
// its group its writes, all the keys and the coordinator key; the
// coordinator's sub-request also carries the session's one-hop
// dependencies. Each participant prepares (a synced record) and votes
// Prepared to the coordinator; the coordinator, once every participant
// voted, commits at version = EVT = its time, answers the session and
// sends Commit. The session then depends on (coordinator key, version)
// alone. A coordinator that has not heard every vote after 2 s aborts
// (Abort): the write was never applied, and the session answers
// unavailable.
//
// # Replication (wot.go, replicate.go)
//
// After committing, each origin participant sends its writes to the
// server holding each key in every other group (its equivalent servers),
// the coordinator key's message with the dependencies, and resends until
// acknowledged (a synced record survives crashes). A receiving server
// stores and acknowledges them; once it holds all its keys of the
// transaction, a cohort notifies the coordinator (the server of the
// coordinator key in that group). The coordinator checks each dependency
// with the server of its own group holding it — k2.txt §VII-A: these checks
// cross the wide area — which answers once that exact version is
// committed. Once every cohort notified and every dependency is
// committed, it prepares, sends Prepare, collects Prepared, commits at its
// group's EVT and sends Commit.
//
// # Moving sessions (token.go)
//
// A session's token carries its one-hop dependencies and its clock; a
// session resumed in another DC (of any group) dep-checks each dependency
// with the server of its group holding it and holds its operations until
// all are committed there (k2.txt §VI-B).
//
// # Message catalogue (wire/radpb; sizes without values)
//
//	ReadRequest   session -> key's server in its group      ~20 B + keys
//	ReadReply     server -> session                         ~30 B per key + values
//	WriteRequest  session -> participant in its group       ~60 B + keys + deps + values
//	WriteReply    coordinator -> session                    ~15 B
//	Prepared      participant -> coordinator (vote, status)  ~45 B
//	Commit        coordinator -> participant                 ~60 B
//	Abort         origin coordinator -> participant          ~40 B
//	Replicate     origin participant -> equivalent server    ~20 B + keys + deps + values
//	ReplicateAck  equivalent server -> origin participant    ~12 B (with its backlog)
//	Notify        replicated cohort -> coordinator           ~40 B
//	Prepare       replicated coordinator -> cohort           ~40 B
//	DepCheck      coordinator (or resumed session) -> dependency's server  ~20 B + key
//	DepOK         dependency's server -> coordinator (or session)  ~30 B + key
//
// # Storage
//
// d/<key>: the visible version (value, EVT); s/<key>@<version>: committed
// here; p/<txn>: a prepared origin sub-request; i/<txn>/<from>: a received
// Replicate; q/<txn>: a replicated sub-request prepared; c/<txn>: a
// coordinator's decision; r/<version>: replication not yet acknowledged;
// k/clock: the clock lease. All are synced before the message or reply
// they enable.
//
// # Incarnations
//
// No node hands out an identifier it later matches replies against:
// origin transactions are named by the session (its id, a random nonce
// and its request number), replicated ones by their version, dependency
// checks by (key, version), replication acknowledgements by (version,
// sender). A message to an earlier incarnation is handled as a
// retransmission by the new one.
//
// # Deliberate deviations
//
//   - A dependency check succeeds only once that exact version is
//     committed in the group, not "that version or a newer one" (as in
//     protocol/cops: with last writer wins a newer concurrent version does
//     not carry the older one's dependencies).
//   - A participant's vote, resent every 500 ms (doubling to 4 s) until
//     the decision arrives, is also its status check; a parked round-2
//     read sends it at once. Eiger's coordinator answers a check for an
//     undecided transaction later; ours stays silent and answers the
//     resent vote or sends the decision when it makes it.
//   - Origin coordinators abort transactions whose votes did not arrive
//     within 2 s, so that crashes and partitions leave nothing prepared
//     for ever (Eiger assumes no failures inside a DC; RAD's 2PC crosses
//     the wide area).
//   - Versions superseded more than 10 s ago are collected (Eiger: 5 s),
//     keeping the highest; a restarted server knows only each key's
//     visible version. A round-2 read below what a server still knows
//     fails the transaction (unavailable).
//   - wan_rounds counts a round-2 read that waited for a transaction whose
//     participants are in several DCs as one more round (k2.txt §II-B's
//     third round); a write_txn counts the longest chain of wide-area
//     one-way hops (session -> cohort -> coordinator -> session) in round
//     trips, rounded up.
//   - Replication backpressure (backpressure.go): each ReplicateAck
//     reports how many transactions its receiver holds uncommitted, and a
//     server holds new client writes (at most 500 ms each) while a report
//     younger than 500 ms is over 64. Eiger's replication is unbounded;
//     in RAD a group spread over DCs commits a chain of causally dependent
//     replicated writes one wide-area one-way per link, so a faster group
//     (one DC: local3 with f=2) could run minutes ahead of it: a 15 s run
//     left 3,600 writes uncommitted, draining at ~50/s. Old reports are
//     ignored, so a partitioned group does not stop writes elsewhere.
package rad
