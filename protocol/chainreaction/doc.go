// Package chainreaction is ChainReaction (Almeida, Leitão and Rodrigues,
// EuroSys 2013; chainreaction.txt §3), a causal+ key-value store on a
// variant of chain replication, on the reusable core of package chain. It
// implements the single-site protocol; see "Not yet built" for §4–§5.
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
//   - Faults (§3.7): the core's repairs; a node behind the session's
//     version forwards a get upward (stale chainIndex); the proxy
//     retransmits a put to the new head, which recognises its request id;
//     nodes before k serve only k-acknowledged versions (the head-failure
//     gap, reading notes).
//
// # Messages
//
// Those of package chain (wire/chainpb): Put/PutReply, Get/GetReply and
// Stabilize/StabilizeReply between session and servers, the rest between
// servers and the master.
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
//
// # Not yet built
//
// Geo-replication (§4: version vectors and chainIndexVector, remote
// proxies with per-origin FIFO delivery of remote-updates, bloom-filter
// dependencies, last-writer-wins for concurrent writes, sibling-tail
// acknowledgements), cr-cops, and get-transactions (§5): read_txn
// answers ErrUnsupported.
package chainreaction
