package sim

// The cost model: how long a server node is busy with one input.
//
// A server node with a service time handles one input at a time and
// queues the rest (see queue.go). What one input costs is
//
//	ServiceTime × (scale(node) × factor(class(input)) + PerKB × bytes/1000)
//
// where ServiceTime (Config.ServiceTime, --service-time) is the unit, the
// cost of one storage operation on a storage server; scale is the node's
// NodeSpec.Cost when the protocol sets it, else the model's factor for the
// node's Role; class is the cost class of the message kind (a timer is
// ClassTimer); bytes is the message's payload size (proto.Size). Every
// factor is relative to ServiceTime, so --service-time alone still sets how
// fast the servers are and a model only says how inputs differ.
//
// The zero CostModel (and a nil Config.Cost) is the simple form: every
// input costs ServiceTime × NodeSpec.Cost (1 when unset), whatever it is.
// DefaultCostModel (costdefaults.go) is the one place where the defaults
// and their reasons live.

import (
	"fmt"
	"math"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
)

// Class is the cost class of a message kind: what handling it does.
type Class string

// Cost classes.
const (
	// ClassRead is a storage read: a get served from a node's store.
	ClassRead Class = "read"
	// ClassWrite is a storage write: a put, a replicated write, a
	// write-buffer append, a cache fill.
	ClassWrite Class = "write"
	// ClassClient is a client request at a node that routes it elsewhere
	// (a coordinator or proxy): session state and a forward, no storage.
	ClassClient Class = "client"
	// ClassControl is an acknowledgement, notification or check: an
	// in-memory table update with no storage access.
	ClassControl Class = "control"
	// ClassTimer is a timer firing at a server node (retransmission scans,
	// leases, probes).
	ClassTimer Class = "timer"
	// ClassOther is a message kind the model does not list.
	ClassOther Class = "other"
)

// classes lists the valid classes, for validation.
var classes = []Class{ClassRead, ClassWrite, ClassClient, ClassControl, ClassTimer, ClassOther}

// CostModel prices the inputs of the simulator's server nodes, in units of
// Config.ServiceTime. Client sessions cost nothing: they stand for client
// machines, and what a request costs is charged where its message lands.
type CostModel struct {
	// Roles is a node's scale by role when its NodeSpec.Cost is unset
	// (a NodeSpec.Cost replaces it); an unlisted role scales by 1.
	Roles map[protocol.Role]float64 `yaml:"roles"`
	// Kinds maps a message kind to its class. A kind is the message's
	// protobuf name, full ("causeway.karma.v1.RingPut") or short
	// ("RingPut", as Kind returns it); the full name is looked up first,
	// so protocols whose short names collide can be told apart. Unlisted
	// kinds are ClassOther.
	Kinds map[string]Class `yaml:"kinds"`
	// Classes is each class's factor; an unlisted class has factor 1.
	Classes map[Class]float64 `yaml:"classes"`
	// PerKB is what 1000 payload bytes of a message add, whatever the
	// node's scale.
	PerKB float64 `yaml:"per_kb"`
}

// Validate reports a factor that is negative or not finite, or a class
// that does not exist.
func (m *CostModel) Validate() error {
	if m == nil {
		return nil
	}
	bad := func(f float64) bool { return f < 0 || math.IsNaN(f) || math.IsInf(f, 0) }
	for r, f := range m.Roles {
		if bad(f) {
			return fmt.Errorf("cost model: role %q has factor %v (want a finite number ≥ 0)", r, f)
		}
	}
	for k, c := range m.Kinds {
		if !validClass(c) {
			return fmt.Errorf("cost model: kind %q has class %q (valid: %v)", k, c, classes)
		}
	}
	for c, f := range m.Classes {
		if !validClass(c) {
			return fmt.Errorf("cost model: unknown class %q (valid: %v)", c, classes)
		}
		if bad(f) {
			return fmt.Errorf("cost model: class %q has factor %v (want a finite number ≥ 0)", c, f)
		}
	}
	if bad(m.PerKB) {
		return fmt.Errorf("cost model: per_kb is %v (want a finite number ≥ 0)", m.PerKB)
	}
	return nil
}

func validClass(c Class) bool {
	for _, v := range classes {
		if c == v {
			return true
		}
	}
	return false
}

// Scale is the factor of a node of role whose NodeSpec.Cost is specCost.
func (m *CostModel) Scale(role protocol.Role, specCost float64) float64 {
	if specCost > 0 {
		return specCost
	}
	if m != nil {
		if f, ok := m.Roles[role]; ok {
			return f
		}
	}
	return 1
}

// ClassOf returns the class of a message (ClassTimer for a nil body, which
// stands for a timer).
func (m *CostModel) ClassOf(body proto.Message) Class {
	if body == nil {
		return ClassTimer
	}
	if m == nil || len(m.Kinds) == 0 {
		return ClassOther
	}
	d := body.ProtoReflect().Descriptor()
	if c, ok := m.Kinds[string(d.FullName())]; ok {
		return c
	}
	if c, ok := m.Kinds[string(d.Name())]; ok {
		return c
	}
	return ClassOther
}

// Factor returns class's factor.
func (m *CostModel) Factor(c Class) float64 {
	if m != nil {
		if f, ok := m.Classes[c]; ok {
			return f
		}
	}
	return 1
}

// Cost is the service time of one input at a node whose own time per
// input is base (ServiceTime × Scale): body is the message (nil for a
// timer) and size its payload bytes. With the simple form it is base.
func (m *CostModel) Cost(unit, base time.Duration, body proto.Message, size int) time.Duration {
	if m == nil {
		return base
	}
	f := m.Factor(m.ClassOf(body))
	if f == 1 && (m.PerKB == 0 || size == 0) {
		return base // exact: the simple form's numbers do not move
	}
	return time.Duration(math.Round(float64(base)*f + float64(unit)*m.PerKB*float64(size)/1000))
}
