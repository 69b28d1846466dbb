package protocol

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
)

// NodeID names a node as "DC/NAME", for example "us-west1/s3" (a storage
// server) or "tokyo/c17" (a client session).
type NodeID string

// MakeNodeID builds the NodeID of node name in datacenter dc.
func MakeNodeID(dc, name string) NodeID { return NodeID(dc + "/" + name) }

// DC returns the datacenter part of the ID.
func (id NodeID) DC() string {
	for i := 0; i < len(id); i++ {
		if id[i] == '/' {
			return string(id[:i])
		}
	}
	return string(id)
}

// Name returns the part of the ID after the datacenter.
func (id NodeID) Name() string {
	for i := 0; i < len(id); i++ {
		if id[i] == '/' {
			return string(id[i+1:])
		}
	}
	return ""
}

// Message is one protocol message in flight between two nodes.
type Message struct {
	From, To NodeID
	Body     proto.Message
}

// Timer asks the runtime to call Tick with Token after After has elapsed on
// the node's clock. Timers cannot be cancelled: a node ignores tokens it no
// longer cares about. A crash discards a node's pending timers.
type Timer struct {
	After time.Duration
	Token uint64
}

// Visibility reports that the write of Value to Key became readable at the
// reporting node. Runtimes use it for the visibility metric (see
// Visibler). Version is the write's version, in the protocol's own terms (0:
// not reported); a metadata-only replica, which learns of a write without
// its value, reports Version with a nil Value.
type Visibility struct {
	Key     string
	Value   []byte
	Version uint64
}

// Persist holds the storage writes of a Ready.
type Persist struct {
	Writes []storage.Write
	// Sync asks for the writes to be durable before Ready.After is acted on.
	Sync bool
}

// Effects is everything a Ready does once its Persist part is done.
type Effects struct {
	Messages []Message
	Timers   []Timer
	Replies  []Reply
	Visible  []Visibility
}

// Ready is a state machine's answer to one input. A runtime applies Persist
// first (synced if Persist.Sync) and only then acts on After: this ordering
// is what lets a node acknowledge a write it has made durable.
type Ready struct {
	Persist Persist
	After   Effects
}

// Write appends a storage write; sync requests that it be durable before the
// Ready's effects happen (any synced write makes the whole Persist synced).
func (r *Ready) Write(w storage.Write, sync bool) {
	r.Persist.Writes = append(r.Persist.Writes, w)
	r.Persist.Sync = r.Persist.Sync || sync
}

// Send queues a message.
func (r *Ready) Send(from, to NodeID, body proto.Message) {
	r.After.Messages = append(r.After.Messages, Message{From: from, To: to, Body: body})
}

// SetTimer asks for Tick(token) after d.
func (r *Ready) SetTimer(d time.Duration, token uint64) {
	r.After.Timers = append(r.After.Timers, Timer{After: d, Token: token})
}

// Reply completes the session's outstanding client operation.
func (r *Ready) Reply(rep Reply) { r.After.Replies = append(r.After.Replies, rep) }

// Visible reports that a write became readable at this node.
func (r *Ready) Visible(key string, value []byte) {
	r.After.Visible = append(r.After.Visible, Visibility{Key: key, Value: value})
}

// Merge appends everything in o to r.
func (r *Ready) Merge(o Ready) {
	r.Persist.Writes = append(r.Persist.Writes, o.Persist.Writes...)
	r.Persist.Sync = r.Persist.Sync || o.Persist.Sync
	r.After.Messages = append(r.After.Messages, o.After.Messages...)
	r.After.Timers = append(r.After.Timers, o.After.Timers...)
	r.After.Replies = append(r.After.Replies, o.After.Replies...)
	r.After.Visible = append(r.After.Visible, o.After.Visible...)
}

// Empty reports whether the Ready asks for nothing.
func (r *Ready) Empty() bool {
	return len(r.Persist.Writes) == 0 && len(r.After.Messages) == 0 && len(r.After.Timers) == 0 &&
		len(r.After.Replies) == 0 && len(r.After.Visible) == 0
}

// Node is a server-side protocol state machine. now is the node's local
// clock (which may be skewed), measured from the start of the run.
type Node interface {
	// Start is called once when the node is created or restarted, before
	// any other input.
	Start(now time.Duration) Ready
	// Step handles one received message.
	Step(now time.Duration, m Message) Ready
	// Tick handles a timer set earlier through Ready.SetTimer.
	Tick(now time.Duration, token uint64) Ready
}

// Session is the client-side state machine of one client session (one
// client thread in the papers). It has at most one operation outstanding:
// the runtime calls Submit only after the previous operation's Reply. A
// session must answer every Submit within its SessionConfig.OpTimeout,
// with ErrTimeout or ErrUnavailable if nothing better is possible.
type Session interface {
	Node
	// Submit starts a client operation.
	Submit(now time.Duration, req Request) Ready
}

// Inspector is implemented by server nodes that store replicas, so that a
// runtime can check convergence after a run quiesces.
type Inspector interface {
	// Replicas calls fn for every key the node stores a replica of, with
	// the value a read would return now (nil for the initial state).
	Replicas(fn func(key string, value []byte))
}

