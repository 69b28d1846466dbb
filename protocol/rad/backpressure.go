package rad

import (
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/radpb"
)

// This file is replication backpressure, a deviation from Eiger (see
// doc.go, "Deviations"). A replica group whose DCs are far apart commits a
// chain of causally dependent replicated writes at most one wide-area
// one-way per link (each write's dependency check waits for the previous
// write to commit at its server in another DC of the group), while a group
// of one DC commits them at local speed: on local3 with f=2 the group {b}
// took ~500 writes/s and {a, c} committed ~50/s of them, the backlog
// growing for as long as clients ran (3,600 uncommitted after 15 s, two
// minutes to drain). Each receiver reports its backlog in its
// ReplicateAck; a server holds new client writes while a recent report is
// over maxBacklog, so the senders slow to what the slowest group commits.
// A report older than backlogFresh is ignored (a partitioned group reports
// nothing and does not stop writes), and no write is held longer than
// maxHold, well under the clients' operation timeouts.
const (
	maxBacklog   = 64
	backlogFresh = 500 * time.Millisecond
	maxHold      = 500 * time.Millisecond
)

// backlogReport is a receiver's last reported backlog.
type backlogReport struct {
	pending uint32
	at      time.Duration
}

// heldWrite is a client's write request held by backpressure.
type heldWrite struct {
	from protocol.NodeID
	req  *pb.WriteRequest
	at   time.Duration
}

// behind reports whether a receiver of this server's replication recently
// reported a backlog over maxBacklog.
func (s *server) behind(now time.Duration) bool {
	for _, rep := range s.backlogs {
		if rep.pending > maxBacklog && now-rep.at < backlogFresh {
			return true
		}
	}
	return false
}

// admitWrite handles a client's write request now, or holds it behind the
// ones already held while a receiver is behind. Requests for transactions
// this server already knows (duplicates, decided ones) are never held.
func (s *server) admitWrite(now time.Duration, from protocol.NodeID, b *pb.WriteRequest, r *protocol.Ready) {
	_, decided := s.decisions[b.TxnId]
	if !decided && s.parts[b.TxnId] == nil && (len(s.held) > 0 || s.behind(now)) {
		s.held = append(s.held, heldWrite{from: from, req: b, at: now})
		return
	}
	s.writeRequest(now, from, b, r)
}

// releaseWrites handles the held writes, oldest first, once no receiver
// is behind or once they have been held maxHold.
func (s *server) releaseWrites(now time.Duration, r *protocol.Ready) {
	for len(s.held) > 0 && (!s.behind(now) || now-s.held[0].at >= maxHold) {
		h := s.held[0]
		s.held[0] = heldWrite{}
		s.held = s.held[1:]
		s.writeRequest(now, h.from, h.req, r)
	}
	if len(s.held) == 0 {
		s.held = nil
	}
}

// noteBacklog records a receiver's reported backlog.
func (s *server) noteBacklog(now time.Duration, from protocol.NodeID, pending uint32, r *protocol.Ready) {
	s.backlogs[from] = backlogReport{pending: pending, at: now}
	s.releaseWrites(now, r)
}
