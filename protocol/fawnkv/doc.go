// Package fawnkv is FAWN-KV (Andersen et al., SOSP 2009), ChainReaction's
// linearizable baseline (chainreaction.txt §3.2 and §7: "FAWN-KV 3/6" in
// one site, "FAWN-KV 4/8" across two): classic chain replication on the
// reusable core of package chain. A put goes to the head of its key's
// chain and is answered by the tail once every node applied it; every get
// is served by the tail. Reads and writes are thus serialised at the tail,
// which makes the store linearizable; it claims causal+ and is checked as
// such.
//
// The chain is R consecutive servers of each DC's ring (placement
// chain_length, R = 3 when unset); on a topology of several DCs one chain
// spans them, DC segment after segment (the geo runs' single chain, §7.2).
// Membership, repairs, state transfer and retransmission are the core's
// (see package chain).
//
// A session moves to another DC by token (protocol.Mover, token.go;
// k2.txt §VI-B's switching datacenters): the token carries no causal
// context, since every key has one chain whose tail serves every read and
// answers every put, so the session goes on at once (testdata/move).
//
// # Messages (wire/chainpb)
//
//	Put        session -> head          key, value, ids (~30 B + value)
//	Get        session -> tail          key, ids (~30 B)
//	PutReply   tail -> session          ids, version (~25 B)
//	GetReply   tail -> session          value, version (~30 B + value)
//
// plus the core's Update, StableAck, KAck, Stabilize, View, ViewRequest,
// ViewAck, Suspect, Ping, Pong, Join, Synced and JoinDone (package chain).
//
// # Deliberate deviations
//
//   - The front-end proxy is folded into the client session (no proxy
//     hop, no proxy cost).
//   - A quarantined (joining) tail does not serve reads; they are
//     retransmitted until it has its state.
package fawnkv
