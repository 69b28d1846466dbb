package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/transport"
)

// ErrUnavailable is wrapped by the error of a client operation that could
// not reach the node it was sent to (nothing listens at its address, or
// connecting failed): a read that cannot be answered, or a write none of
// whose messages left this process, so that it did not take effect. The
// session ends with it (see Session.Do).
var ErrUnavailable = errors.New("unavailable")

// ErrNotSent is wrapped by the error of a client operation one of whose
// messages could not be sent at all, e.g. because a field could not be
// encoded (a key that is not UTF-8): the session ends with it.
var ErrNotSent = errors.New("request not sent")

// opTrack is what a client session's machine knows about the fate of the
// messages of its outstanding operation, from the client's FailFast
// transport (see the transport package, "Failing fast").
type opTrack struct {
	gen    uint64 // incremented at each submission
	op     protocol.Op
	sent   int   // messages handed to the transport since the submission
	unsent int   // of them, refused or dropped unwritten: unreachable
	why    error // the last unreachable error, or what could not be sent
	broken bool  // a message could not be sent at all (why says why)
}

// sendTracked is a client session's send: it hands m to the client's
// transport and counts it, and its fate, against the outstanding
// operation. It runs with the machine's state (under its direct lock).
func (c *ClientConn) sendTracked(m *machine, msg protocol.Message) {
	addr, ok := c.book.addrOf(msg.To)
	if !ok {
		c.log.Warn("message to a node with no known address dropped", "from", msg.From, "to", msg.To, "type", typeName(msg.Body))
		return
	}
	outstanding := m.onReply != nil
	if outstanding {
		m.track.sent++
	}
	gen := m.track.gen
	err := c.tr.SendTracked(addr, string(msg.From), string(msg.To), msg.Body, func(err error) {
		m.box.push(input{kind: inUnsent, gen: gen, err: fmt.Errorf("node %s: %w", msg.To, err)})
	})
	switch {
	case err == nil:
	case errors.Is(err, transport.ErrUnreachable):
		if outstanding {
			m.track.unsent++
			m.track.why = fmt.Errorf("node %s: %w", msg.To, err)
		}
	case errors.Is(err, transport.ErrQueueFull) || errors.Is(err, transport.ErrClosed):
		c.log.Debug("message not sent", "from", msg.From, "to", msg.To, "addr", addr, "type", typeName(msg.Body), "err", err)
	default:
		c.log.Log(context.Background(), slog.LevelWarn, "message not sent", "from", msg.From, "to", msg.To, "addr", addr, "type", typeName(msg.Body), "err", err)
		if outstanding {
			m.track.broken = true
			m.track.why = fmt.Errorf("%s to %s: %w", typeName(msg.Body), msg.To, err)
		}
	}
}

// unsentFrame records that a message of operation gen was dropped
// unwritten.
func (m *machine) unsentFrame(gen uint64, err error) {
	if m.onReply == nil || gen != m.track.gen {
		return // an earlier operation's, or one sent between operations
	}
	m.track.unsent++
	m.track.why = err
}

// failOpIfLost ends the outstanding operation, and the session, when its
// messages' fate decides it: one could not be sent at all (ErrNotSent); a
// read lost one to an unreachable node, or a write lost every one it sent
// (ErrUnavailable: none was written, so the write did not take effect).
// The session must end, since the protocol still holds the operation and
// would retransmit it: run returns the error. A write some of whose
// messages were written waits for the protocol's answer or timeout (its
// outcome is unknown).
func (m *machine) failOpIfLost() error {
	t := &m.track
	if m.onReply == nil {
		return nil
	}
	var err error
	switch {
	case t.broken:
		err = fmt.Errorf("%w: %w", ErrNotSent, t.why)
	case t.unsent == 0:
		return nil
	case t.op == protocol.OpGet || t.op == protocol.OpReadTxn:
		err = fmt.Errorf("%w: %w", ErrUnavailable, t.why)
	case t.unsent >= t.sent:
		err = fmt.Errorf("%w, not applied: %w", ErrUnavailable, t.why)
	default:
		return nil
	}
	cb := m.onReply
	m.onReply = nil
	cb(protocol.Reply{}, err)
	return err
}

// refused ends the outstanding operation, and the session, with a node's
// Refusal (ErrRefused): the protocol still holds the operation and would
// send it again, to be refused again. With no operation outstanding the
// session carries on.
func (m *machine) refused(why error) error {
	if m.onReply == nil {
		m.log.Warn("refusal with no operation outstanding", "session", m.id, "err", why)
		return nil
	}
	err := fmt.Errorf("%w: %w", ErrRefused, why)
	cb := m.onReply
	m.onReply = nil
	cb(protocol.Reply{}, err)
	return err
}
