// Package k2 registers the "k2" protocol, K2, and its "paris" variant,
// PaRiS*, which share this implementation.
//
// Source: Ngo, Lu, Lloyd, "K2: Reading Quickly from Storage Across
// Many Datacenters" (k2.txt): §III (architecture, clocks, client library,
// local write-only transactions), §IV (replication, replicated commit,
// multiversioning, GC), §V (cache-aware read-only transactions, Fig. 5),
// §VI-A (DC failures), §VI-B (switching DCs); PaRiS* is §VII-A.
//
// How it runs:
//   - Placement (§III-A): every DC holds every key's metadata, sharded over
//     its servers (topology.ServerIndex); a key's value is stored in its f
//     replica DCs (topology.ReplicaDCs, f = placement.replication_factor,
//     2 when unset). Protocol.Replicas are those servers (they converge on
//     the value); VisibleAt is the key's server in every DC.
//   - Clocks (§III-A): servers and sessions keep Lamport clocks advanced
//     on every message; a timestamp is the clock in the high bits and the
//     stamping server's index in the low 12.
//   - Client library (§III-B): one-hop deps ⟨key, version⟩ and read_ts.
//     After a write-only transaction deps become ⟨coordinator key,
//     version⟩ and read_ts rises to the version; after a read-only
//     transaction every version read is added and read_ts rises to ts.
//   - Write-only transactions (§III-C; a put is a one-key one): the
//     session picks a random coordinator key and sends each local
//     participant its writes (the coordinator all of them, the deps and the
//     cohorts). Participants mark their keys pending (a cohort persists the
//     mark and votes Yes); the coordinator then takes its current time as
//     the version and the EVT, commits, persists the decision, answers and
//     sends Commit until each cohort acknowledges. A non-replica key
//     commits its metadata and keeps the value pinned until phase 1 is
//     acknowledged, then in the DC cache.
//   - Replication (§IV-A): phase 1 sends each key's value to its server in
//     every other replica DC (IncomingWrites, persisted, acknowledged);
//     phase 2 starts once every replica DC acknowledged — or, after 1 s,
//     once one has (§VI-A) — and sends the metadata with the list of DCs
//     known to hold each value to the transaction's coordinator key's
//     server in every other DC. Retransmitted until acknowledged, with
//     backoff (0.5 s doubling to 4 s) and at most 16 records a server
//     per 100 ms tick, oldest first, so that a DC working through a
//     backlog after a partition is not buried under retransmissions of
//     what it has queued but not yet served.
//   - Replicated commit (§IV-A): that remote coordinator checks the deps
//     against the local servers owning them, one DepCheck per server
//     naming all of its deps (a server answers those already committed in
//     one DepOK and each other one alone once that exact version is
//     committed; scenario dep_checks_batched), asks every local participant to prepare (a
//     replica key only once its value is in IncomingWrites; the pending
//     mark is persisted), then sets the DC's EVT to its current time,
//     commits, and sends RemoteCommit until every participant acknowledges.
//   - Multiversioning (§IV-A, §V-C): each server keeps, per key, the
//     committed versions with their EVT; the key's version at logical time
//     t is the highest version with EVT ≤ t, so an older write arriving
//     late never hides a newer one (last writer wins) and an older version
//     with an earlier EVT stays readable where it was the newest. A replica
//     server keeps every version's value; a non-replica server only
//     metadata. The latest version's LVT is the server's current time,
//     clipped below the earliest pending transaction on the key.
//   - GC (§IV-A): a version superseded more than 5 s ago and not returned
//     by a first round in the last 5 s is no longer returned by first
//     rounds (a key's "floor", below which find_ts never goes); read
//     protection ends 10 s after the version was superseded, so that
//     clients reading hot keys at an old read_ts make progress. Versions
//     are dropped from memory 15 s after they were superseded.
//   - Read-only transactions (§V-C, Fig. 5; a get is a one-key one): round
//     1 asks each local server for every version valid at or after read_ts
//     with [EVT, LVT] and the value when stored or cached here; it never
//     blocks. find_ts picks, among read_ts and the returned EVTs (never
//     below read_ts or a key's oldest kept version), the earliest time
//     where (1) every key, else (2) every non-replica key, else (3) the
//     most keys have a value. Round 2, only for keys without one at ts:
//     the server moves its clock past ts, waits for transactions pending
//     on the key that were prepared at or before ts (about one local round
//     trip), takes the version at ts and, when its value is not here,
//     fetches ⟨key, version⟩ from the nearest DC of its holder list; the
//     remote server answers at once from IncomingWrites or its versions,
//     never waiting. The fetched value is cached.
//   - Cache (§III-A): per server LRU of keys, the topology's
//     placement.cache_fraction (sim --cache-fraction; 5% without it, §VII-B;
//     Fig. 9 also runs 1% and 15%) of the keys of the run's dataset (of
//     1M when unknown) split over the DC's servers, holding
//     one value per key: the newest version's it was given (a fetched
//     older version is returned, not cached). A session whose read_ts
//     lags thus finds the older version uncached once a newer one is, and
//     find_ts moves it to the newer one's EVT instead of fetching.
//   - PaRiS* (§VII-A): no DC cache (local non-replica writes stay pinned
//     until phase 1 only); each session keeps its own writes for 5 s and
//     find_ts counts them as values.
//   - Moving a session (§VI-B, protocol.Mover and Resumer; token.go): the
//     token carries the session's one-hop dependencies and its Lamport
//     clock, not read_ts (EVTs are per DC). The session resumed in another
//     DC sends each dependency's owner there a DepCheck (resent with
//     backoff) and answers nothing until each is answered DepOK, that
//     exact version being committed there; then it carries on with those
//     dependencies and read_ts at or above their EVTs there.
//
// Metrics (Reply.Metrics / Tags): wan_rounds (1 when a round-2 value was
// fetched from another DC, else 0; writes 0), remote_fetch_waited (always
// 0: the remote side never waits), remote_fetch_missing (fetches that
// found nothing and were retried, must stay 0), staleness_ms (the longest
// any value read had been superseded in the DC), staleness_key_ms (the
// same for the transaction's first key alone: a sample of §VII-D's
// per-key staleness), cache_hits; tags
// second_round and cache_hit.
//
// Message catalogue (wire/k2pb; sizes are payload bytes, keys ~12 B,
// values V): ReadReq/ReadReply (session ↔ local server, ~20 B + keys /
// ~30 B per version + values); ReadAtReq/ReadAtReply (session ↔ local
// server, ~30 B / ~40 B + V); Fetch/FetchReply (server → server of a
// replica DC, ~30 B / ~30 B + V); WriteReq/WriteReply (session ↔ local
// participants, ~40 B + writes + deps / ~20 B); Yes, Commit, CommitAck,
// Abort, Status (local cohort ↔ coordinator, ~30–40 B); Replicated
// (coordinator → local cohort, ~20 B + keys); Phase1/Phase1Ack (origin
// coordinator → key's server in a replica DC, ~25 B + V / ~25 B);
// RemoteTxn/RemoteTxnAck (origin coordinator ↔ the coordinator key's
// server in another DC, ~20 B + deps + keys with holder lists / ~15 B);
// RemotePrepare/RemotePrepared, RemoteCommit/RemoteCommitAck (remote
// coordinator ↔ local participants, ~20 B + keys); DepCheck/DepOK (remote
// coordinator, or a session resumed from a token, ↔ local dep owner,
// ~10 B + ~20 B per dep).
//
// Deliberate deviations:
//   - The origin coordinator replicates the whole transaction (phase 1 for
//     every key, phase 2 to each DC's coordinator) rather than each
//     participant its own keys; the remote coordinator pushes each
//     participant its keys (RemotePrepare) rather than cohorts notifying it.
//     The messages and rounds are the same; the state is in one place.
//   - A DC that replicates every key of a transaction gets its metadata
//     with phase 1; others after phase 1 (the paper's order).
//   - Dependency checks succeed on that exact version being committed, not
//     a newer one (as our cops: under last-writer-wins a newer concurrent
//     write does not carry the older one's dependencies).
//   - Local two-phase commit is made crash-safe: cohorts persist pending
//     marks, the coordinator persists its decision, a coordinator missing a
//     vote for 1 s aborts, and a cohort pending for 2 s asks its
//     coordinator (unknown there means aborted, for good).
//   - The pending check is a clip: a version's LVT ends before the earliest
//     pending transaction's prepare time instead of its value being
//     withheld.
//   - GC works on memory only (storage keeps every version), and a replica
//     server keeps superseded values 30 s for remote fetches instead of
//     tracking when every non-replica DC has moved past them.
//   - A fetch unanswered within the RTT + 200 ms goes to the next holder
//     (§VI-A's "live replica"); the abandoned request is not a round.
//   - A fetch is bounded: when no holder has given the version within
//     5 s (the transaction timeout of §IV-A, past which the client has
//     given up), the second round answers unavailable (ReadAtReply's
//     unavailable) and the read-only transaction fails, instead of the
//     server retrying forever. The paper's constrained topology says the
//     version is always there; with every holder down it is not
//     (scenario fetch_gives_up).
//   - A moved session's read_ts is raised to the clock each dependency's
//     server answered at (at or above the dependency's EVT there), not to
//     the EVT itself, which DepOK does not carry.
//   - Fast warm-up, simulator only (sim --warm-reads, bench.SimSpec's
//     WarmReads; server.prewarm): §VII-B drops its runs' first 9 minutes
//     while the caches fill. Given a warm-up of reads that were drawn but
//     not run (protocol.Dataset's Warm: the keys read, least recently
//     first), a server on its first incarnation starts its LRU with the
//     loaded values (version 0) of the most recently read non-replica keys
//     it owns, as those reads, all before any write, would have fetched
//     and cached them. The values are the loaded versions' own, so every
//     read they serve is one a fetch would have served; writes then
//     replace them in the run's own warm-up. PaRiS* has no cache to fill.
package k2
