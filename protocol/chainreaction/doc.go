// Package chainreaction is ChainReaction (Almeida, Leitão and Rodrigues,
// EuroSys 2013; chainreaction.txt §3), a causal+ key-value store on a
// variant of chain replication, on the reusable core of package chain. It
// implements the single-site protocol (§3) and single-site
// get-transactions (§5); see "Not yet built" for §4 and §5's geo path.
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
//     carries value, version, the node's index and the stable flag; the
//     update rules i) stable → entry dropped (chainIndex R), ii) same
//     version → max(chainIndex, tindex), iii) newer → tindex. "pversion",
//     never defined, is the entry's version.
//   - Get-transactions (§5, package chain's sequencer.go and txn.go, txn.go
//     here): a sequencer beside the master numbers every put (the session
//     sends its put there, the sequencer forwards it to the head, and the
//     number becomes the version's counter) and gives a get-transaction
//     its snapshot; the session reads every key at its chain's head, which
//     returns the newest version numbered at or below the snapshot (heads
//     keep every version newer than the newest stable one, and that one:
//     the multiversion of §6), or aborts when it has dropped that version;
//     on an abort the session takes a new snapshot and reissues every
//     read. Each read updates the metadata as a get served by the head
//     (chain index 0). The reply's metric txn_aborts counts the aborted
//     tries.
//   - Faults (§3.7): the core's repairs; a node behind the session's
//     version forwards a get upward (stale chainIndex); the proxy
//     retransmits a put to the new head, which recognises its request id;
//     nodes before k serve only k-acknowledged versions (the head-failure
//     gap, reading notes).
//
// # Messages
//
// Those of package chain (wire/chainpb, sizes in its doc): SeqPut (session
// -> sequencer -> head) and PutReply (node k -> session), Get/GetReply and
// Stabilize/StabilizeReply between session and servers, SeqRequest/SeqReply
// (session <-> sequencer) and HeadRead/HeadReadReply (session <-> head)
// for get-transactions, the rest between servers and the master.
//
// # Deliberate deviations
//
//   - The client proxy is folded into the session: stabilization and
//     routing cost no proxy hop (the reading notes: "with no proxy cost a
//     simulator gives ≈6× on single-object reads").
//   - On several DCs a key has one chain spanning them (the core's layout,
//     as FAWN-KV's geo chain), not a chain per DC with remote proxies: the
//     store stays causal+ (it is then linearizable per key up to node k),
//     but every put crosses the WAN.
//   - §5's sequencer keeps one sequence per chain; ours keeps one clock
//     for the whole domain (a put's number is the next tick, a snapshot
//     the current one): a total order of puts, which refines per-chain
//     numbers, and makes the snapshot a single number.
//   - §5's head delays a read whose preceding put has not arrived yet,
//     and aborts on a timeout; ours serves at once, skipping puts still
//     on their way from the sequencer. This is safe: a put in anyone's
//     causal past has reached its head (node k answered it, a get read
//     it, or a dependent put stabilized it first), and a put depending on
//     one still on its way cannot have been numbered yet. Our heads abort
//     instead when the version the snapshot asks for was dropped.
//   - §5's late puts create old versions at the head for
//     get-transactions; ours are overwritten at once (never read by
//     anyone, so no snapshot needs them).
//
// # Not yet built
//
// Geo-replication (§4: version vectors and chainIndexVector, remote
// proxies with per-origin FIFO delivery of remote-updates, bloom-filter
// dependencies, last-writer-wins for concurrent writes, sibling-tail
// acknowledgements), cr-cops, and §5's geo path for get-transactions:
// with a sequencer per DC, a remote put applied at a DC's head must be
// numbered by that DC's sequencer too (the remote proxy sends it through
// it), and a get-transaction whose dependencies (the session's metadata
// of another DC) are not yet at a head is aborted and retried in two
// phases: a blocking read (as in stabilization, but at the heads) for
// each missing dependency, then the get-transaction again, which then
// succeeds. Today a multi-DC topology has one chain domain, one
// sequencer and one chain per key spanning the DCs, so get-transactions
// there take the single-site path.
package chainreaction
