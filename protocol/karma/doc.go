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
// writes read back from a ring (see "Pipelined propagation"), and of
// the versions one writer thread wrote only the latest (see "One
// put-after dependency per writer"). Every buffered write is sent
// to the key's MM in every ring at once, each ring at its own pace; program
// order within a ring comes from program-order dependencies on the
// thread's earlier buffered writes (see "Pipelined propagation"). The MM
// waits until every read dependency is installed (readable) in its ring,
// then (the write is ready) until every earlier buffered write of the
// thread is ready there too (DepChecks to the owning MMs, in parallel),
// stores the value (last-writer-wins by Lamport version), invalidates
// every DC cache in the key's cached-at set and waits for their
// acknowledgements (§4.3) and for the read dependencies and the earlier
// writes to be committed (written) in the ring, and only then
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
// has queued. A write a crashed MM lost before it was ready there would
// then reach the ring again only at that backed-off retransmission, while
// the thread's later writes wait for it in the ring's other MMs and reads
// of their keys are held there; so an MM whose DepCheck has gone
// unanswered for 250 ms asks again, marked lost, then after doubling waits
// up to 4 s (every 250 ms only while a read is held behind the waiting
// write), and the dependency's MM, if it never saw that version, asks the
// CC that minted it to send it at once (resend.go, ResendReq;
// testdata/held_read_behind_lost_write, lost_asks_back_off).
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
// readable once its dependencies are installed in the ring, not written
// (see "Pipelined propagation"), so without the move a back end failing
// between the two kept the thread's readers bound to the failed ring
// (testdata/rebind_after_back_crash, restricted_reader_after_back_crash).
// A thread bound to a ring other than its DC's own is moved back home as
// soon as its restrictions are installed there (see "Moving home").
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
// # Pipelined propagation (issue 12)
//
// §4.1.2 asks that each ring receive a thread's writes in program order,
// not that they cross the network one at a time. Chaining each write to
// its predecessor (stored once the previous write is stored in the ring)
// keeps the order but lets a ring store a thread's writes at most one
// intra-ring hop apart, so a thread that writes faster than that builds a
// backlog that does not drain while it runs. Instead, per ring R and for
// a write s of a thread:
//
//   - P(s), its predecessors: the thread's writes still in its write
//     buffer (incomplete) when s entered it. RingPut lists them all as
//     program-order dependencies, not only the previous write, less those
//     ring R had acknowledged when this copy was sent (written there, and
//     below the clock the copy carries); the CC completes writes in
//     program order, so every earlier write not in P(s) was complete —
//     written in every ring — before s existed. The CC computes the list
//     for each copy it sends (it buffers none: a backlog of n writes
//     would hold n² dependencies), and sends a ring a write only while
//     fewer than pipelineWindow (128) earlier writes of the thread are
//     unacknowledged there, so a ring that falls behind a fast writer
//     costs each write and each MM a bounded amount of work. Without the
//     window the contention run (local3, 5 keys, 48 clients, ycsb-a, 2 s)
//     grew past 6 GB without converging; with it, 343 MB and 157 s of
//     wall time, converged (visibility p50 423 ms, p99 16.7 s).
//   - Ready (MM of s): s has arrived and its put-after dependencies are
//     installed in R (DepCheck with installed set). The MM ticks its commit clock (r(s), the ready time),
//     persists s as pending ("p/<key>@<v>"), and answers program-order
//     DepChecks for s with DepOK{ready: r(s)}. On arrival (before s is
//     ready) the MM sends those DepChecks for every member of P(s) at
//     once: one intra-ring round trip, however long the backlog, and
//     remembers the answers (knownReady, knownWritten) for later writes.
//   - Installed (readable): s is ready and every member of P(s) answered
//     ready. Its evt (commit-clock time it became readable) is
//     evt(s) = max(r(s), r(j) for j in P(s)): fixed numbers, so every MM
//     derives the same times for the same writes without a further round.
//   - Written itself: s is installed here, its cache invalidations are
//     acknowledged (§4.3) and every put-after dependency is written in R
//     (plain DepChecks, sent on arrival as well). DepChecks with
//     self_written are answered then.
//   - Written (committed): s is written itself and so is every member of
//     P(s) in R (self_written DepChecks, sent on arrival). Only then are
//     plain DepChecks for s answered and the CC acknowledged. This is
//     written in full: for j in P(s), every member of P(j) is in P(s) or
//     was acknowledged by R (written there) when s's copy was sent, so s
//     waits for each of them directly. Asking each member of P(s) to be
//     written in full instead made a thread's writes written one DepOK
//     hop apart, each after its predecessor (testdata/written_without_chain).
//
// What an MM does with reads of a key that has ready versions not yet
// installed ("unconfirmed"): a get waits until the versions unconfirmed at
// its arrival are installed (one hop at most without faults); a
// get-transaction's first round answers the key's state at
// c' = min(clock, smallest unconfirmed r - 1) with the interval [evt, c'],
// and a second round at eff waits until the unconfirmed versions with
// r <= eff are installed. A key's state at commit-clock time t is its
// highest version installed with evt <= t (installs need not arrive in evt
// order).
//
// Why each §4 guarantee still holds:
//
//   - Program order per ring (§4.1.2). A reader that read s in R and then
//     reads the key of j in P(s) from R reaches j's MM after j became
//     ready there (s was installed only after j's ready DepOK left j's
//     MM): j is installed, or the get waits until it is. A pending write
//     is synced before its DepOK leaves, so a crash of j's MM between the
//     two only delays the get (testdata/pipelined_crash_mid_batch).
//   - Put-after (§2.2). Ready needs the put-after dependencies installed
//     in R; installed(d) means P(d) is ready in R (a read of one waits
//     until it is installed) and d's own put-after dependencies are
//     installed there, so by induction d's whole causal past is readable
//     in R.
//   - Completion and STABLE (§4.1.2). A ring acknowledges s only when it
//     is written there, so a complete write is written in every ring, and
//     with it P(s) and its put-after dependencies: STABLE is sent, in
//     program order, under the same condition as before.
//   - Invalidation before commit (§4.3). Written waits for s's own
//     invalidations and for P(s) and its put-after dependencies written,
//     so when s is stable everything in its causal past has left every
//     cache, as before (testdata/put_after_installed_then_written).
//   - DRR lifting (§4.2). A put completes only after its put-after
//     dependencies are written in every ring: the transitivity argument is
//     unchanged, and so is notify-after.
//   - Claims 1 and 2 (§4.4). A version visible in R no longer implies its
//     dependencies written there, only installed: a back end that fails
//     holding an installed, unwritten dependency (or a ready member of
//     P(s), as a failed predecessor did before) keeps s from being written
//     in R, so a reader bound to R by s is not released by s's
//     completion. Its escape is rebind.go's ring move: its bound read
//     times out, and the first other ring that acknowledges a
//     notify-after with all its restrictions — written there, causal past
//     included — takes it (testdata/restricted_reader_after_back_crash,
//     rebind_after_back_crash). §4.4 argues the restriction lifts instead;
//     the move is what keeps the reader answered here. A reader bound
//     away from its DC's ring is moved back once its restrictions are
//     installed there ("Moving home"), so a later failure of the far
//     ring does not strand it.
//   - Get-transactions (§4.5). For j in P(s), evt(j) <= evt(s): P(j) is
//     within P(s) except writes completed before s was put, whose
//     acknowledgements' clocks the CC carried on s's RingPut, so r(s)
//     exceeds their evts. A reply never claims a version valid at or
//     beyond an unconfirmed r, and a version ready later gets an r above
//     every clock already answered, so no install lands inside an
//     interval already claimed for an older version.
//
// A thread's own write that it reads back in flight from a ring (its
// write buffer defers to the ring under the §4.1.2 corner case) restricts
// it like any in-flight read, but is no put-after dependency of its later
// writes: program order already puts them after it in every ring (§4.1.2:
// "no put-after is needed if the puts are completed in thread program
// order"), and as a put-after dependency it held each later write, in
// every ring, until the earlier one was written there — one write per
// ring round trip again. Such a restriction is lifted when the write
// itself completes.
//
// Cost: a write names up to the thread's backlog as dependencies, so a
// backlog of k writes costs O(k) DepChecks per write in each ring
// (batching them per owning server is issue 17).
//
// Measured (karma-aws8, ycsb-95-5, 5 s, seed 2, four clients per DC,
// visibility p50/p99 in ms and visibility_ratio p50, one run of one
// binary, session 12): karma 301/460 (2.07x), karma-nc 312/513 (2.14x),
// cops-pr 309/514 (2.13x); cops 128/164 (1.01x); karma sent 203 k
// messages (318 k before writes waited for their predecessors written
// themselves only, DRR fraction 0.88 against 0.92). Before pipelining (program
// order one intra-ring hop per write, put-after dependencies waited for
// until written) karma was 2421/4710, 16.7x. What limited four per DC was less program order than put-after
// across threads: Brazil's four threads (all their reads local) keep
// reading each other's in-flight writes, and a write waited, in every
// ring, for each such dependency to be written there, a DepOK hop plus
// the dependency's own invalidations and gate per link — more than the
// ~25 ms between a thread's writes, so the lag grew while the run lasted.
// Waiting for the dependency to be installed costs one hop per link, off
// the writing path. With one put-after dependency per writer (session
// 14; main beside it): karma 290/459 against 301/460, cops 128/164, so
// 2.27x cops's p50 (2.35x); WAN bytes per put 3698 against 4385 (cops
// 1893), 76.7 k WAN messages against 92.6 k.
//
// What was left after that was the check itself: in a ring spanning
// several DCs (karma-aws8's ring 0 spans 175 ms, ring 1 105 ms) a write
// is installed at its key's MM only once that MM has heard that every
// earlier buffered write of its thread is ready at theirs, and that its
// put-after dependencies are installed at theirs — asked of those MMs, a
// round trip inside the ring from the write's arrival. §4.1.2 asks for
// the order, not for the round trip: "Ready pushes" below has the MMs
// push those facts as they happen, so that the check costs at most one
// one-way hop from the moment the dependency is ready, and karma is now
// 1.41x cops's visibility p50.
//
// History (issue 12). Three designs were built before this one was
// enabled: (1) a thread's own buffered write read back is no put-after
// dependency of its later writes (kept, see above); it first failed
// TestGetTransactionsPassUnderRandomFaults/karma seed 7 through a bug on
// main: a version could count as written while a cache was still
// handling an earlier version's invalidation of the same key, whose
// message the fault schedule dropped (invalidationTargets now asks those
// caches too; testdata/invalidation_pending_for_older_version). (2)
// pipelined program order and (3) put-after dependencies ready once
// installed failed TestKarmaStaysAvailableUnderTable1Failures until a
// bound get that times out replaced a notify-after in flight lacking some
// of the thread's restrictions (rebind.go;
// testdata/rebind_after_new_restriction), and
// TestKarmaAnswersAfterRestartThenPartition until lost writes were asked
// for again (resend.go): a get-transaction's second round was held at
// b/s0 behind a version ready there whose thread's earlier write b/s1 had
// lost in its crash, until the CC's backed-off retransmission, after the
// operation's 1 s timeout (karma seeds 4 and 5, karma-nc seed 2). The
// asks cost little in a healthy ring (the four-per-DC run above: same
// numbers with and without them) but do under a backlog: the 5-key,
// 48-client contention run (local3, ycsb-a, 1 s, seed 2) converges and
// passes the checker either way, with 380 k messages and visibility p50
// 3.0 s against 325 k and 2.3 s without them; asking only for writes that
// hold reads back would spare that.
//
// (4) Session 12: those asks, at a fixed 250 ms pace for every waiting
// write, made Table 1's intra-ring partition and AZ-B cases diverge.
// Behind the 5 s intra-ring partition of karma-aws8 (replay: causeway sim
// --protocol karma --topology karma-aws8 --workload ycsb-95-5 --clients
// 64 --duration 7s --service-time 100us --jitter 20ms --seed 1, faults
// partition [[us-west1, us-west2], [us-east, europe]] from 1 s to 6 s)
// every ring-0 MM asked the owner of each version it waited for four
// times a second: 50-90 k asks a second in all, ~10 k of them to one hot
// MM (us-west2/s2), its whole capacity at 100 µs a message, so its
// answers came later than the next round of asks and the ring never
// drained (13.7 M messages, not quiet 120 s after the run). Now only the
// writes reads are held behind keep that pace; every other ask is
// depwait's backed-off retransmission of the DepCheck, marked lost
// (testdata/lost_asks_back_off), and a CC sends a write again on a
// ResendReq at most once per 250 ms. The replay converges and is quiet
// about 18 s after the heal (visibility p50 9.0 s, p99 11.4 s: most
// writes were made during the outage).
//
// What bounded that drain (a trace of the replay): a write counted as
// written in a ring only once every earlier write of its thread was
// written there in full, each learnt by a DepOK, so in a ring a thread's
// writes became written one intra-ring hop apart. Brazil's threads (a
// ring of one DC, all reads local, ~250 writes each behind the outage)
// had ring 0 acknowledge their writes at ~15-20 a second each. Each
// earlier write is now asked only to be written itself (self_written, see
// above): the replay is quiet about 11 s after the heal instead of 18 s
// (visibility p50 9.5 s, p99 10.6 s; 1.8 M messages). On the 5-key,
// 48-client contention run (local3, ycsb-a, 2 s, seed 2) the rings now do
// during the run the work the chain deferred: it is quiet at 10.5 s
// instead of 23.5 s with 474 k messages instead of 937 k, but its six
// storage servers, saturated either way, serve the clients' reads more
// slowly meanwhile (11.9 k ops/s instead of 20.3 k, get p99 287 ms
// instead of 136 ms), and the writes seen at every replica are mostly
// the run's last (visibility p50 7.4 s, p99 8.5 s, against 0.5 s and
// 14.4 s).
//
// (5) Session 13, CI cost. TestGetTransactionsPassUnderRandomFaults
// (karma-aws8, read-txn, 10 keys, 48 clients, random faults) drains a
// backlog for ~25 s of simulated time after its faults heal; its
// threads read each other's in-flight writes all the while, so each
// write carries dozens of restrictions as put-after dependencies, each
// waited for in every ring. Seed 1 of karma without invariants: 14.5 k
// operations, 854 k messages (600 k DepChecks, 470 k of them depwait's
// backed-off resends of checks their owner holds and will answer) and
// 23.7 CPU-s; main 5.7 k operations, 236 k messages, ~1 CPU-s. Walking
// the write buffer at every tick (buffered, uncovered: now sets kept as
// writes enter and leave it), hashing names in depwait.Satisfied's inner
// loop (waiters now by pointer) and sorting every waiting dependency at
// every MM tick (now only the due ones) brought it to ~13 CPU-s, same
// messages. The self-checks boxed the arguments of every Check for every
// buffered write after every input; they now test first. Leaving out of
// a write the restrictions an earlier buffered write of its thread
// carries (program order implies them, as COPS's nearest dependencies)
// halved that again (748 k messages, ~6 CPU-s) but failed
// TestKarmaAnswersAfterRestartThenPartition (karma seeds 2, 4, 5;
// karma-nc 1, 2: one read each timed out): such a write became ready
// before its dependencies were installed and then sat pending behind its
// predecessors, holding reads of its key, where it used to wait unready
// and let them be answered. Not kept; marking the predecessors such a
// write must see ready before it is ready itself would keep the saving.
// The whole test with invariants (8 seeds of karma, karma-nc, cops-pr),
// started beside main's on a loaded 2-core machine: 1170 s wall, 395
// user-s, against main's 314 s and 106 user-s (3.7x; it was about 11x).
//
// # One put-after dependency per writer (writers.go)
//
// A thread that reads other threads' in-flight writes collects
// restrictions by the dozen (DC c's threads in the restart run below held
// ~500 each), and each of its writes named them all: each a DepCheck in
// every ring. Of the versions one writer thread wrote, a write now names
// only the latest the thread has read, and a notify-after likewise. An MM
// returns the writer (a session name) with an in-flight version
// (RingGetReply.writer, taken from RingPut.writer); the CC keeps it with
// the restriction (Dep.writer, persisted with the DRR entry and the
// buffered write) and sends no MM a Dep with it. A writer is a session at
// one CC: its versions grow in its program order there (the CC's version
// clock only moves on, across restarts too, being leased), and a session
// that moves to another CC (token.go) mints there versions unrelated to
// those, so the two are different writers. A version whose writer is
// unknown (installed before its MM restarted: "d/<key>" keeps no writer)
// is never collapsed.
//
// Why waiting for the latest, s, waits for every earlier write j of its
// thread, in each ring R:
//
//   - Installed (readable). s is installed in R only once every member of
//     P(s) for R's copy is ready there; a j not in it was acknowledged by
//     R (written there) when that copy was sent, or complete before s
//     existed. So when s is installed every j is ready, installed or
//     written in R: a read of j's key waits while j is ready and not
//     installed (held reads), and j becomes installed, since its own
//     P(j) is within P(s) or written. Being ready, j's own put-after
//     dependencies are installed in R, and so on: the induction of
//     "Put-after" below holds with the collapsed list. A DepCheck with
//     installed is answered only at install, never at ready or on
//     arrival, and a version is readable only once installed (gets and a
//     get-transaction's rounds return installed versions only, so the
//     version a reader saw is installed where it read it: Dep.installed
//     for that ring stays true).
//   - Written. s is written (committed) in R only once every member of
//     P(s) is written itself there, and j written itself has its put-after
//     dependencies written: so s written means j and its causal past
//     written in R, which is what the written gate and notify-after ask.
//   - Restarts. Ready, installed and written are each persisted before
//     anyone is told ("p/", "i/", "s/"), so a restarted MM never answers
//     less than it did; a write it lost before it was ready was never
//     reported ready, so s waits. A restarted CC resends its buffered
//     writes with every earlier buffered write as P(s) (acknowledgements
//     are not persisted): more dependencies, never fewer.
//   - Writes buffered at the CC. A write not yet sent to R (the pipeline
//     window) is in P(s) of every later write sent there, and the window
//     sends a ring a thread's writes in program order.
//   - Ring moves (rebind.go). All of a thread's restrictions come from its
//     ring; a notify-after that moves it to another ring confirms the
//     collapsed list, and each confirmed s written there is the earlier
//     writes written there too (above).
//   - Lifting. A write completes when every ring has written it, so its
//     collapsed dependency s and with it every earlier write of s's
//     thread is written in every ring: complete lifts every restriction
//     the write covers (the dependency, or an earlier version of its
//     writer), and a notify-after every one it covers; uncovered counts a
//     restriction as covered by a buffered write that carries its writer's
//     later version.
//
// testdata/put_after_latest_of_writer holds the older write back from a
// ring: the dependent write, naming only the later one, waits there
// (without install waiting for P(s), the checker finds a stale read).
//
// What it changed (local3, read-txn, 200 records, 12 clients, 1 s
// timeout, b/s1 crashed from 300 to 800 ms, 12 s, seed 1, main and this
// in one run): WAN bytes per RingPut 9221 -> 2518, WAN bytes per put
// 12.7 K -> 3.8 K, DepChecks over the WAN per put 16.9 -> 11.1. DC c's
// visibility p50 did not recover: 1157 -> 1093 ms (122 ms without the
// fault), 1239 -> 1111 ms over the last 4 s. Over a 30 s run's last
// 10 s: 1708 -> 1177 ms. Main's lag kept growing; now it holds at about
// a second, but does not drain.
//
// Why the backlog does not drain (traces of that run, per write of DC c
// at ring {a, b}'s MMs, arriving 3-5 s into it; without the fault in
// brackets): arrival to ready 355 ms [100], ready to installed 2 ms [2],
// installed to written 737 ms [38]; each of c's threads holds ~220
// buffered writes [~10], 128 sent (the window) and ~90 waiting for room,
// and ~550 restrictions. The MMs are not saturated (4-5 k inputs a second
// at 100 µs each). What is slow is the chain: c's threads read each
// other's newest in-flight writes, so a write depends on another
// thread's write put a few milliseconds earlier, which depends on a
// third's, and so on. A link costs one intra-ring one-way hop (the
// DepOK from the dependency's MM once it is installed, or written) —
// 20 ms when the two MMs are in a and in b — but the writes it links
// are put only a few ms apart, so every link adds lag. The lag is
// bounded only while few reads return in-flight versions: with the lag
// at 120 ms a restriction lives ~120 ms and a thread's writes name few
// fresh ones; once the fault has raised it to a second, restrictions
// live a second and nearly every write names another thread's write
// from a few ms before — a second stable state. Neither chain alone
// keeps it there: with the written gate and the predecessors' written
// wait both switched off (unsound; an experiment) arrival to ready
// grows to 1.1 s and visibility p50 stays at 1.3 s. A larger window
// does not help (1024: 1.38 s; 32: 1.97 s; 128: 1.05 s, 6 s runs).
// The hop is the knob: with a-b's round trip set to 4, 20 or 30 ms
// instead of 40 (same run, last 4 s of 12) the backlog drains, on main
// as here — DC c's visibility p50 62, 80 and 91 ms (main 62, 81, 92),
// against 1111 ms (main 1239) at 40 ms.
// What would: a link cheaper than a cross-DC hop (an MM knowing a
// writer's later write installed needs not ask about its earlier ones,
// but the chain runs through latest writes), or fewer fresh links
// (restrictions lifted as soon as the dependency completes, which only
// the writer's CC learns).
//
// # One ask per predecessor (issue 17)
//
// A RingPut names, for its ring, every earlier write of its thread the
// ring has not acknowledged (P(s)), and the MM asks each one's MM two
// things: is it ready (program_order: its ready time, to install s) and
// is it written itself (self_written: to count s written). The two asks
// are made together, once per (MM, predecessor) (depwait: only the first
// waiter asks), so they now go as one DepCheck with self_too set; the
// dependency's MM answers each part as before, registering the asker
// as a ready waiter and as a self-written waiter, or answering at once.
// When both parts hold on arrival (55% of the combined asks on the run
// below: the ring wrote j before its acknowledgement reached the CC and
// left j out of later copies) one DepOK with self_too answers both;
// otherwise two DepOKs come, at different times (ready at arrival,
// written itself once invalidations and P(j) are done). A combined
// DepCheck is exactly the two DepChecks delivered together, so nothing
// depends on their order; re-asks (depwait's backed-off retransmissions,
// lost) stay one per part; the asker handles a combined DepOK as the
// ready DepOK followed by the self-written one, the order in which two
// would have been sent. testdata/written_without_chain,
// pipelined_crash_mid_batch and txn_second_round_past_version fail if
// the answering MM ignores DepCheck.self_too, and written_without_chain
// and txn_second_round_past_version if the asker ignores DepOK.self_too
// (the self-written answer is lost until re-asked).
//
// Where the DepChecks come from (karma-aws8, ycsb-95-5, 4 clients per
// DC, 5 s, seed 2; first asks crossing the WAN, re-asks not counted):
// of ~32 k, program-order ready 13.8 k and self-written 13.6 k, put-after
// installed 2.2 k and written 2.3 k. Program order is 85% of them: a
// sao-paulo thread writes every ~25 ms and a ring acknowledges in up to
// ~1 s, so a copy carries ~15 unacknowledged predecessors.
//
// What it changed (causeway sim --protocol karma --topology karma-aws8
// --workload ycsb-95-5 --clients-per-dc 4 --duration 5s --seed 2
// --wan-by-kind, main and this side by side): DepChecks over the WAN
// per put 37.0 -> 22.1, their bytes per put 810 -> 513 (21.9 -> 23.2 B
// each); DepOKs per put 36.5 -> 28.5, bytes 946 -> 764; all WAN bytes
// per put 3698 -> 3221 (RingPut unchanged, 1360: 2.7 copies of 501 B,
// ~15 program-order dependencies each); visibility p50 290 -> 291 ms,
// ops/s 3600 -> 3601. cops on that run: 1893 B per put.
//
// A copy's program-order dependencies travel packed (then
// RingPut.after_keys, after_versions: keys, and versions as differences
// from the previous one, in the buffer's order; now owners instead of
// keys, see "Program-order asks by version"): each entry costs its key
// and a 1-3 B varint instead of a ~25 B Dep. The MM unpacks them into Deps with
// program_order before anything else sees the write (unpackAfter), so
// waiting, persisting ("p/") and recovery are as before; only the
// encoding on the wire changed. Same run: RingPut 501.6 -> 435.6 B,
// 1362 -> 1183 B per put, all WAN bytes per put 3221 -> 3041,
// meta/write 410 -> 328, every count and latency unchanged.
//
// Left (still ~1.6x cops): ~22 DepChecks and ~28 DepOKs per put, and
// ~15 predecessors per copy, because a ring's acknowledgement reaches
// the CC ~1 s after a sao-paulo thread's write while it writes every
// ~25 ms; cutting those needs fewer predecessors per copy or an MM
// learning about a thread's earlier writes from its later ones. (What
// came next cut the bytes of each instead: "Program-order asks by
// version".)
//
// # Program-order asks by version (issue 17, byversion.go)
//
// Of the ~22 DepChecks and ~28 DepOKs per put left above, almost every
// byte was a key: a 12-byte YCSB key in each Dep, and in each entry of a
// RingPut's program-order list. Versions are unique (a CC mints each
// from a counter that ticks at every write, leased so it never repeats
// across restarts, with its own index in the low bits), so a write can
// be named by its version alone wherever the key is not needed to find
// it:
//
//   - A RingPut names each program-order dependency by its version and
//     the index in the ring of the MM that owns it (after_versions,
//     after_owners: 1 B instead of ~13 B of key). The MM unpacks it as a
//     Dep with no key and that owner (Dep.owner) and names it
//     "@<version>" in its waits and in what it learns (knownReady,
//     knownSelfWritten); its "p/" record keeps that form.
//   - An MM's first asks inside its ring — program order (ready and
//     written itself) and put-after (installed, written; a notify-after's
//     written) — go as version lists, one DepCheck per owning MM for all
//     the asks one input produces (DepCheck.after, after_ready,
//     after_self, installed, written; ascending, as differences). The
//     owner finds each version's key among the writes it has seen or been
//     told of (keyOf: learnt from every RingPut and every dependency, and
//     recovered from "d/", "s/", "p/", "i/" after a restart), and
//     answers exactly as it answered the Dep with that key; a version it
//     does not know has not arrived there (or was lost in a crash before
//     it was ready, when nothing of it was persisted: the same as never
//     arrived), and the ask is kept (early) and taken when the write
//     arrives, as a keyed ask waiting for it would have been.
//   - Every answer inside a ring goes the same way, key-less: one DepOK
//     per asking MM per input, with the versions now ready (their ready
//     times as clock minus time: small varints), written themselves,
//     installed and written (DepOK.ready_versions, ready_ago,
//     self_versions, installed_versions, written_versions). The asker
//     handles those lists in that order, as it handled the separate DepOKs
//     (ready and written itself were already sent in that order in one
//     step; installed precedes written). A program-order answer is
//     matched to "@<version>"; a put-after answer to the key the asker
//     asked with (keyOf).
//   - Re-asks (depwait's, marked lost, and a held read's) and probes
//     still go one Dep each, with the key when the asker has one (put-after)
//     and without it for program order; the owner looks the version up
//     the same way. A lost-marked ask for a version the owner never saw
//     still makes it send a ResendReq, now possibly without the key: the
//     CC matches the version. Stability probes (to other rings) stay by
//     key.
//
// Nothing waits for anything else than before, and every answer is given
// under the same condition, so the guarantees and their arguments in
// "Pipelined propagation" and "One put-after dependency per writer" are
// unchanged; only names and framing changed. The one new order is an ask
// arriving before its write: testdata/written_without_chain and
// put_after_asked_before_arrival fail if a kept ask is not answered when
// the write arrives (program order; put-after), and
// asked_by_version_after_restart if a restarted MM does not recover the
// keys of the versions it stored. written_without_chain and
// txn_second_round_past_version fail if the owner ignores the written-
// itself part of DepCheck.after; 13 scenarios if the asker ignores
// DepOK.self_versions. DepCheck.self_too and DepOK.self_too are no
// longer sent (their handling stays for re-asks that carry them). Cost:
// keyOf grows with every version an MM has seen, as committed and readyAt
// do.
//
// What it changed (causeway sim --protocol karma --topology karma-aws8
// --workload ycsb-95-5 --clients 32 --duration 5s --seed 2 --wan-by-kind;
// main before issue 17's session-14 cuts, then sub/karmadeps2, then
// this; seed 3 in brackets): WAN bytes per put 4385, 3050, 1755 [4722,
// 3157, 1798]; cops 1892 [1890]. By kind, per put, sub/karmadeps2 ->
// this: RingPut 1182 -> 779 (435 -> 289 B each), DepOK 769 -> 280 (28.7
// -> 22.9 messages of 26.8 -> 12.2 B), DepCheck 516 -> 115 (22.2 -> 14.3
// of 23.3 -> 8.1 B); unchanged: remote reads (RingGet 53, RingGetReply
// 404: partial replication's own cost, which cops does not pay), RingPutAck
// 76, Stable 43. WAN messages per put 62.2 -> 48.5. Visibility p50
// 291 -> 291 ms [291 -> 292], ops/s 3601 -> 3601 [3591 -> 3591], meta
// per write 328 -> 145 B. Step by step (seed 2): asks and answers by
// version 3050 -> 2348, RingPut owners instead of keys -> 1935,
// put-after asks by version -> 1755.
//
// # Reads held behind a write that cannot install (probe_held.go)
//
// An MM holds a read of a key while a version of it is ready there and
// not installed ("Pipelined propagation"): a reader may have read a
// later write of its thread elsewhere in the ring, and the version is
// installed as soon as its program-order dependencies are ready in the
// ring. When one of those has not reached the ring at all — its writer's
// DC was cut off from the ring with the write on its way — the version
// cannot be installed until the partition heals, and neither can any
// later write of its thread, so no reader can depend on it; yet the read
// waited, and §4.4 Claim 2 (2) failed: with a partition between rings
// {a, b} and {c}, gets in a and b of keys c's threads had just written
// timed out (TestAvailabilityClaimsLive, 3 of 7,325 operations, seed 1;
// faster propagation made these windows likelier, not longer).
//
// So a held read probes: the MM asks the owner in its ring of such a
// version's latest program-order dependency not known ready there (a
// thread's writes leave in order, so a cut leaves out the latest)
// whether it is ready now (DepCheck.probe, answered at once by a DepOK
// with the same probe, absent when it is not; a dependency the MM owns
// is looked up directly). Absent ends the wait for that version of the
// reads held when the probe was sent. Probes go in rounds, one in flight
// per pending version: reads held meanwhile wait for the next round,
// sent when the answer comes (asking about the next unknown dependency
// if that one was ready), or after resendPredecessor without one.
// (Probing every unknown dependency for every held read tripled the
// messages of a saturated run — karma-aws8, ycsb-50-50, 4096 threads,
// 1.48 M to 4.33 M — and its backlog outlasted the quiesce limit.) The probe leaves after the read arrived, and anything a
// reader could have seen that depends on the version — a later write of
// its thread installed in this ring, a write installed here that depends
// on either, or a version read elsewhere that has since completed —
// needed the absent dependency ready in this ring first, which its MM
// persists before telling anyone: so such a reader's read arrives after
// the dependency is ready, and its probe finds it. (A reader that read
// such a version in flight in another ring is bound to that ring.) Probe
// numbers come from the asking MM's commit clock, leased ahead of what
// it issued, so an answer to a probe sent before a restart matches no
// round sent after it. Scenarios: held_read_probe_ready (the dependency
// is ready: the read waits and returns the write; fails with every probe
// answered absent), held_read_joins_next_round (a read held while a round
// is in flight waits for the next; the checker fails if it joins the
// round in flight), pipelined_reordering (the dependency has not arrived:
// the read is answered in ring 0 one round trip later instead of bound to
// ring 1 after 390 ms).
//
// # Moving home (issue 12; rebind.go)
//
// Issue 12's restart-then-partition run (local3, read-txn, b/s1 down from
// 300 to 800 ms, c cut off from a and b from 1200 to 2200 ms): while b/s1
// was down, threads of a and b read its keys from ring {c}, saw DC c's
// in-flight writes there and were bound to {c}. Bound, they read only
// {c}, where nearly every hot key had another in-flight write of c, so
// they kept collecting restrictions, each lifted only once c's write
// completed — about a second after the restart, c's writes being that far
// behind in ring {a, b}. The partition then left them nothing to read:
// 32 (karma) and 30 (karma-nc) operations of a and b failed over seeds
// 1-5.
//
// So while a thread is bound to a ring other than its DC's own (myRing),
// its CC keeps an install check in flight to its own ring: a notify-after
// sent to that ring only, whose dependencies (the thread's restrictions,
// one per writer) carry installed; the MM waits for each to be installed
// in its ring (a DepCheck with installed, as for a write's put-after
// dependency) and then acknowledges. If, when the acknowledgement
// arrives, the thread is still bound away and the check covers every
// restriction it holds, the thread is bound to its own ring (the
// restrictions stay, persisted with the new ring); a get or
// get-transaction in progress is sent there again, and answers to its
// earlier requests are ignored. A new restriction replaces a check in
// flight by one that covers it. An unanswered check is sent again after
// 1 s, then 2 s and 4 s (its MM may have restarted: the check is kept in
// memory only), and a restarted CC sends a new one at its first tick (its
// restrictions and their ring are persisted, the check is not). No check
// is sent, and no move made, while a storage server of the own ring is
// penalized for unanswered reads (latency.go): the thread would be moved
// back to a ring that does not answer it, and away again by the move on
// a timeout (testdata/rebind_after_back_crash).
//
// Why installed is enough. Binding a thread to ring R on an in-flight
// read asks of R only that the version read be installed there (a reply
// returns installed versions only), and the thread reads R because
// everything in its causal past is readable in R:
//
//   - the stable versions it read are complete, written in every ring;
//   - each restriction d is installed in R, and installed(d) means d's
//     causal past readable in R (the induction of "Put-after" under
//     "Pipelined propagation"), and for the writer's earlier writes, which
//     the collapsed list leaves out, "One put-after dependency per writer";
//   - its own writes are in its write buffer, which answers for any bound
//     ring the write has not reached (Fig. 3), or complete.
//
// The check establishes the second point for the own ring R' for every
// restriction the thread holds when the acknowledgement arrives: the MM
// answers only once each is installed in R' (its owner persists "i/"
// before it answers, so a restart does not undo it), and a check that
// does not cover a restriction taken since it was sent moves nothing
// (testdata/home_check_new_restriction). Requests sent to the old ring
// before the move are forgotten, so no version read there restricts the
// thread once it is bound to R'. Get-transactions: the acknowledgement
// carries the MM's commit clock, which has observed the DepOKs' clocks,
// each above the dependency's evt in R'; the CC observes it, so its clock
// covers the evt in R' of the thread's causal past, as for any bound
// ring. Later writes: a write put after the move records R' as the ring
// its put-after dependencies were read in (wbEntry.readRing), and its copy
// to R' marks them installed — true, by the check; other rings wait for
// them as before. A write put before keeps the old ring, true there.
// Lifting is unchanged: only completion or a notify-after (written in
// every ring) lifts a restriction; the move changes which ring the thread
// reads, not what it depends on. Held-read probes (probe_held.go) are
// unaffected: a thread that read in flight a write depending on a
// version v is moved to R' only once that write is installed there,
// which needed v's predecessors ready in R', so no probe finds them
// absent while the thread may read v's key there.
//
// Scenarios: home_check_installed (moved only once the restriction is
// installed at home; with the check answered at once the checker finds a
// stale read), home_check_new_restriction (a check overtaken by a new
// restriction moves nothing; with the check kept instead of replaced and
// homeAcked not asking whether it covers every restriction, the checker
// finds a stale read; the cover test alone is not needed by this
// schedule, since a replaced check's answer matches nothing),
// home_check_after_restart (the check sent again after its MM restarts,
// and anew by a restarted CC; the read after the MM's restart still goes
// to the far ring without the retransmission).
//
// The check alone did not help much on the run above (karma 32 -> 18,
// karma-nc 30 -> 27): a thread bound to {c} read new in-flight writes
// every ~90 ms, faster than c's writes were installed in ring {a, b}, so
// each check was overtaken before it could be answered, and the last
// ones, sent just before the cut, were answered only after the heal.
// What held those installs back was the restart: a write c sent to b/s1
// while it was down (728 ms) was asked for only when another MM's
// DepCheck for it went unanswered, marked lost (1150 ms), and the copy
// resent at 1195 ms was lost to the partition; the later writes of its
// thread, and every write that had read one of those, could not be
// installed in ring {a, b} until the heal. So a restarted MM now asks
// every CC at once for every write it owns that they have sent it and it
// has not acknowledged (a ResendReq with version 0; resend.go,
// askResendAll; testdata/resend_all_after_restart). With both: karma 1
// and karma-nc 2 failures over seeds 1-5 (per seed 0 0 0 1 0 and
// 0 0 0 1 1; before, 6 7 8 5 6 and 7 6 7 3 7); the resend alone gives
// 30 and 4. What was left were get-transactions sent to b/s1 just
// before its crash (283-296 ms): one timed out at 1101 ms, 300 ms after
// the restart, which penalized b/s1 again and sent it to ring {c}, whose
// answer the partition cut off. So the restarted MM's ResendReq also
// makes each CC send again at once the reads in progress that wait for
// that MM (resend.go, resendReads: a get asks again, a get-transaction
// starts again, in the same ring; testdata/txn_resent_after_restart).
// With all three no operation of a and b fails over seeds 1-5, and
// TestKarmaAnswersAfterRestartThenPartition asserts it. (nice go test
// -count=1 -v -run RestartThenPartition ./bench/, this branch and its
// base side by side.)
//
// # Ready pushes (issue 12; push.go)
//
// Asked on arrival, the ring checks of "Pipelined propagation" cost the
// write a round trip between its MM's DC and each dependency's owner's
// after it arrives, even when the dependency has been ready or installed
// there for long: on karma-aws8 (ycsb-95-5, four clients per DC, seed 2)
// karma's visibility p50 was 291 ms, cops's 129, and a write skipping its
// program-order wait alone (unsound) still 232. The bench's ordered bound
// (visibility_bound_ordered_ms: at each replica, no sooner than that
// replica could learn that every earlier write of the thread is stored
// at its own replica in the ring) is 163 ms in that run, so the order
// itself costs 1.27x cops; the round trips cost the rest.
//
// So the facts travel as they happen instead. When a write becomes ready
// at its MM (its ready time persisted) and when it is installed there,
// the MM pushes the fact (ReadyPush: version, ready time; version
// installed; one message per destination per step) to its proxy in each
// other DC of its ring: the MM with its server index there. An MM that
// must learn that a program-order predecessor is ready, or a put-after
// dependency installed, at an MM of another DC asks that MM's proxy in its
// own DC (DepCheck.proxy, intra-DC), which answers from the pushes it has,
// or when the push comes; an MM that is itself the proxy asks no one, and
// a fact pushed before the write arrived is used at once (pushedReadyOf,
// pushedInstalledOf). The "written itself" and "written" asks still go to
// the owner: completion is off the visibility path. A dependency's fact
// now reaches the write's MM one one-way delay after it happens, at
// most an intra-DC hop later than the ordered bound allows.
//
// Why it is as sound as asking the owner: the facts are the owner's and
// never change. A ready time is persisted (p/ record) before the push
// leaves, and a restarted owner recovers the same time; installation is
// persisted (i/, then the committed marker) likewise. The proxy relays
// the owner's ready time unchanged, so every MM of the ring still derives
// the same evt for a write (evt(j) <= evt(s) for j in P(s), §4.5), and it
// answers only what it was pushed (testdata/proxy_waits_for_push: a proxy
// that answers unasked installs k3 before k2 is in the ring and the
// checker finds the stale read).
//
// An installed push carries no ready time, so it answers only installed
// asks: a proxy that missed the ready push leaves a ready ask to the
// asker's re-ask.
//
// A proxy observes each push's clock (the owner's, above the evt of every
// write it pushes as installed), as an asker observes a DepOK's: its
// answer then carries a clock above evt(d) for each put-after dependency
// d it reports installed, so the write made ready on it gets r(s) >
// evt(d), which get-transactions need (a snapshot at a time in between
// would hold s without d). Without it, seed 8 of cops-pr on karma-aws8
// (read-txn, 10 keys, 48 clients, 20 ms jitter, random faults, 3 s)
// failed the checker: us-west1/s0 relayed c12-5's installation (evt 487)
// with its clock at 457, and us-west1/s6 made c28-4, which had read c12-5
// in ring 1, ready at 484; a read_txn in ring 0 returned c28-4 with the
// older version of c12-5's key
// (testdata/installed_push_carries_clock: Carol's snapshot holds v3
// without v2).
//
// Why it stays live: a proxy's facts are a cache. Pushes are lost with a
// partition or a crash, a restarted proxy forgets what it had, and a
// proxy forgets facts and unanswered asks after pushHorizon (10 s). None
// of this strands a write: its MM's waits stay in its dependency table as
// before, and their re-asks (resend.go, after resendPredecessor) go to the
// owner itself (testdata/push_lost_asks_owner: re-asks sent to the proxy
// never install k3, and the run never goes quiet). A held read's probes
// also go to the owner.
//
// Measured (causeway sim --protocol P --topology karma-aws8 --workload
// ycsb-95-5 --clients 32 --duration 5s --seed 2; visibility p50/p99 ms,
// ratio to the ordered bound p50): karma 290.8/458.8 (1.73x) before,
// 181.8/293.9 (1.01x) with pushes; cops-pr 299.3 -> 182.5, karma-nc
// 297.0 -> 182.8; cops 129.0. WAN bytes 1.588 M -> 1.456 M (the
// cross-DC asks and answers become intra-DC ones; pushes are small),
// messages 134.9 k -> 144.3 k (the proxied asks). Scenarios:
// proxy_waits_for_push, push_lost_asks_owner, pushed_before_arrival
// (pushedReadyOf removed: k3 waits for the re-ask, 250 ms and more),
// installed_push_carries_clock (the proxy not observing a push's clock:
// fractured transaction).
//
// # Message catalogue (wire/karmapb)
//
//	ClientGet/ClientPut -> ClientReply    session -> CC -> session
//	ClientTxn -> ClientReply (reads)      session -> CC -> session (§4.5)
//	MigrateReq -> MigrateOK               resumed session -> the thread's old CC (token.go)
//	ClientAdopt -> ClientReply            resumed session -> its new CC
//	RingGet -> RingGetReply               CC -> MM (any ring) -> CC; txn, at: §4.5
//	RingPut -> RingPutAck                 CC propagator -> MM -> CC (put, put-after, notify-after)
//	RingPut(notify, installed) -> RingPutAck  CC -> one MM of its DC's ring -> CC: a bound thread's install check (rebind.go; a ~30-byte Dep per writer)
//	Stable                                CC -> MM of every ring
//	DepCheck -> DepOK                     MM -> MM owning the dependency, same ring (by version: ~8 and ~12 bytes); written-itself and written asks
//	DepCheck(proxy) -> DepOK              MM -> the owner's proxy in its own DC (ready and installed asks about another DC's MM; ~8 and ~12 bytes; push.go)
//	ReadyPush                             MM -> its proxy in each other DC of its ring: its versions ready (with ready times) and installed (~10 bytes a version; push.go)
//	DepCheck -> DepOK                     MM -> the key's MM in another ring (stability probe)
//	ResendReq                             MM -> the CC that minted a version it never saw, asked for it (DepCheck.lost; resend.go)
//	ResendReq(version 0)                  restarted MM -> every CC: every write of mine you have sent and not had acknowledged, and your reads waiting for me (resend.go; a few bytes)
//	DepCheck(probe) -> DepOK(probe)       MM holding a read -> MM owning a predecessor, same ring; answered at once (probe_held.go; ~30 bytes each)
//	CacheGet -> CacheGetReply, CacheFill  CC -> cache of its DC
//	Invalidate -> InvalidateAck           MM -> caches in the cached-at set -> MM
//	ProbeReq -> ProbeResp                 CC -> an MM of a suspect DC -> CC (§6.2; an id each, ~7 bytes)
//
// RingPut.after_owners/after_versions are its program-order
// dependencies, packed, without keys; DepCheck.after, after_ready,
// after_self, installed and written ask about versions owned by the
// receiver, and DepOK.ready_versions, ready_ago, self_versions,
// installed_versions and written_versions answer them (see
// "Program-order asks by version"; Dep.owner is a keyless
// program-order dependency's owner). RingPutAck carries the
// acknowledged write's key and version, and
// CacheGetReply the key (see "Incarnations"). Dep.installed asks for an
// installed (not written) dependency, Dep.program_order for a ready one,
// whose DepOK carries its ready time, Dep.self_written for an earlier
// write of the thread written itself (not its own predecessors), and
// DepCheck.self_too on a program-order DepCheck asks that too
// (DepOK.self_too answers both at once; "One ask per predecessor");
// DepCheck.lost marks a DepCheck sent
// again after it went unanswered (resend.go); DepCheck.proxy marks
// after_ready and installed asks about another DC's MM's versions sent
// to its proxy, and ReadyPush carries ready_versions, ready_ago and
// installed_versions as DepOK does ("Ready pushes"); DepCheck.probe and
// DepOK.probe/absent are a held read's probes ("Reads held behind a write
// that cannot install"). ResendReq is a ring index, a key and a version;
// version 0, which no write has, asks for every write the sending MM owns
// in that ring and the reads waiting for it (a restart). A notify-after whose Deps carry installed is
// an install check ("Moving home"), answered once they are installed.
// RingPut.writer and RingGetReply.writer (an in-flight version's) name
// the writing session; Dep.writer is the CC's own record of it and never
// reaches an MM (see "One put-after dependency per writer").
//
// # Storage
//
// MM: "d/<key>" value at its version; "s/<key>@<v>" committed markers
// (with the version's ready time); "p/<key>@<v>" a write ready and not
// yet installed (the RingPut, at its ready time, program-order
// dependencies without keys; pipeline.go); "i/<key>@<v>"
// a write installed and not yet written, at its ready time (sent again
// after a restart it keeps that time, so every MM of the ring derives the
// same evts);
// "t/<key>" highest stable version (the superseded versions in the
// multiversion window carry their own, in memory); "boot" written at every start; "c"
// the commit clock's lease (MMs and CCs). CC: "v" the version counter's
// lease, "w/<thread>/<id>" WB entries,
// "r/<thread>/<key>@<v>" DRR entries, the ring then the version's writer
// (synced before the get that caused
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
//     propagation, which caps a thread at one write per round trip to the
//     farthest ring), up to 128 (pipelineWindow) of its writes
//     unacknowledged by a ring travel to it at once and program order is
//     kept by the MMs (see "Pipelined propagation").
//     Put-after dependencies are waited for until installed in the ring
//     (to be ready) and written there (to be written), where §4.1.2 waits
//     for the dependency's completion in the ring; a reader bound to a ring
//     whose back end fails is released by rebind.go's ring move, not by
//     the completion §4.4 counts on (see "Pipelined propagation").
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
//   - A thread bound to a ring other than its DC's own is moved back to
//     its own ring once every restriction it holds is installed there
//     ("Moving home"); §4.2 keeps it bound until its restrictions lift.
//   - An MM learns that another DC's MM has a dependency ready or
//     installed from that MM's push to a proxy in its own DC ("Ready
//     pushes"), where the paper's MMs ask the dependency's MM: the same
//     facts, one one-way hop after they happen instead of a round trip
//     after the dependent write arrives.
//   - Write-only transactions are not offered (§4.5: "not worth the
//     complexity"): write_txn answers ErrUnsupported.
package karma
