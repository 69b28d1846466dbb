// Package eventual registers the "eventual" protocol: per-key
// last-writer-wins with asynchronous replication and no causal tracking —
// the eventually consistent baseline (Cassandra at consistency level ONE
// with every DC holding a replica; karma.txt §1 and k2.txt §II discuss why
// it is not enough). The checker must catch it.
//
// How it runs (implemented by package fullrep with Causal off): a put is
// synced at the key's shard in the client's DC, acknowledged at once, and
// replicated to the same shard in every other DC with retries until each
// acknowledges; a replicated write is applied on arrival if its version is
// newer. Versions are the writing server's physical clock in microseconds
// (skew included, as in Cassandra), tie-broken by server index. Reads are
// answered by the nearest replica, which with full replication is the
// local DC's.
//
// A session token (protocol.Mover) carries no dependencies: a session
// moved to another DC resumes at once and may not read its own writes there
// (testdata/move_session shows the checker catching it).
//
// Messages (wire/fullreppb, as package fullrep lists them): GetRequest/
// GetReply and PutRequest/PutReply between a session and its DC's shard,
// Replicate/ReplicateAck between a shard and the same shard in every other
// DC; no DepCheck, since nothing waits for dependencies.
//
// Deviations from Cassandra: no read repair, hinted handoff or anti-entropy
// (the write's origin retries until acknowledged instead); one replica per
// DC; read_txn and write_txn answer ErrUnsupported.
package eventual

import (
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/fullrep"
)

// Name is the protocol's CLI name.
const Name = "eventual"

func init() {
	protocol.Register(fullrep.New(fullrep.Mode{Name: Name,
		Summary: "eventual: per-key last-writer-wins, async replication, no causal tracking"}))
}