// Tagger is implemented by protocols whose replies carry Reply.Tags: it
// lists the tags whose fraction a run reports even when it is zero (and no
// other protocol reports it). Other tags are reported when they occur.
type Tagger interface {
	Tags() []string
}

// Guarantee is the consistency a protocol claims.
type Guarantee uint8

const (
	// Eventual protocols converge but do not claim causal consistency; the
	// checker is expected to catch them.
	Eventual Guarantee = iota
	// CausalPlus protocols claim causal+ consistency; any checker
	// violation is a bug.
	CausalPlus
)

func (g Guarantee) String() string {
	if g == CausalPlus {
		return "causal+"
	}
	return "eventual"
}

// Role names what a server node does in its protocol, in the paper's
// words ("storage", "coordinator", "middle-man", "cache", "proxy", …).
// Runtimes use it instead of parsing node names: the simulator's cost
// model charges per role, and random fault schedules draw from every role.
type Role string

// Roles shared by several protocols. A protocol may define others.
const (
	// RoleStorage is a storage server holding replicas of keys.
	RoleStorage Role = "storage"
	// RoleCoordinator is a client coordinator (Karma's CC).
	RoleCoordinator Role = "coordinator"
	// RoleCache is a datacenter cache.
	RoleCache Role = "cache"
)

// NodeSpec describes one server-side node a protocol runs.
type NodeSpec struct {
	ID NodeID
	// Role is what the node does (RoleStorage when empty).
	Role Role
	// Zone is the availability zone inside the DC ("front" or "back" for
	// Karma, empty when the protocol does not split a DC).
	Zone string
	// Cost scales the simulator's per-message service time for this node
	// (0 means 1): an in-memory cache answers in a fraction of a storage
	// server's time.
	Cost float64
}

// NodeConfig is what a server node is created with.
//
// Incarnations: a node that crashes and restarts is a new incarnation of
// the same NodeID. Messages addressed to an earlier incarnation may still
// arrive (the simulator delivers them; the live transport queues frames
// across a reconnect), so any identifier a node hands out and later matches
// a reply against (request ids, entry ids) must not repeat across
// incarnations: embed Incarnation in it, and match replies on more than the
// id (the key, the version), as raft matches on term.
type NodeConfig struct {
	ID NodeID
	// Role is the role of the node's NodeSpec.
	Role Role
	// Incarnation counts the node's starts: 1 on first start, one more on
	// each restart. The simulator counts restarts; runtime/node persists a
	// boot counter beside the node's data.
	Incarnation uint64
	Topology    *topology.Topology
	// Storage holds what the node persisted before a restart (empty on
	// first start). Nodes may read it only while they are being created.
	Storage storage.Reader
	// Rand is the node's own seeded source of randomness.
	Rand *rand.Rand
	// Loaded, when not nil, is the dataset every key's replicas start
	// with (see Dataset): a read of a loaded key with no stored version
	// returns Loaded.Value(key). The simulator sets it; live nodes get
	// their records by real writes (causeway load) and leave it nil.
	Loaded *Dataset
}

// SessionConfig is what a client session is created with.
type SessionConfig struct {
	ID       NodeID
	Topology *topology.Topology
	Rand     *rand.Rand
	// OpTimeout bounds every operation: the session answers with an error
	// when it cannot complete one in time.
	OpTimeout time.Duration
}

// Protocol is one design (COPS, Karma, …) as a factory of state machines.
type Protocol interface {
	// Name is the protocol's CLI name, e.g. "cops".
	Name() string
	// Summary is one line for `causeway protocols`.
	Summary() string
	// Guarantee is the consistency the protocol claims.
	Guarantee() Guarantee
	// Validate reports why the protocol cannot run on t, if it cannot.
	Validate(t *topology.Topology) error
	// Nodes lists the server-side nodes of a deployment on t.
	Nodes(t *topology.Topology) []NodeSpec
	// Replicas lists the server nodes that must converge on key's value.
	Replicas(t *topology.Topology, key string) []NodeID
	// NewNode creates (or re-creates after a crash) a server node.
	NewNode(cfg NodeConfig) Node
	// NewSession creates a client session.
	NewSession(cfg SessionConfig) Session
}

var registry = map[string]Protocol{}

// Register makes p available by name; it panics on a duplicate name.
func Register(p Protocol) {
	if _, dup := registry[p.Name()]; dup {
		panic("protocol: duplicate registration of " + p.Name())
	}
	registry[p.Name()] = p
}

// Lookup returns the protocol called name, or an error listing the valid
// names.
func Lookup(name string) (Protocol, error) {
	if p, ok := registry[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown protocol %q (valid: %v)", name, Names())
}

// Names lists the registered protocols in sorted order.
func Names() []string {
	return slices.Sorted(maps.Keys(registry))
}

// Canary is implemented by protocols that do not claim causal+ and break
// it in ordinary runs (eventual), so that a torture campaign in which the
// checker never catches one means the checker has gone blind
// (`causeway torture --require-caught`). Protocols that claim less than
// causal+ but may keep it in practice, like Cassandra's quorum presets,
// return false or do not implement it.
type Canary interface {
	Canary() bool
}

// IsCanary reports whether p is a Canary that says so.
func IsCanary(p Protocol) bool {
	c, ok := p.(Canary)
	return ok && c.Canary()
}
