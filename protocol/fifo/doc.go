// Package fifo is the reliable FIFO channel between the per-DC nodes of a
// causality layer: c3's layers on a full mesh (c3.txt §3.2, which assumes
// "FIFO links" between layers and leaves their fault tolerance open) and
// saturn's serializers on a tree (c3.txt §2: Saturn's labels travel a tree
// of FIFO links). It is not a protocol of its own; both protocols' doc.go
// describe how they use it.
//
// # What it does
//
// Every message a node sends to a peer is numbered on the channel to that
// peer (its seq field), logged durably (synced) before it is sent, and
// resent with backoff until the peer acknowledges it; the receiver takes
// messages in seq order only, each once, records the last seq it took
// durably and acknowledges cumulatively at its next tick.
//
// So a node that crashes after sending a message to some peers only
// resends it to the others after its restart, and no peer waits forever
// for a sequence number lost with the sender's memory. A backlog (after a
// partition or a restart) drains a window of MaxResend messages per round
// trip: once a retransmission has fired, every acknowledgement that
// advances sends the next window.
//
// # Messages
//
// The channel carries its user's message type M (Config.New, SetSeq) and
// one acknowledgement (Config.Ack); sizes are the users' wire types:
//
//	M (c3 and saturn: Label)  node -> peer   the user's payload + seq (uvarint, ~3 B)
//	Ack (LabelAck)            peer -> node   the last seq taken in order (~5 B),
//	                                         at most one per peer per tick
//
// # Storage
//
// Counters are 8-byte big-endian values: "c/next/<peer>" the last seq sent
// to a peer, "c/recv/<peer>" the last seq taken from it, "o/<peer>/<seq>"
// a message not yet acknowledged. Peers are numbered by their DC's index in
// the topology.
//
// # Deviations
//
// The papers assume FIFO links that never lose a message; this package is
// our design for them under crashes, loss and partitions (durable send and
// receive logs, cumulative acknowledgements, windowed retransmission). A
// message logged but not yet sent when its node crashes is sent after the
// restart: a peer may see it later than in a failure-free run, never out
// of order and never twice.
package fifo
