package c3

import (
	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/c3pb"
)

// Watches records, by session, the latest migration a session announced
// with MigrateWatch since the node (a layer, or Saturn's serializer)
// started: the sessions it can answer directly. A node can reach a
// session only if the session sent it something since the node started,
// for the live runtime answers a session on the connection the session
// opened (ARCHITECTURE.md, "Replies to sessions").
type Watches map[protocol.NodeID]uint64

// Watch records a session's MigrateWatch.
func (w Watches) Watch(session protocol.NodeID, migID uint64) {
	w[session] = max(w[session], migID)
}

// AnswerMigration tells session that its migration migID executed at dc
// (Alg. 1 l.55-56): directly when the session asked this node (asked) or
// watched it for this migration or a later one; else through source, the
// node the session asked, which relays the answer (RelayMigrateResponse).
func (w Watches) AnswerMigration(self, session protocol.NodeID, migID uint64, dc string, asked bool, source protocol.NodeID, r *protocol.Ready) {
	if v, ok := w[session]; asked || (ok && v >= migID) {
		if ok && v <= migID {
			delete(w, session)
		}
		r.Send(self, session, &pb.MigrateResponse{MigId: migID, Dc: dc})
		return
	}
	r.Send(self, source, &pb.MigrateResponse{MigId: migID, Dc: dc, Session: string(session)})
}

// RelayMigrateResponse passes a target node's MigrateResponse on to the
// session that asked this node to migrate it; fromNode says the sender is
// one of the protocol's per-DC nodes, the only ones whose answer names a
// session. Not reliable: a lost answer is asked for again by the
// session's ClientMigrate resend.
func RelayMigrateResponse(self protocol.NodeID, fromNode bool, b *pb.MigrateResponse, r *protocol.Ready) {
	if b.Session == "" || !fromNode {
		return
	}
	r.Send(self, protocol.NodeID(b.Session), &pb.MigrateResponse{MigId: b.MigId, Dc: b.Dc})
}
