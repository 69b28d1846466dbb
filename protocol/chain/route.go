package chain

import (
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// Routing of answers to sessions (ARCHITECTURE.md "Replies to sessions"):
// a live node can send to a session only over a stream that session
// opened to it since the node started. The server a session sent a
// request to (its entry) records itself in the request, which carries it
// along the chain; the node that answers sends the reply to the session
// directly when the session has sent it a request since it started (node
// k or the tail, once the session has asked it anything: the paper's
// latency, chainreaction.txt §3.3), else to the entry server, which
// relays it (one hop more).

// hear records an Announce, or a request a session sent this node itself, and names this
// node its entry (in a copy: the message may be shared).
func (s *server) hear(m protocol.Message) protocol.Message {
	var client string
	switch b := m.Body.(type) {
	case *pb.Announce:
		s.heard[m.From] = true
		return m
	case *pb.Put:
		client = b.Client
	case *pb.Get:
		client = b.Client
	case *pb.Stabilize:
		client = b.Client
	}
	if client == "" || protocol.NodeID(client) != m.From {
		return m
	}
	s.heard[m.From] = true
	body := proto.Clone(m.Body)
	switch b := body.(type) {
	case *pb.Put:
		b.Entry = string(s.id)
	case *pb.Get:
		b.Entry = string(s.id)
	case *pb.Stabilize:
		b.Entry = string(s.id)
	}
	m.Body = body
	return m
}

// toClient sends reply to client: directly when client has sent this node
// a request since it started, else through entry (the reply names the
// client), else nowhere (the session retransmits).
func (s *server) toClient(client, entry string, reply proto.Message, r *protocol.Ready) {
	if client == "" {
		return
	}
	if s.heard[protocol.NodeID(client)] {
		r.Send(s.id, protocol.NodeID(client), reply)
		return
	}
	if entry == "" || entry == string(s.id) {
		return
	}
	switch b := reply.(type) {
	case *pb.PutReply:
		b.Client = client
	case *pb.GetReply:
		b.Client = client
	case *pb.StabilizeReply:
		b.Client = client
	}
	r.Send(s.id, protocol.NodeID(entry), reply)
}

// relay passes a reply another server sent here for a session on to that
// session; it reports whether body was such a reply.
func (s *server) relay(body proto.Message, r *protocol.Ready) bool {
	var client string
	switch b := body.(type) {
	case *pb.PutReply:
		client = b.Client
	case *pb.GetReply:
		client = b.Client
	case *pb.StabilizeReply:
		client = b.Client
	default:
		return false
	}
	if client == "" || !s.heard[protocol.NodeID(client)] {
		// Not heard from since this node started: the session
		// retransmits its request.
		return true
	}
	out := proto.Clone(body)
	switch b := out.(type) {
	case *pb.PutReply:
		b.Client = ""
	case *pb.GetReply:
		b.Client = ""
	case *pb.StabilizeReply:
		b.Client = ""
	}
	r.Send(s.id, protocol.NodeID(client), out)
	return true
}
