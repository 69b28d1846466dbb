package chain

import (
	"time"

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
	// announced holds the nodes this client sent an Announce or a put
	// under their incarnation in View; a newer incarnation (a restarted
	// node) has forgotten it.
	announced map[protocol.NodeID]bool
	// resends counts the retransmissions of the pending request, sent
	// first at sentAt.
	resends int
	sentAt  time.Duration
	// suspects are the servers the master was pinging when it answered
	// a Fetch (View.suspects), until a newer view replaces them.
	suspects map[protocol.NodeID]bool
	// fetching says the client asked the master for its view (Fetch) and
	// has not heard it yet, nor given up waiting (Resend).
	fetching bool
	// rtt smooths the time to an answer of the requests never
	// retransmitted: with a node's queue longer than ResendEvery, a fixed
	// timeout made every request go twice (FAWN-KV's tail at 200 threads
	// served each get about three times).
	rtt rttEstimate
}

// NewClient returns a client with the initial view.
func NewClient(id protocol.NodeID, l *Layout) *Client {
	return &Client{ID: id, Layout: l, View: l.InitialView(), announced: map[protocol.NodeID]bool{}}
}

// Chain is key's chain under the client's view (under Layout.Geo, its own
// DC's chain) and the put reply index.
func (c *Client) Chain(key string) (chain []protocol.NodeID, replyIndex int) {
	ch, full := c.Layout.ChainFor(c.View, key, c.ID.DC())
	return ch, c.Layout.ReplyIndex(ch, full)
}

// Fetch asks the master for its current view: a new session starts from
// the initial view, which may still list a server the master has since
// removed (a request there goes unanswered, and a live client fails it at
// once as unavailable). Until the View arrives, or the first resend gives
// up waiting for it, Fetching is true and the session sends nothing else.
// A session outside the master's DC asks a server of its own DC as well
// (the first to answer ends the wait; the master's view may be newer).
func (c *Client) Fetch(r *protocol.Ready) {
	c.fetching = true
	m := c.Layout.Master()
	r.Send(c.ID, m, &pb.ViewRequest{Epoch: c.View.Epoch})
	if m.DC() == c.ID.DC() {
		return
	}
	for _, n := range c.Layout.Servers() {
		if n.DC() == c.ID.DC() {
			r.Send(c.ID, n, &pb.ViewRequest{Epoch: c.View.Epoch})
			return
		}
	}
}

// Suspected says whether the master was pinging n when it answered the
// client's Fetch (and no newer view has come since): a read that may go
// to another node should.
func (c *Client) Suspected(n protocol.NodeID) bool { return c.suspects[n] }

// Fetching says the client waits for the master's view (Fetch).
func (c *Client) Fetching() bool { return c.fetching }

// OnView adopts a newer view; it reports whether m was a View. Any View
// ends a Fetch.
func (c *Client) OnView(m protocol.Message) bool {
	v, ok := m.Body.(*pb.View)
	if ok {
		c.fetching = false
		if v.Epoch > c.View.Epoch || (v.Epoch == c.View.Epoch && len(v.Suspects) > 0) {
			c.suspects = nil
			for _, n := range v.Suspects {
				if c.suspects == nil {
					c.suspects = map[protocol.NodeID]bool{}
				}
				c.suspects[protocol.NodeID(n)] = true
			}
		}
	}
	if ok && v.Epoch > c.View.Epoch {
		nv := FromWire(v)
		for n := range c.announced {
			if nv.Members[n].Incarnation != c.View.Members[n].Incarnation {
				delete(c.announced, n)
			}
		}
		c.View = nv
	}
	return ok
}

// Announce makes node able to answer the client directly: an Announce
// to it, once per incarnation of node the client knows of, unless node
// is itself to be sent the request (to). Sent before the request, it reaches node in one hop
// while the request takes several; should it arrive later, node relays
// its answer through the server the request entered by (route.go).
func (c *Client) Announce(node, to protocol.NodeID, r *protocol.Ready) {
	c.announced[to] = true
	if node == to || c.announced[node] {
		return
	}
	c.announced[node] = true
	r.Send(c.ID, node, &pb.Announce{})
}

// PutTargets are key's head (where a put goes) and the node that answers
// it under the client's view.
func (c *Client) PutTargets(key string) (head, replier protocol.NodeID) {
	ch, ri := c.Chain(key)
	return ch[0], ch[min(ri, len(ch)-1)]
}

// Retry asks the master for its view and reports target as a suspect;
// a client still waiting for the view of a Fetch stops waiting (the
// master may be down) and asks again.
func (c *Client) Retry(target protocol.NodeID, r *protocol.Ready) {
	if c.fetching {
		c.fetching = false
		r.Send(c.ID, c.Layout.Master(), &pb.ViewRequest{Epoch: c.View.Epoch})
		return
	}
	r.Send(c.ID, c.Layout.Master(), &pb.Suspect{Node: string(target), Epoch: c.View.Epoch})
}

// maxSessionWait caps a session's retransmission backoff (unless its
// learnt timeout is longer): short enough that a request dropped by a node
// still catching up after a repair, or across a partition since healed, is
// soon asked again (with 4 × ResendEvery, FAWN-KV timed out 20 reachable
// operations in 15 local3 torture runs instead of 4).
const maxSessionWait = 2 * ResendEvery

// FirstResend starts a new request's retransmission backoff, sent at now,
// and returns the wait before its first retransmission.
func (c *Client) FirstResend(now time.Duration) time.Duration {
	c.resends, c.sentAt = 0, now
	return c.rto()
}

// Answered records that the pending request was answered at now.
func (c *Client) Answered(now time.Duration) {
	if c.resends > 0 {
		return
	}
	c.rtt.sample(now - c.sentAt)
}

// rto is the wait before a request's first retransmission.
func (c *Client) rto() time.Duration { return c.rtt.rto() }

// Resend is called at each retransmission of the pending request, last
// sent to target: it reports target (Retry) and returns the wait before
// the next retransmission, twice the last one up to maxSessionWait (or the
// timeout, when longer), so that
// a congested node's queue is not filled with copies of requests it has
// not reached yet (each of which it would serve again).
func (c *Client) Resend(target protocol.NodeID, r *protocol.Ready) time.Duration {
	c.resends++
	c.Retry(target, r)
	return min(c.rto()<<min(c.resends, 8), max(maxSessionWait, c.rto()))
}
