// Package protocol is the contract between Causeway's protocols and the
// runtimes that drive them.
//
// A protocol is a set of deterministic state machines, in the style of
// etcd's raft library: server-side nodes (Node) and client sessions
// (Session). A state machine never starts goroutines, takes locks, reads the
// wall clock, sleeps or does I/O. It receives one input at a time — a
// message (Step), a timer firing (Tick), a client request (Session.Submit) —
// together with the node's local clock reading, and answers with a Ready: the
// storage writes to persist, and, only once those are persisted, the messages
// to send, timers to set, client replies to deliver and visibility events to
// report. The runtime (runtime/sim or runtime/live) does the rest.
//
// Durability order is part of the contract and lives in the Ready type: a
// runtime must apply Ready.Persist (syncing it when Persist.Sync is set)
// before it acts on anything in Ready.After. Protocols fill a Ready with its
// builder methods (Write, Send, SetTimer, Reply, Visible, VisibleVersion) so
// that they never depend on the layout. A node or session may reuse the
// slices of its Readies (Recycler, ReadyPool): a runtime that hands each
// applied Ready back saves their allocation; one that does not loses
// nothing.
//
// Messages are protobuf messages. Every runtime round-trips them through the
// wire codec (package wire), so no two nodes ever share memory through a
// message.
//
// Abbreviations used in this package: DC = datacenter, WAN = wide-area
// network, LWW = last-writer-wins.
package protocol
