// Package karma implements Karma (Mahmood, Puzhavakath Narayanan, Rao,
// Vijaykumar and Thottethodi, "Karma: Cost-effective Geo-replicated Cloud
// Storage with Dynamic Enforcement of Causal Consistency", karma.txt) and
// the two schemes it is measured against on the same rings, as three
// registered protocols:
//
//   - karma:    §3–§4.5 — dynamic ring restrictions, write buffers, caches,
//     get-transactions.
//   - karma-nc: Karma without caches (§5 "Karma-NC").
//   - cops-pr:  COPS over the same rings with static binding: a client reads
//     only its DC's ring; write buffers, no caches (§1, §5 "COPS-PR").
//
// # Roles and where they live (§4.1.1, Fig. 4)
//
// DCs are grouped into rings (topology placement.rings); each ring holds
// one replica of every key, placed by consistent hashing over the ring's
// storage servers (topology.RingReplica). Per DC:
//
//   - back-end zone: storage servers "DC/s<i>", each with its middle man
//     (MM): the replica's data, the in-flight/stable state of its versions,
//     and cached-at sets (middleman.go);
//   - front-end zone: client coordinators "DC/cc<i>" (CC; one per storage
//     server, as §5 co-locates them) holding each client thread's write
//     buffer (WB) and dynamic ring restrictions (DRR) (coordinator.go), and
//     cache nodes "DC/cache<i>" (cache.go, karma only).
//
// Each node's protocol.Role says which of these it is (NewNode builds it
// from the role, not from its name): storage servers with their MMs are
// RoleStorage (the MM is not a node of its own), CCs RoleCoordinator, and
// caches RoleCache.
//
// A client session (a client thread) is served by one CC of its DC, chosen
// by hashing its name (session.go).
//
// # Puts (§4.1.2, Fig. 5)
//
// The CC appends the put to the thread's persistent WB (synced) and
// acknowledges. It carries as put-after dependencies only the
// thread's in-flight reads (its DRR entries), less its own buffered
// writes read back from a ring (see "Issue 12"). Every buffered write is sent
// to the key's MM in every ring at once, each ring at its own pace; program
// order within a ring comes from a program-order dependency on the
// thread's previous buffered write (see the deviations). The MM waits until
// every read dependency is committed in its ring and the previous write is
// stored there (DepCheck to the owning MM), stores the value
// (last-writer-wins by Lamport version), invalidates every DC cache in the
// key's cached-at set and waits for their acknowledgements (§4.3) and for
// the previous write to be committed in the ring, and only then
// acknowledges the CC. When every ring has acknowledged it and the
// thread's earlier writes are complete (acknowledgements may arrive out of
// order), the write is complete: the CC sends STABLE to the key's MM in
// every ring, evicts the entry from the WB, and lifts the thread's
// restrictions recorded before the put (§4.2: the put could only complete
// after everything it depended on did).
//
// The paper assumes a reliable transport (§4.4); here a write is resent to
// a ring until that ring acknowledges it, first after a timeout that follows
// the ring's measured acknowledgement time as TCP's does (rttEstimate), so
// that an overloaded ring is not buried under retransmissions of writes it
// has queued.
//
// Versions are Lamport timestamps minted by the CC (counter, CC index),
// above every version its threads have read; the counter is leased in
// storage like the commit clock, so a restarted CC never mints a version
// below one its threads have seen (last-writer-wins would let the older
// write win).
//
// # Gets (Fig. 3)
//
// 1. The thread's WB, unless the thread is bound to ring Ri and the entry
// has already reached Ri (then Ri must answer: the corner case of
// §4.1.2), or the thread has since read a newer version of the key.
// 2. Under a DRR: the restricted ring, bypassing the cache.
// 3. Otherwise the DC cache; on a miss the ring whose replica costs least:
// the measured round trip to its DC (an average of the round trips of
// reads, seeded with the topology's RTTs, and refreshed by probes: see
// "Latency monitor") plus the server's penalty for reads it left
// unanswered, cleared by its next message (latency.go). An unanswered read
// is sent again after four measured round trips: to the same ring for a
// restricted thread, else to the ring that now costs least, the silent
// ring being asked again too (the first answer wins). The MM
// answers with the version and whether it is in flight: stability is per
// version (isStable), a version is stable once its own STABLE arrived. An in-flight value binds the thread to that ring
// (a DRR tied to the (key, version)); a stable one — a never-written key's
// loaded value (protocol.Dataset, version 0) or absence included — is
// filled into the DC cache, and the MM adds the DC to the key's cached-at
// set.
//
// Restrictions that no buffered write of the thread will lift (a read-only
// thread's, or those taken since its last put) are lifted by notify-after
// (§4.2): at most every NotifyEvery the CC sends, to every ring, a
// notify-after with the restrictions as dependencies; once every ring
// answers, they are lifted. COPS-PR sends none: bound to its DC's ring, a
// thread's in-flight reads restrict nothing and are only the put-after
// dependencies of its next write (a COPS client's context), except when
// the thread moves to another DC (token.go), whose history must be
// complete first.
//
// A restricted thread whose read times out in its ring is moved to
// another ring instead of waiting there for its restrictions to lift
// (rebind.go): a notify-after with every restriction goes out at once
// (replacing one in flight that lacks some), and
// the first other ring that acknowledges it — the restrictions and their
// causal past are written there — becomes the thread's ring. §4.4 argues
// that restrictions lift even when a back end of the ring fails, because
// whatever was read there was written there first; here a write is
// readable once its thread's previous write is only stored (see the
// deviations), so without the move a back end failing between the two
// kept the thread's readers bound to the failed ring
// (testdata/rebind_after_back_crash).
//
// # Get-transactions (§4.5, Eiger's read-only transactions; txn.go)
//
// All reads of a transaction go to one ring — the thread's restricted ring,
// else the ring whose farthest replica of the keys is nearest — and bypass
// the caches. Round one reads the latest versions, each with the interval
// [evt, clock] of commit-clock time in which its replica knows it valid;
// the effective time eff is the largest of the CC's clock at the start and
// every evt; keys whose interval ends before eff are read again as of eff
// from the MMs' multiversion windows (round two, tag txn_round2); a
// superseded version read there is in flight unless its own STABLE
// arrived, whatever newer version of the key is stable (isStable). A
// version that has left the window answers too_old and the transaction
// starts again; an unanswered round starts again on another ring when the
// thread is free to choose (§4.5: "retry the transaction in a different
// ring"). The thread's own writes the snapshot lacks come from its write
// buffer, and in-flight versions read restrict the thread as a get's would.
//
// # Commit clock (clock.go)
//
// A Lamport clock kept by every MM and CC, separate from write versions: an
// MM ticks it when a version becomes readable there (its evt) and every
// message that orders commits carries it (RingPut, DepOK, RingPutAck,
// Stable, RingGet/Reply, CacheFill/CacheGetReply). So a write's evt in a
// ring exceeds the evt there of everything in its writer's causal past —
// through put-after DepOKs for in-flight dependencies, and for stable ones
// because STABLE carries the acknowledgements' clocks from every ring into
// the MMs and caches a reader gets them from — and the CC's clock covers
// every version in its threads' causal past, in every ring they may read.
// The clock is persisted as a lease (a synced mark ahead of it) so it never
// runs backwards across a crash.
//
// # Latency monitor (§6.2, probe.go)
//
// A read refreshes the CC's estimate of the DC it went to (a late answer
// too); a DC judged slow during congestion (reads there timed out, or
// answered late) gets no reads, so nothing would tell the CC it healed. "Background processes
// continually monitor the delays between DCs": every ProbeEvery (default
// 1s), while it serves client operations, a CC sends a ProbeReq to one
// storage server of every DC it suspects (estimate above the topology's
// RTT by a quarter plus 10 ms), and averages each answer's round trip into
// the estimate (half weight: a probe measures the DC as it is now). A
// storage server penalized for unanswered reads is probed too, by itself,
// every four round trips while the CC has work in progress, so that the
// penalty goes soon after the server is back. A healthy deployment sends
// no probe. COPS-PR chooses no ring and sends none.
//
// # Incarnations
//
// A restarted node is a new incarnation (protocol.NodeConfig.Incarnation),
// and messages addressed to an earlier one may still arrive. Every id a CC
// hands out and later matches a reply against — write-buffer entry ids
// (RingPut.id, acknowledged by RingPutAck) and request ids (RingGet,
// CacheGet) — carries the incarnation in its high bits
// (idIncarnationShift; probe ids too), so it never repeats across
// restarts; and every reply is matched on more than its id: RingGetReply
// and CacheGetReply on the key asked for, RingPutAck on the entry's key and
// version. A cache's epoch (which a fill must carry back) is its
// incarnation. MMs hand out no ids: DepCheck/DepOK and
// Invalidate/InvalidateAck are matched on key and version.
//
// # Issue 12: own writes read back, and what was tried
//
// Issue 12 asks for propagation at network speed. Baseline (karma-aws8,
// ycsb-95-5, 5 s, seed 2, visibility p50 in ms; one client per DC: karma
// 802, cops-pr 854; four per DC: karma 2445, cops-pr 1910; cops 129).
//
// Enabled: a thread's own write that it reads back in flight from a ring
// (its write buffer defers to the ring under the §4.1.2 corner case, or a
// get-transaction reads it there) restricts it like any in-flight read,
// but is no put-after dependency of its later writes: program order
// already puts them after it in every ring (§4.1.2: "no put-after is
// needed if the puts are completed in thread program order"), exactly as
// it does for the previous write; as a put-after dependency it held each
// later write, in every ring, until it was written there. Such a
// restriction is lifted when the write itself completes
// (coordinator.complete), and needs no notify-after (uncovered); a
// ring move's notify-after (rebind.go) still carries it. Measured
// (karma-aws8, ycsb-95-5, 5 s, seed 2, visibility p50/p99 in ms and
// visibility_ratio p50, all in one run of the same binary):
//
//	            1 client per DC          4 clients per DC
//	karma       589 / 1012   3.98x       2421 / 4710   16.7x
//	karma-nc    886 / 1363   5.95x       1866 / 3645   12.2x
//	cops-pr     856 / 1294   5.78x       1922 / 3809   12.7x
//	cops        128 /  165   1.01x        129 /  168    1.02x
//
// The rule helps only threads that read their own writes back (karma's,
// through the corner case of §4.1.2); at four clients per DC the windows
// are set by program order and by put-after across threads (below). The
// contention run (causeway sim --protocol karma --topology local3
// --workload ycsb-a --records 5 --clients 48 --duration 2s --seed 2)
// still does not converge: 15 divergence violations ("the network had
// not gone quiet"), visibility p50 3979 ms, p99 117768 ms, 5.18 M
// messages for 103794 operations.
//
// That change first failed TestGetTransactionsPassUnderRandomFaults on
// seed 7 (causeway sim --protocol karma --topology karma-aws8 --workload
// read-txn --records 10 --clients 48 --jitter 20ms --faults random
// --duration 3s --seed 7: a session read c15-1 of user00000004 from ring
// 0, then, 1 ms later, the initial value from its DC's cache). The rule
// was not the cause; it only changed the timing. The bug was in the MM,
// on main too: europe/s1 stored another brazil write of user00000004 and
// sent its invalidation to us-east's cache, which the fault schedule's
// loss at us-east dropped; 60 ms later it stored c15-1 with an empty
// cached-at set (cleared when the first invalidation began), so c15-1
// counted as written at once and completed while us-east's cache still
// held the initial value. Now a version's invalidation also goes to every
// cache an earlier version of the key is still invalidating
// (invalidationTargets; testdata/invalidation_pending_for_older_version,
// which reports that stale read without it), and seed 7 passes.
//
// Tried and not enabled (commits in the history of the branch that
// introduced this section, reverted there):
//
//   - Pipelined program order (built on the change above). Each write
//     names as program-order dependencies every earlier write of its
//     thread still buffered (P(s)), less those the ring has acknowledged.
//     A write is ready in a ring once its put-after dependencies are
//     written there; ready (persisted, with the MM's commit-clock time r)
//     it answers program-order DepChecks; it is installed (readable) once
//     every member of P(s) is ready there — DepChecks sent on arrival, in
//     parallel, not one hop per write — at evt = max(r(s), r(j) for j in
//     P(s)), a number every MM derives alike, so get-transaction snapshots
//     stay ordered; it is written once installed, invalidated, and P(s)
//     written. A read of a key with ready, uninstalled versions waits for
//     them; a transaction's first round reads as of the earliest such
//     r - 1. Scenarios showed it under reordering and a crash in the
//     middle of a batch, each failing with its guard removed. Measured:
//     karma 260 ms with one client per DC; four per DC karma 2045,
//     cops-pr 1811. It fails TestKarmaAnswersAfterRestartThenPartition for
//     karma-nc (seeds 2 and 4: a read_txn at 2241 ms and a get at 2309 ms,
//     issued after the heal, time out); letting only restricted readers'
//     gets wait did not change that. Not yet diagnosed.
//   - Put-after satisfied by "installed" (built on both). Four per DC is
//     limited by put-after across threads, not program order: Brazil's
//     threads keep reading each other's in-flight writes, and each such
//     dependency had to be written in every ring — a DepOK hop plus its
//     invalidations and its own predecessors' gate per link, more than the
//     ~25 ms between a thread's writes, so the lag grew while the run
//     lasted. Making a write ready once its put-after dependencies are
//     installed in the ring (still written before it counts as written)
//     gave karma 291/436 ms p50/p99 (1.99x the per-write bound, 2.3x
//     cops's p50) and cops-pr 312/512, but fails
//     TestKarmaStaysAvailableUnderTable1Failures (3 and 2 operations of
//     live DCs failed in two of its five cases): a version visible in a
//     ring no longer implies its dependencies written there, so a back end
//     failing between the two leaves its readers to rebind.go's ring move,
//     which did not answer all of them in time.
//
// Rebuilt in the session that enabled the own-write rule (the two designs
// above on top of the MM invalidation fix and of the ring-move fix below):
//
//   - The ring move did not answer every stranded reader because a thread
//     with a notify-after in flight sent no other, and a ring's
//     acknowledgement of one lacking some of its restrictions cannot move
//     it; with its ring's back end down that notify-after never completes.
//     A bound get that times out now replaces such a notify-after
//     (rebind.go, enabled; testdata/rebind_after_new_restriction: without
//     it, the reader's get times out after 10 s). With it the five Table
//     1 schedules (karma only, seed 1, as in the test) failed no operation
//     of a live DC under both designs, and the checker passed.
//   - Measured with both designs (same run and binary as the table above):
//     one client per DC karma 256/320 ms (1.69x the per-write bound),
//     karma-nc 260/313 (1.71x), cops-pr 261/315 (1.71x); four per DC karma
//     299/457 ms (2.06x; 2.3x cops's 129 ms), karma-nc 312/512 (2.12x),
//     cops-pr 312/512 (2.13x). Still over "within 2x of the bound" at four
//     per DC, and far from "1.5x cops", which a ring spanning several DCs
//     cannot reach while a write waits for a dependency check inside it.
//     The contention run (above) converges and goes quiet with both
//     designs, checker passed, but with visibility p50 6431 ms, p99 9757
//     ms, 23930 operations and 1.02 M messages.
//   - What blocks enabling them: TestKarmaAnswersAfterRestartThenPartition
//     fails on read_txns only (karma seeds 4 and 5, karma-nc seed 2: one
//     read_txn issued after the heal times out; karma seed 5 also with the
//     restart alone, a read_txn at 406 ms while b/s1 is down). Diagnosed
//     on that one (causeway sim --protocol karma --topology local3
//     --workload read-txn --records 200 --clients 12 --op-timeout 1s
//     --duration 3s --seed 5 --jitter 0, faults: crash node:b/s1 at 300ms,
//     restart at 800ms): round one on ring 0 reads user00000192 at b/s0
//     with its interval capped at 106 (a version there is ready at 107 and
//     not installed: its thread's earlier write lives on b/s1, which
//     crashed before that write was ready there), so eff = 138 needs a
//     second round, and b/s0 holds that read until the version installs.
//     That needs b/s1 back and the CC's retransmission of the lost write,
//     which had not come 500 ms later: the restarted round one (901 ms,
//     the nearest ring again) is held the same way, and the transaction
//     moves to ring 1 only at its second timeout, after the operation's
//     1 s. The fix to try: bound that wait — an MM whose ready write waits
//     longer than a round trip for a predecessor asks the writer's CC (the
//     RingPut's sender) to resend it to the ring at once, and/or a held
//     transaction read answers "blocked" so that the CC restarts the
//     transaction on another ring (§4.5) instead of waiting for its
//     timeout.
//
// # Message catalogue (wire/karmapb)
//
//	ClientGet/ClientPut -> ClientReply    session -> CC -> session
//	ClientTxn -> ClientReply (reads)      session -> CC -> session (§4.5)
//	MigrateReq -> MigrateOK               resumed session -> the thread's old CC (token.go)
//	ClientAdopt -> ClientReply            resumed session -> its new CC
//	RingGet -> RingGetReply               CC -> MM (any ring) -> CC; txn, at: §4.5
//	RingPut -> RingPutAck                 CC propagator -> MM -> CC (put, put-after, notify-after)
//	Stable                                CC -> MM of every ring
//	DepCheck -> DepOK                     MM -> MM owning the dependency, same ring
//	DepCheck -> DepOK                     MM -> the key's MM in another ring (stability probe)
//	CacheGet -> CacheGetReply, CacheFill  CC -> cache of its DC
//	Invalidate -> InvalidateAck           MM -> caches in the cached-at set -> MM
//	ProbeReq -> ProbeResp                 CC -> an MM of a suspect DC -> CC (§6.2; an id each, ~7 bytes)
//
// RingPutAck carries the acknowledged write's key and version, and
// CacheGetReply the key (see "Incarnations").
//
// # Storage
//
// MM: "d/<key>" value at its version; "s/<key>@<v>" committed markers;
// "t/<key>" highest stable version (the superseded versions in the
// multiversion window carry their own, in memory); "boot" written at every start; "c"
// the commit clock's lease (MMs and CCs). CC: "v" the version counter's
// lease, "w/<thread>/<id>" WB entries,
// "r/<thread>/<key>@<v>" DRR entries (synced before the get that caused
// them is answered). Caches keep nothing. The live runtimes keep each
// node's boot counter beside these keys (runtime.IncarnationKey).
//
// # Deliberate deviations
//
//   - A dependency is satisfied when its exact version is committed in the
//     ring, not "it or a newer one": under last-writer-wins a newer
//     concurrent write does not carry the older one's dependencies (found by
//     the checker for cops; see protocol/cops). MMs remember committed
//     versions without garbage collection.
//   - A version is committed (and answers DepChecks) only after its cache
//     invalidations are acknowledged — and those an earlier version of
//     the key still awaits — so that a stable value read later can never
//     be followed by an older cached one.
//   - A cache drops a key on any invalidation, and refuses a fill when the
//     key was invalidated after the miss that led to it, or the cache
//     restarted since: an MM forgets a cache once it invalidated it, so
//     such a copy could never be invalidated again. This closes the race
//     between a fill in transit and an invalidation the paper leaves open
//     (both were found by the checker).
//   - After an MM restarts it assumes every DC may cache each key, written
//     before or not, until the key's next write (cached-at sets are not
//     persisted; a storage boot mark tells a restart from a first start).
//   - One propagator per ring per CC, pipelined across client threads and
//     within a thread: instead of sending a thread's next write to a ring
//     once the previous one is acknowledged there (§4.1.2's program-order
//     propagation, which caps a thread at one write per round trip to
//     the farthest ring), all its buffered writes travel at once, each
//     naming the previous one as a program-order dependency. An MM stores
//     a write once the previous one is stored in the ring (so a reader
//     restricted to the ring sees both), and counts it written — answering
//     DepChecks and acknowledging the CC — only once the previous one is
//     written there too (so a write is stable only after everything before
//     it left every cache). Known limit: a ring stores a thread's writes
//     at most one intra-ring hop (the DepOK from the previous write's MM)
//     apart, so a thread writing faster than that — on karma-aws8 a
//     Brazil client, whose reads are all local, writes about every 25
//     ms — builds a backlog in the multi-DC rings that does not
//     drain while it runs (issue 12). Faults make it longer: under the
//     default live nemesis schedule on local3 (cluster/nemesis; its
//     simulator twin in cluster/nemesis/testdata) the ring of a and b
//     still stored writes 27–76 s after the heal in four live runs,
//     partly because a write's retransmission waits follow its measured
//     acknowledgement time, which includes the backlog (rttEstimate: up
//     to 30 s, and up to 60 s between one write's retransmissions).
//     Put-after dependencies, unlike the previous write, are waited for
//     until written, not stored: §4.4's AZ-B argument needs a version
//     visible in a ring to be able to complete while a back end of that
//     ring is down, so its dependencies must already be written there
//     (testdata/restricted_reader_after_back_crash).
//   - Cache nodes are added beside the topology's storage servers rather
//     than taken from them (§5 used 6 storage + 2 cache nodes of 8). In the
//     simulator a cache node spends a tenth of a storage server's service
//     time per message (cacheCost): §5's caches hold objects in memory,
//     its storage servers run Cassandra.
//   - No chain replication inside a DC (§4.4): each CC, MM and cache is one
//     node; a CC's WB and DRRs and an MM's data survive its crash because
//     they are synced. A client whose CC is down is unavailable.
//   - STABLE notifications are not retransmitted. Instead an MM that has
//     held a committed version for 10 s without its STABLE asks the key's
//     replica in every other ring (a DepCheck) whether it has the version
//     committed, and once all do takes it as stable (stabilize.go): a lost
//     STABLE would otherwise leave the version in flight until the key's
//     next write, restricting every reader of it.
//   - Moving a session (token.go) waits until the thread's history is
//     complete in every ring instead of shipping its write buffer and
//     restrictions to the new DC's CC: simpler, and sound, at the cost of
//     waiting out the thread's in-flight writes (and being unable to move
//     while they cannot complete).
//   - Get-transactions use a commit clock of their own beside the write
//     versions (see above): CC-minted versions reach rings late and in
//     any order, so "valid at version time t" would not be a stable
//     snapshot. The multiversion window lives in memory (txnWindow, at
//     most maxOldVersions per key); after a restart an MM claims its
//     versions valid from its recovered clock, so a transaction that needs
//     an older one starts again (never reads a wrong one).
//   - The latency monitor probes only DCs whose estimate looks congested
//     (see above), where §6.2's monitors measure every pair of DCs all the
//     time: a DC that is not suspect is either read from, which measures
//     it, or not preferred anyway.
//   - Write-only transactions are not offered (§4.5: "not worth the
//     complexity"): write_txn answers ErrUnsupported.
package karma
