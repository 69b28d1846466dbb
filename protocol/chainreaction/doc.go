// Package chainreaction is ChainReaction (Almeida, Leitão and Rodrigues,
// EuroSys 2013; chainreaction.txt §3–§5), a causal+ key-value store on a
// variant of chain replication, on the reusable core of package chain,
// and its baseline cr-cops (§7.2). It implements the single-site protocol
// (§3), geo-replication (§4) and get-transactions (§5), on one site and
// geo-replicated.
//
// # What it implements
//
//   - Placement (§3.2): chains of R consecutive servers of the DC's ring
//     (placement.chain_length), head first; k = ⌈R/2⌉ (K), which gives the
//     paper's R = 6, k = 3 (§7.1, preset chainreaction-1dc) and R = 4,
//     k = 2 (§7.2, chainreaction-2dc).
//   - Put (§3.3, §3.5): the session (client library and proxy in one)
//     first runs the dependency stabilization procedure — one blocking
//     Stabilize per dependency, to the tail of that key's chain, answered
//     once that version or a newer one is DC-Write-Stable — then sends the
//     put to the head; node k answers with (version, chainIndex k−1);
//     propagation past k is lazy, at low priority.
//   - Client metadata (§3.4–§3.5): one (key, version, chainIndex) entry per
//     key accessed since the last put; a put depends on every entry, and
//     afterwards its own entry alone remains; entries of stable versions
//     are dropped (GC).
//   - Get (§3.6): a node chosen uniformly in [head, chainIndex], or in the
//     whole chain without an entry (a stable version has none); the reply
//     carries value, version, the node's index (node k's, for a version
//     node k acknowledged: every node up to k holds it) and the stable
//     flag; the
//     update rules i) stable → entry dropped (chainIndex R), ii) same
//     version → max(chainIndex, tindex), iii) newer → tindex. "pversion",
//     never defined, is the entry's version.
//   - Get-transactions (§5, package chain's sequencer.go and txn.go, txn.go
//     here): a sequencer (node q0, beside the master on one site, one per
//     DC under geo-replication) numbers every put (the session sends its
//     put there, the sequencer forwards it to the head, and the number
//     becomes the version's counter and is kept with the version) and
//     gives a get-transaction its snapshot; the session reads every key at
//     its chain's head, which returns the newest version numbered at or
//     below the snapshot (heads keep every version newer than the newest
//     stable one, and that one: the multiversion of §6), or aborts when it
//     has dropped that version;
//     on an abort the session takes a new snapshot and reissues every
//     read. Each read updates the metadata as a get served by the head
//     (chain index 0). The reply's metric txn_aborts counts the aborted
//     tries.
//   - Faults (§3.7): the core's repairs; a node behind the session's
//     version forwards a get upward (stale chainIndex); the proxy
//     retransmits a put to the new head, which recognises its request id;
//     nodes before k serve only k-acknowledged versions (the head-failure
//     gap, reading notes), and one holding a newer version holds the read
//     until node k's acknowledgement covers it (package chain, kwait.go).
//     A new session first fetches the master's view, with the servers
//     the master suspects, which its gets avoid (package chain,
//     Client.Fetch; scenarios fresh_session_view and
//     fresh_session_suspects).
//
// # Geo-replication (§4; on a topology of several DCs)
//
//   - A chain per DC (§4.1): every DC holds every key on its own chain of
//     R of its servers (chainreaction-2dc: R 4, k 2); the core's
//     Layout.Geo. Membership stays one master (in the first DC), but a
//     server's state transfer after a view change waits only for its own
//     DC's servers.
//   - Versions (§4.1, §4.3): the head of the writing DC (the origin)
//     assigns a version counter<<20 | DC<<16 | epoch whose counter exceeds
//     the key's newest version there, the head's clock and the highest
//     version the client has seen of any key, by a get, a get-transaction
//     or its own put (Put.min_version): a Lamport
//     clock with the DC as tie-break. A remote DC keeps the origin's
//     version, so versions compare alike everywhere: a causally later
//     write has a larger version, and concurrent writes order by (clock,
//     DC), §4.3's last-writer-wins. This scalar stands for the paper's
//     version vector (see deviations). (With only the key's own version
//     as floor, a DC whose clock runs ahead let observers disagree on the
//     order of concurrent writes of two keys: torture on local3.)
//   - Shipping: the tail of the origin's chain ships every version written
//     in its DC to the DC's remote-proxy (Ship, one key's versions in
//     order), and a version becomes DC-Write-Stable only once the proxy
//     has logged it (ShipAck); so a client's put, which first stabilizes
//     its dependencies, always reaches the proxy after them.
//   - Remote-proxies (§4.1.1): each DC's proxy (node p0, role
//     remote-proxy) cuts what it logged every 5 ms into a remote-update
//     (RemoteUpdate: first sequence number, rvp, puts), synced, then sends
//     it to every other DC's proxy and resends it until that DC
//     acknowledges (RemoteAck, the prefix of the origin's puts it has
//     applied), 300 ms after sending it, then after twice the last wait
//     each time, up to 2.4 s (as it resends a queued put to its head and
//     tail, below): resends of every outstanding batch and put every
//     300 ms outgrew what loaded nodes could serve, and the DCs never
//     converged. A receiver delivers an origin's remote-updates in FIFO
//     order, once it has delivered from every third DC what the origin had
//     when it cut the batch (the reading notes' rule: local[i] = m[i],
//     local[l] ≥ m[l] for l ≠ i, j; then local[i] = m[i] + n).
//   - Parallel apply with bloom filters (§4.1.2): a delivered put waits in
//     the proxy's queue while any put queued before it has a reply filter
//     its dependency filter contains (the session's filter of every key in
//     its metadata; 163 bits, 3 hashes, 10% false positives at 34 keys);
//     then the proxy sends it to the local head (Put with remote_version)
//     through its DC's sequencer (SeqPut), which numbers it on arrival
//     (see "Get-transactions under geo-replication"); the head applies it
//     at the origin's version if newer than what it holds, else discards
//     it (§4.3), and the proxy asks the tail (Stabilize) to
//     answer once the key is stable at that version or a newer one. Then
//     the put leaves the queue, and the proxy acknowledges its origin.
//   - Global-Write-Stable (§4.1): once every other DC acknowledged a put,
//     the origin's proxy tells the key's tail (GlobalStable), which passes
//     it up the chain. A get reply's stable flag then means
//     Global-Write-Stable, and only that collects a metadata entry (a
//     DC-Write-Stable one may still be a dependency a remote DC has not
//     applied).
//   - §4.4: a put is answered after k nodes of its DC. A DC that dies keeps
//     what its proxy had not yet cut and sent: those writes never reach the
//     other DCs (in a run: reads elsewhere keep returning the older
//     value, and `replicas` shows the DCs diverging on those keys while the
//     DC is down); the checker accepts it, since no client of another DC
//     could have read them.
//
// # Get-transactions under geo-replication (§5's last paragraph)
//
// Each DC has its own sequencer (§5: "local to each datacenter"), which
// numbers the puts of that DC's sessions and, on arrival, every remote
// put the DC's remote-proxy applies: the proxy sends it through the
// sequencer (SeqPut with remote_version), which forwards it, numbered,
// to the head. The head keeps that number with the version (Update.seq
// carries it down the chain for a successor that becomes head), while the
// version stays the origin's (last-writer-wins compares versions alike in
// every DC). A get-transaction runs wholly in its session's DC: its
// snapshot is that DC's sequencer clock, and each head returns the newest
// version (in version order) among those this DC numbered at or below
// it. A remote put is thus in a snapshot only if it reached the DC's
// sequencer before the snapshot was taken, and the proxy sends it there
// only once its dependencies are applied in the DC (the bloom-filter
// queue, then the tail's Stabilize), so each snapshot is a causal cut of
// the DC. Comparing the snapshot with the origin's counter instead would
// let a head serve a remote put that arrived after the snapshot beside a
// read, at another head, that missed its dependency (scenario
// geo_txn_remote_race); a head that dropped the version the snapshot asks
// for (a newer remote version became stable) aborts, and the session
// retries with a new snapshot (geo_txn_abort_retry); a server persists a
// remote version's number beside it, so that it serves get-transactions
// after a restart (geo_txn_restart). Sequence and version
// order may differ (a remote version, older by last-writer-wins than a
// local one, numbered after it), hence a scan of every kept version. Every
// remote put costs one more intra-DC hop (proxy -> sequencer -> head).
//
// # cr-cops (§7.2's baseline)
//
// The same code with k = R (the tail answers puts, after its proxy logged
// the version, and reads go to the tail, which holds a get while its
// newest version is not yet logged), no dependency stabilization, and
// COPS-style metadata: a put
// carries the explicit list of every (key, version) read since the last
// put (Geo.deps) instead of a filter, so its wide-area metadata grows with
// its dependencies; the receiving proxy holds it while a put of one of
// those keys is queued before it.
//
// While a chain has fewer full members than R (a DC's restarted servers
// quarantined as joining tails, §3.7), node k is its last full member,
// ahead of the tail that ships: node k then holds a put's answer, and
// node k, the joining tails after it and (forwarded reads) the nodes
// before it serve only versions already logged at the proxy (stable).
// Were node k to answer a version the tail had not shipped yet, the
// client's next put, on another chain, could be shipped first, and
// nothing at the receiving proxy (which only checks puts queued before
// it) would hold it back.
//
// # Moving a session (k2.txt §VI-B, token.go)
//
// Both protocols' sessions move by token (protocol.Mover,
// protocol.Resumer): the token carries the metadata table's entries as
// (key, version) — ChainReaction's unstable entries (§3.4–3.5), cr-cops's
// COPS dependencies — and the highest version the session has seen (its
// next put's floor, §4.3). A session resumed in DC d runs the dependency
// stabilization procedure (§3.5) on every entry in d (request id 0,
// resent with the session's backoff): a Stabilize to the tail of the
// key's chain in d for a version written in d, to d's remote-proxy for
// one written elsewhere (answered once the proxy has applied it, or a
// later version of the key from the same DC: a tail's "or a newer one"
// may be a concurrent version that won by last-writer-wins while the
// entry's dependencies are still on their way); it sends no operation
// until every entry is answered; the entries then resume with any node of the chain as their
// chain index (stable at every node), pinned under geo-replication until
// the next put. Scenarios move_session and move_session_cops: a session
// moves while its DC's remote-updates are held, and its read of a key in
// its last put's past waits for them (removing the stabilization makes
// it read nothing); move_session_lww: the same with the token's entry
// overwritten by a concurrent newer version in the new DC (asking the
// tail instead of the proxy makes it read nothing).
// TestRandomMovesStayCausal: random moves under jitter and a partition,
// checked. Live: runtime/node's TestSessionMovesWithToken. Known gaps
// (token.go): a restarted proxy forgets what it applied, and a version
// never shipped (a late put, the open seed-496 bug) is never answered.
//
// # Messages
//
// Those of package chain (wire/chainpb, sizes in its doc): SeqPut
// (session -> its DC's sequencer -> head) and PutReply (node k ->
// session), Get/GetReply and Stabilize/StabilizeReply between session and
// servers, SeqRequest/SeqReply (session <-> its DC's sequencer) and
// HeadRead/HeadReadReply (session <-> head in its DC) for
// get-transactions, the rest between servers and the master; cr-cops
// sends Put to the head (it has no sequencer). Geo-replication adds
// (wire/chainpb, geo.proto):
//
//	Put.geo        session -> (sequencer ->)     dependency filter (21 B) or
//	               head, proxy -> sequencer      list (~12 B per key), remote
//	               -> head (SeqPut; cr-cops:     version (~9 B)
//	               proxy -> head)
//	Update.geo     node -> successor             the same, carried to the tail
//	Update.seq     node -> successor             a remote version's number in
//	                                             this DC (~5 B)
//	Ship           tail -> own DC's proxy        key, version, value, geo
//	                                             (~40 B + value)
//	ShipAck        proxy -> tail                 key, version (~20 B)
//	RemoteUpdate   proxy -> proxy of another DC  first, rvp (~3 B per DC), per
//	                                             put: key, version, value,
//	                                             reply filter, geo (~70 B +
//	                                             value, cr-cops: + deps)
//	RemoteAck      proxy -> origin's proxy       prefix (~5 B)
//	GlobalStable   origin's proxy -> tail,       key, version (~20 B)
//	               node -> predecessor
//	Stabilize      proxy -> tail                 as a session's (the
//	                                             remote put's DC-Write-Stable)
//	Stabilize      resumed session -> tail, or   as a put's, request id 0,
//	               its DC's proxy (a version     one per token entry
//	               written elsewhere)
//	StabilizeReply tail, proxy -> resumed        as a put's
//	               session
//
// # Deliberate deviations
//
//   - The client proxy is folded into the session: stabilization and
//     routing cost no proxy hop (the reading notes: "with no proxy cost a
//     simulator gives ≈6× on single-object reads").
//   - A version is one scalar per key (a Lamport counter with the DC as
//     tie-break), not a vector with an entry per DC, and the metadata's
//     chainIndexVector is the session's own DC's chain index: a session
//     only ever reads in its own DC, where remote entries would be 0.
//   - Bloom filters hold keys, not (key, version): a dependency then waits
//     for every earlier queued put of its key. When a newer version of a
//     key stands in for the one depended on (a discarded or skipped one),
//     an exact match would let the dependent put overtake the older one's
//     dependencies.
//   - Shipping is from the tail once applied on the whole chain, not from
//     the head after head processing (§4.1): a version is visible in a
//     remote DC only once stable at its origin, so a remote put never
//     depends on an unstable write of the DC it arrives in (which the
//     paper's rvp, skipping the receiver's own entry, does not cover).
//   - Acknowledgements to sibling tails are proxy to proxy (RemoteAck, a
//     prefix per origin), then proxy to tail (GlobalStable): the proxy
//     knows when a remote put left its queue, which the tail does not. A
//     lost RemoteAck is repaired by the origin resending the batch; a lost
//     GlobalStable only delays garbage collection.
//   - Only versions written in a DC are reported Global-Write-Stable there;
//     an entry of a remote version stays in the metadata until the
//     client's next put.
//   - Membership stays one master in the first DC; under geo-replication
//     it never removes the last full member of a DC (a partition from the
//     master's DC would otherwise get a whole DC's servers removed, and
//     wiped as they rejoin, losing the writes other DCs shipped there).
//   - After a tail fails, the new tail ships only the newest version of
//     each key it holds (the core pushes one version per key): an older
//     version the failed tail had not shipped reaches the other DCs only
//     as that newer one.
//   - §5's sequencer keeps one sequence per chain; ours keeps one clock
//     for the whole domain (one per DC under geo-replication: a put's
//     number is the next tick, a snapshot the current one): a total order
//     of the DC's puts, which refines per-chain numbers, and makes the
//     snapshot a single number.
//   - §5's geo rule aborts a get-transaction whose session depends on a
//     version of another DC not yet at a head, then runs blocking reads at
//     the heads before reissuing it. Our sessions read and write only in
//     their own DC, so every version a session knows reached its DC's
//     head, numbered, before its next snapshot was taken: that abort
//     cannot arise (a head still aborts when a version is older than the
//     session's, e.g. after a repair, and the session simply retries), and
//     the two-phase retry is not built.
//   - §5's head delays a read whose preceding put has not arrived yet,
//     and aborts on a timeout; ours serves at once, skipping puts still
//     on their way from the sequencer. This is safe: a put in anyone's
//     causal past has reached its head (node k answered it, a get read
//     it, or a dependent put stabilized it first), and a put depending on
//     one still on its way cannot have been numbered yet. Our heads abort
//     instead when the version the snapshot asks for was dropped.
//   - §5's late puts create old versions at the head for
//     get-transactions; ours are overwritten at once (never read by
//     anyone, so no snapshot needs them). Under geo-replication such a
//     put is therefore never shipped, so it cannot stand for its
//     session's dependencies in the other DCs as a put does (§3.5): its
//     reply says superseded and names the key's newest version, and the
//     session keeps its metadata beside an entry for that version (one
//     that exists and is shipped, so a session token can name it), so
//     the next put's dependency filter names them
//     (scenario geo_late_put_keeps_deps; torture seed 496 read a stale
//     value when the session cleared them).
package chainreaction
