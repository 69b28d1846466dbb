// Package chain is a reusable chain-replication core (van Renesse and
// Schneider, OSDI 2004, as chainreaction.txt §2–§3 uses it): the servers
// and the membership master that another protocol puts its keys on. FAWN-KV
// (package fawnkv, classic chain replication) and ChainReaction (package
// chainreaction) are built on it; a protocol supplies a Mode (its name,
// the chain index that answers a put, its client session) and gets a
// protocol.Protocol whose server nodes run this package.
//
// # Chains (chainreaction.txt §3.2)
//
// A key's chain is R consecutive servers of its DC's consistent-hashing
// ring (topology.Chain; R = placement.chain_length, 3 when unset, at most
// the DC's servers), head first. On a topology of several DCs one chain
// spans them, DC segment after segment, in declared order (FAWN-KV's geo
// chain). Layout.Chain computes the chain under a membership View: the
// first R live, non-joining servers in ring order, then the joining
// servers that will belong to it, appended as tails.
//
// Under Layout.Geo (Mode.Geo; ChainReaction's §4) each DC instead has its
// own chain of every key, and its own remote-proxy node (RoleProxy,
// "p0"): a tail ships each version written in its DC to the proxy (Ship,
// geo.go) and calls it stable only once logged (ShipAck) — every such
// version, not only the newest: an Update carries its sender's older
// versions of the DC not yet known stable (Update.unshipped), so that one
// lost with its Update or with a dying tail is still shipped, and a node
// that a repair makes the tail ships every one above the stable one; proxies
// exchange batches (RemoteUpdate, RemoteAck; proxy.go), deliver them per
// origin in FIFO order and apply them in parallel unless a bloom filter
// (bloom.go) or an explicit dependency list says an earlier queued put may
// be a dependency; a head applies such a put at its origin's version
// unless it holds a newer one, and versions carry their DC (counter<<20 |
// DC<<16 | epoch) so that concurrent writes order by (clock, DC). Package
// chainreaction documents the protocol.
//
// # Writes (§3.3, §3.5)
//
// The head assigns a version (counter<<20 | epoch: the counter exceeds the
// key's latest version, the put's min_version and the head's clock in µs;
// the epoch makes a new head's versions differ from a failed head's) and
// propagates it down the chain. Propagation to node k (Mode.K; the tail
// when K is 0) is eager; node k answers the client (PutReply with its
// chain index) and sends a KAck up to the head; propagation past node k is
// lazy: Update.lazy, which Protocol.Priority serves at
// protocol.PriorityLow. The tail marks the version DC-Write-Stable and
// sends a StableAck up the chain.
//
// Every server persists (synced) each version it applies (with its
// sequence number when its counter does not stand for it: a remote
// version's, txn.go) and the last put of each client it has seen, and a
// restarted server keeps them.
//
// # Reads (§3.6, §3.7)
//
// In FAWN-KV mode (K = 0) the tail serves every Get. Otherwise a Get may go
// to any node: a node behind the session's min_version forwards it up the
// chain (the head, lacking it, passes it down); nodes before node k serve
// only versions node k acknowledged (the head-failure gap: a version that
// never reached k may vanish with the head, so it must never be read),
// and one that holds a newer version than that holds the read until node
// k's acknowledgement covers it (the newer version may be stable already,
// and a session that saw it stable kept no entry that would stop an older
// read; kwait.go); a reply says whether the version served is stable, and
// names node k's index for a version node k acknowledged (every node up
// to k holds it, so the session's next reads spread over that prefix). A Stabilize is
// answered by the tail (or any node that knows) once the version is
// stable.
//
// # Membership and repair (§3.7)
//
// One master node (RoleMaster, "m0" in the first DC) keeps the
// epoch-numbered View, persisted (synced) before it is sent. Failure
// detection is on demand, so that an idle run goes quiet: a server that
// retransmits to its successor and has heard nothing from it for three
// ResendEvery periods (a congested successor still sends acknowledgements),
// or a session whose request goes unanswered, sends Suspect; the master
// Pings the suspect on a timer, three times with a doubling wait (2.8 s in
// all), and removes it from the view when no Pong comes (a late Pong to
// an earlier ping of the same suspicion counts). The master sends its
// next view to the sessions that reported a suspect. A new session starts
// from the initial view, so before its first request it asks the master
// for the current one (Client.Fetch: a ViewRequest, and under Geo away
// from the master's DC one to a server of its own DC too, which answers
// with its view), and sends nothing until a View arrives or its first
// resend gives up waiting; the master's answer lists the servers it is
// pinging (View.suspects), which the session's reads avoid while another
// node of the prefix may serve them, and the master sends that session
// its next view (under the live runtime a read sent to a dead server
// fails at once as unavailable, so a session that kept the initial view
// failed on every read there). The
// repair is then the chain order itself: a head's successor becomes head
// (H+), a tail's predecessor becomes tail (T−), a middle node's neighbours
// are linked, and the next server of the ring is appended as the new tail
// (recovering the chain size). On adopting a view every server
//
//   - pushes its newest version of each key whose successor changed (the
//     retransmission of pending puts to a middle node's successor, and the
//     state transfer to a new tail), retransmitted until a PushAck;
//   - catches up a new predecessor (a new head) with an up-Update,
//     retransmitted until a PushAck;
//   - takes over the duties of a new tail (stability, StableAck) or a new
//     node k (KAck);
//   - tells every other server Synced once its pushes are acknowledged.
//
// A server is synced in an epoch once every other member said Synced; an
// unsynced node forwards reads up, and an unsynced head (or FAWN-KV's
// tail) drops them: the session retransmits. A restarted server (or one removed
// while alive and told so) Joins; the master admits it as joining, a tail
// in quarantine appended to the chains it belongs to; once synced it sends
// JoinDone and the master promotes it to its ring position.
//
// Retransmission: sessions resend their outstanding request after a
// timeout learnt from the requests they had answered without a
// retransmission (srtt + 4 rttvar, at least ResendEvery), then twice as
// late each time up to 2 × ResendEvery or that timeout (a Suspect of the
// silent node first), and at once on a newer view, with the same request
// id; servers retransmit an unstable version (or an
// unacknowledged push) after a timeout learnt per successor from the
// round trips of versions never retransmitted (srtt + 4 rttvar, at least
// ResendEvery, as TCP's), doubling up to 8 × ResendEvery, at most 32
// versions per tick; without pacing, a saturated chain's retransmissions
// kept its queues longer than the master's ping timeout, live servers were
// removed and rejoined in a loop and the replicas never converged. A
// head that knows the id (from its own put, or from the Update or push
// that carried it, Update.seen) re-propagates the existing version (unless
// it sent it within the timeout: the copy would queue behind the
// original) or answers it once stable, instead of writing again; so does
// a node that knows the version stable. Ids are per session, which
// never restarts (a crashed client is a new client, §3.4 footnote 2);
// master ping nonces embed NodeConfig.Incarnation.
//
// # Sequencer and get-transactions (chainreaction.txt §5)
//
// With Mode.Sequencer (Layout.Sequenced) the domain has a sequencer node
// (RoleSequencer, "q0" beside the master; under Geo one "q0" in every
// DC) that numbers every put: the session sends its put to its DC's
// sequencer (SeqPut), which takes the next tick of its clock
// (max(clock+1, now in µs)) as the put's sequence number and forwards it
// to the head, where it becomes the counter of the put's version; the
// head keeps the number with the version (ver.seq). Under Geo a DC's
// remote-proxy sends each remote put it applies through its own DC's
// sequencer too, which numbers it on arrival: the head keeps that number
// beside the origin's version (Update.seq carries it down the chain, for
// a successor that becomes head), so that a snapshot of the DC holds a
// remote put only if it arrived before the snapshot was taken, after its
// dependencies (package chainreaction, "Get-transactions under
// geo-replication"). A put
// that reaches the head after a newer version of its key (§5's "late
// PUT") is overwritten at once and answered as any put; under Geo it is
// answered at once with PutReply.superseded, since no tail ships a
// version that was never stored, and the session keeps the dependencies
// such a put cannot stand for in the other DCs. A get-transaction
// asks the sequencer for a snapshot (SeqRequest: the clock, which every
// earlier put's number is at or below and every later one above) and
// reads each key at the head of its chain (HeadRead): the head serves the
// newest version (in version order) of those numbered at or below the
// snapshot, and aborts the read when it has dropped that version (a head
// keeps the newest stable version and every newer one), when it is older
// than the version the session knows, or when a remote version's number
// is unknown (recovered from disk); the session then takes a new snapshot
// and reissues every read (txn.go, sequencer.go, package chainreaction).
//
// # Answers to sessions
//
// A live node can send to a session only on a stream that session opened
// to it since the node started (ARCHITECTURE.md "Replies to sessions"),
// but a put goes to the head and is answered by node k (FAWN-KV: the
// tail), and a forwarded Get or Stabilize by whichever node serves it.
// Each server therefore remembers the sessions that sent it an Announce
// or a request since it started; the first server a request reaches
// writes itself into it as entry, and the Update, forwarded Get or
// Stabilize carries entry along. The node that answers sends the reply to
// the session directly if it has heard from it, else to entry with the
// session named in the reply's client field, and entry relays it (a
// relay that has not heard from the session either, having restarted,
// drops it: the session retransmits). So that node k answers directly,
// as in §3.3 (at node k "a result ... is returned to the proxy", the
// session here), which keeps the paper's put latency, a session sends node k an
// Announce together with its first put whose node k it is, once per
// incarnation of that node in the session's view: one message per node
// instead of a relay hop (one intra-DC hop, or a WAN hop for FAWN-KV's
// geo chain) on every put.
//
// # Messages (wire/chainpb)
//
//	Announce       session -> node k (or tail)     empty (~2 B)
//	Put            session -> head                 key, value, ids, entry (~45 B + value)
//	PutReply       node k -> session, or -> entry  ids, version, index, superseded (~30 B; +client
//	               -> session when relayed        ~10 B)
//	Update         node -> successor (or up)       key, version, value, ids, epoch, entry (~55 B + value;
//	                                               Geo: + a remote version's seq, ~5 B; + the
//	                                               sender's older unshipped versions of its DC,
//	                                               usually none)
//	PushAck        successor -> pusher             key, version (~20 B)
//	KAck           node k -> predecessors          key, version (~20 B)
//	StableAck      tail -> predecessors            key, version (~20 B)
//	Get            session -> node, node -> node   key, ids, min_version, entry (~45 B)
//	GetReply       node -> session (or via entry)  value, version, index, stable (~35 B + value)
//	Stabilize      session -> tail, node -> tail   key, version, ids, entry (~45 B)
//	               (Geo: resumed session -> proxy)
//	StabilizeReply tail -> session (or via entry)  ids, key, version (~30 B)
//	               (Geo: proxy -> resumed session)
//	View           master -> servers, sessions;    epoch, members (~25 B per server),
//	               server -> session of its DC    to a session: suspects (~10 B each)
//	ViewRequest    server, session -> master;      epoch (~5 B)
//	               session -> server of its DC
//	ViewAck        server -> master                epoch (~5 B)
//	Suspect        server, session -> master       node, epoch (~20 B)
//	Ping, Pong     master <-> server               nonce, incarnation (~15 B)
//	Join, JoinDone restarted server -> master      incarnation, epoch (~10 B)
//	Synced         server -> servers               epoch (~5 B)
//	               (under Geo: its own DC's)
//	Ship, ShipAck  tail <-> own DC's proxy         key, version (+ value, geo)
//	RemoteUpdate   proxy -> other DCs' proxies     first, rvp, puts (Geo only)
//	RemoteAck      proxy -> origin's proxy         prefix (~5 B)
//	GlobalStable   proxy -> tail -> predecessors   key, version (~20 B)
//	SeqPut         session -> sequencer -> head    a Put and its sequence number (~50 B + value);
//	               (Geo: also proxy -> sequencer  the remote put's Put, geo and remote
//	               -> head)                       version (~60 B + value)
//	SeqRequest     session -> sequencer            ids, keys (~10 B + keys)
//	SeqReply       sequencer -> session            ids, a snapshot per key (~10 B + 5 B per key)
//	HeadRead       session -> head                 ids, key, snapshot, min_version (~35 B)
//	HeadReadReply  head -> session                 ids, key, value, version, stable, abort (~30 B + value)
//
// # Deliberate deviations
//
//   - Failure detection is by suspicion and ping, not periodic heartbeats
//     (a run with periodic messages never quiesces).
//   - The master is one simulated node, not replicated (chain
//     replication's master is a Paxos group); while it is down no view
//     changes.
//   - A put is accepted while a chain has fewer than k full members: node
//     k is then the last full member (the paper refuses puts below k).
//   - Removal is decided by ping timeouts, with no leases, so a partition
//     can remove a live server; it is told the view (the master re-sends
//     it until acknowledged), drops its memory (what it holds may never
//     have reached node k) and rejoins as a new tail. Until it hears, it
//     may serve clients that have not heard either (a known gap).
//   - Versions are per key, so a push carries only a key's newest version
//     (not every pending update in order).
//   - The paper's client talks to whichever node answers; here a session
//     announces itself to node k (Announce) and a node it has not heard
//     from relays its answer through the entry server (see "Answers to
//     sessions"): a put whose Announce is late, or a reply after node k
//     restarted, costs one hop more.
package chain
