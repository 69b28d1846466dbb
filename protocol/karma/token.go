package karma

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// Moving a session to another DC (protocol.Mover, protocol.Resumer; the
// migration of c3.txt and k2.txt §VI-B). A Karma thread's causal state
// lives at its client coordinator: its write buffer and ring restrictions.
// The token names the thread; the resumed session asks the thread's old CC
// to migrate it, and the old CC answers only once the thread's causal past
// is complete in every ring — its write buffer drained (every write
// acknowledged by every ring, caches invalidated) and its restrictions
// lifted (by its puts or notify-after). From then on any ring and any DC
// cache may serve the thread, exactly as for a thread whose reads were all
// stable. The answer carries the old CC's commit clock and a bound on the
// versions the thread has seen; the new CC raises its clocks past them
// (ClientAdopt) so the thread's next writes and get-transactions follow its
// history. Operations submitted meanwhile wait, and time out if the old CC
// cannot be reached or the thread's writes cannot complete (a partition).
//
// The state inside the protocol.EncodeToken envelope:
//
//	tokenState     1 byte, this encoding's version
//	len(id), id    uvarint and bytes: the session (thread) it continues
const tokenState = 1

// migrateTick is the session's timer token for migration resends;
// operation timeouts use request IDs, which start at 1.
const migrateTick = 0

// migration is a resumed session's progress.
type migration struct {
	from  protocol.NodeID // the thread continued
	oldCC protocol.NodeID
	reqID uint64
	adopt *pb.ClientAdopt // set once the old CC agreed
}

// Token implements protocol.Mover: the thread this session is (or, if it
// is itself still migrating, continues).
func (s *session) Token() []byte {
	id := s.id
	if s.mig != nil {
		id = s.mig.from
	}
	b := []byte{tokenState}
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	return protocol.EncodeToken(s.proto, b)
}

// ResumeSession implements protocol.Resumer.
func (p *Protocol) ResumeSession(cfg protocol.SessionConfig, token []byte) (protocol.Session, error) {
	state, err := protocol.DecodeToken(p.Name(), token)
	if err != nil {
		return nil, err
	}
	bad := func(what string) error { return fmt.Errorf("%w: %s", protocol.ErrBadToken, what) }
	if len(state) == 0 || state[0] != tokenState {
		return nil, bad("unknown session state encoding")
	}
	n, w := binary.Uvarint(state[1:])
	if w <= 0 || n == 0 || uint64(len(state)-1-w) != n {
		return nil, bad("malformed session name")
	}
	from := protocol.NodeID(state[1+w:])
	if !cfg.Topology.HasDC(from.DC()) || from.Name() == "" {
		return nil, bad(fmt.Sprintf("session %q is not of this topology", from))
	}
	s := p.NewSession(cfg).(*session)
	s.mig = &migration{from: from, oldCC: ccFor(cfg.Topology, from)}
	s.nextReq++
	s.mig.reqID = s.nextReq
	return s, nil
}

// migrateSend (re)sends the current step of the migration.
func (s *session) migrateSend(r *protocol.Ready) {
	if s.mig.adopt == nil {
		r.Send(s.id, s.mig.oldCC, &pb.MigrateReq{ReqId: s.mig.reqID, Thread: string(s.mig.from)})
		return
	}
	r.Send(s.id, s.cc, s.mig.adopt)
}

// migrateStep handles the old CC's agreement and the new CC's adoption;
// when both are done, a waiting operation is sent.
func (s *session) migrateStep(m protocol.Message, r *protocol.Ready) {
	switch b := m.Body.(type) {
	case *pb.MigrateOK:
		if b.ReqId != s.mig.reqID || s.mig.adopt != nil {
			return
		}
		s.mig.adopt = &pb.ClientAdopt{ReqId: s.mig.reqID, Session: string(s.id), Clock: b.Clock, MaxVersion: b.MaxVersion}
		s.migrateSend(r)
	case *pb.ClientReply:
		if b.ReqId != s.mig.reqID || s.mig.adopt == nil {
			return
		}
		s.mig = nil
		if s.pending != nil {
			s.send(r)
		}
	}
}

// migrate answers a resumed session asking for thread's history, once that
// history is complete in every ring (see above); until then the session
// asks again.
func (c *coordinator) migrate(now time.Duration, from protocol.NodeID, b *pb.MigrateReq, r *protocol.Ready) {
	if t := c.threads[b.Thread]; t != nil && (len(t.wb) > 0 || len(t.drr) > 0 || t.notify != nil) {
		t.moving = true
		c.maybeNotify(now, t, r)
		return
	}
	r.Send(c.id, from, &pb.MigrateOK{ReqId: b.ReqId, Clock: c.lc.now, MaxVersion: c.vc.now<<ccBits | (1<<ccBits - 1)})
}

// adopt raises the CC's clocks past a migrated thread's history.
func (c *coordinator) adopt(from protocol.NodeID, b *pb.ClientAdopt, r *protocol.Ready) {
	c.lc.observe(b.Clock)
	c.vc.observe(b.MaxVersion >> ccBits)
	t := c.thread(b.Session)
	t.maxSeen = max(t.maxSeen, b.MaxVersion)
	r.Send(c.id, from, &pb.ClientReply{ReqId: b.ReqId})
}
