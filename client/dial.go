package client

import (
	"errors"
	"fmt"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/node"
)

// DialOptions tunes Dial: the operation timeout of every session, where
// the client listens for replies, its TLS certificate and its logger (see
// node.DialOptions for each field and its default).
type DialOptions = node.DialOptions

// Cluster is a client process's connection to one datacenter of a live
// cluster: any number of sessions, new or resumed from a token, share it.
// Its methods are safe for concurrent use.
type Cluster struct {
	cc *node.ClientConn
	// id is the cluster's ID (cluster.Config.ID), carried in tokens.
	id string
}

var (
	_ TokenConn = (*node.Session)(nil)
	_ Conn      = (*node.Session)(nil)
)

// Dial connects to datacenter dc of the cluster described by clusterFile
// (a cluster.yaml, or the directory `causeway cluster up` wrote it to),
// with default options.
func Dial(clusterFile, dc string) (*Cluster, error) {
	return DialWithOptions(clusterFile, dc, DialOptions{})
}

// DialWithOptions connects to datacenter dc of the cluster described by
// clusterFile, tuned by opts.
func DialWithOptions(clusterFile, dc string, opts DialOptions) (*Cluster, error) {
	cfg, err := cluster.Load(clusterFile)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return DialConfig(cfg, dc, opts)
}

// DialConfig connects to datacenter dc of the cluster cfg describes.
func DialConfig(cfg *cluster.Config, dc string, opts DialOptions) (*Cluster, error) {
	cc, err := node.DialWithOptions(cfg, dc, opts)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return &Cluster{cc: cc, id: cfg.ID}, nil
}

// DC returns the datacenter the connection's sessions live in.
func (c *Cluster) DC() string { return c.cc.DC() }

// Protocol returns the name of the protocol the cluster runs.
func (c *Cluster) Protocol() string { return c.cc.Protocol() }

// NewSession starts a new session in the connection's datacenter.
func (c *Cluster) NewSession() (*Session, error) {
	s, err := c.cc.NewSession()
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return c.session(s), nil
}

// session wraps a runtime session of the connection.
func (c *Cluster) session(s *node.Session) *Session {
	cs := New(s, c.cc.Protocol(), c.cc.DC())
	cs.cluster = c.id
	return cs
}

// Resume continues, in the connection's datacenter, the session whose
// Session.Token returned token. The new session answers no operation
// until this datacenter holds every write the token names: operations
// wait, and fail with ErrTimeout if it does not catch up within the
// operation timeout. Resume fails at once, wrapping ErrBadToken, for a
// damaged token, one taken on another cluster (cluster.Config.ID) or one
// made by a store running another protocol, and
// wrapping ErrUnsupported when the cluster's protocol cannot move
// sessions.
func (c *Cluster) Resume(token string) (*Session, error) {
	const what = "resume session"
	b, err := DecodeToken(token)
	if err == nil {
		b, err = checkClusterToken(c.id, b)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	s, err := c.cc.ResumeSession(b)
	if err != nil {
		// The protocol's own refusal reads better without the runtime's
		// "node: " prefix.
		if inner := errors.Unwrap(err); inner != nil &&
			(errors.Is(err, protocol.ErrMoveUnsupported) || errors.Is(err, protocol.ErrBadToken)) {
			err = inner
		}
		if errors.Is(err, protocol.ErrMoveUnsupported) {
			return nil, &unsupportedError{what: what, err: err}
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return c.session(s), nil
}

// Close ends every session of the connection (abandoning their
// outstanding operations) and stops listening for replies.
func (c *Cluster) Close() error { return c.cc.Close() }

// Resume is Dial(clusterFile, dc) followed by Cluster.Resume(token): a
// session of its own, resumed from token in datacenter dc. Closing the
// session closes the connection.
func Resume(clusterFile, dc, token string) (*Session, error) {
	c, err := Dial(clusterFile, dc)
	if err != nil {
		return nil, err
	}
	s, err := c.Resume(token)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	s.release = c.Close
	return s, nil
}
