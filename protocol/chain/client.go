package chain

import (
	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// Client is the part of a session (the paper's client library and proxy,
// chainreaction.txt §3.2) that knows the membership: it starts from the
// initial view and adopts newer ones from the master, which it asks for,
// reporting the node it suspects, when a request goes unanswered.
type Client struct {
	ID     protocol.NodeID
	Layout *Layout
	View   *View
}

// NewClient returns a client with the initial view.
func NewClient(id protocol.NodeID, l *Layout) *Client {
	return &Client{ID: id, Layout: l, View: l.InitialView()}
}

// Chain is key's chain under the client's view and the put reply index.
func (c *Client) Chain(key string) (chain []protocol.NodeID, replyIndex int) {
	ch, full := c.Layout.Chain(c.View, key)
	return ch, c.Layout.ReplyIndex(ch, full)
}

// OnView adopts a newer view; it reports whether m was a View.
func (c *Client) OnView(m protocol.Message) bool {
	v, ok := m.Body.(*pb.View)
	if ok && v.Epoch > c.View.Epoch {
		c.View = FromWire(v)
	}
	return ok
}

// Retry asks the master for its view and reports target as a suspect.
func (c *Client) Retry(target protocol.NodeID, r *protocol.Ready) {
	r.Send(c.ID, c.Layout.Master(), &pb.Suspect{Node: string(target), Epoch: c.View.Epoch})
}
