package sim

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
)

// Message-level control for scenario drivers, in the spirit of etcd raft's
// InteractionEnv: hold messages that match a rule, list them, deliver or
// drop them later, and trace every message a node is handed.
//
// Holding happens at arrival, after the network delay (and after loss,
// duplication and cuts at send time): a held message has crossed the
// network and waits at its receiver's door. Deliver therefore means
// "arrive now": the message goes through what any arrival goes through —
// it is lost if the link from its sender is cut now or its receiver is
// down now, and waits in the receiver's service queue if the receiver is
// busy. A held message addressed to a node that crashed and restarted
// meanwhile is delivered to the new incarnation, as any delivery is.

// Filter selects messages by kind and endpoints. Kind is the short name of
// the message's protobuf type (e.g. "RingPut"); From and To are a node id
// ("a/cc0"), a datacenter ("a"), or "*". An empty field matches anything.
type Filter struct {
	Kind string
	From string
	To   string
}

// String renders the filter as scenario arguments.
func (f Filter) String() string {
	s := "kind=" + orStar(f.Kind)
	return s + " from=" + orStar(f.From) + " to=" + orStar(f.To)
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// Matches reports whether a message of kind kind from from to to passes
// the filter.
func (f Filter) Matches(kind string, from, to protocol.NodeID) bool {
	return (f.Kind == "" || f.Kind == "*" || f.Kind == kind) && endpointMatches(f.From, from) && endpointMatches(f.To, to)
}

func endpointMatches(pattern string, id protocol.NodeID) bool {
	return pattern == "" || pattern == "*" || pattern == string(id) || pattern == id.DC()
}

// Kind returns the short name of a message's protobuf type, as filters
// match it.
func Kind(m proto.Message) string {
	return string(m.ProtoReflect().Descriptor().Name())
}

// HeldMessage is a message held at its receiver's door.
type HeldMessage struct {
	From, To protocol.NodeID
	Kind     string
	Body     proto.Message
	Arrived  time.Duration // when it arrived and was held
}

// String renders the message in one line: "from -> to Kind fields…".
func (h HeldMessage) String() string {
	return fmt.Sprintf("%s -> %s %s", h.From, h.To, FormatMessage(h.Body))
}

// held is one held arrival: the delivery event and its decoded body.
type held struct {
	HeldMessage
	e *event
}

// intercept is the simulator's message-level control state.
type intercept struct {
	rules []Filter
	held  []held
	trace func(now time.Duration, m protocol.Message)
}

// Hold installs a rule: every message that arrives from now on and matches
// f is held instead of delivered, until the rule is removed (Unhold).
// Messages already held stay held.
func (s *Sim) Hold(f Filter) {
	s.icpt.rules = append(s.icpt.rules, f)
}

// Unhold removes every installed rule equal to f and reports how many it
// removed. Messages already held stay held until delivered or dropped.
func (s *Sim) Unhold(f Filter) int {
	kept := s.icpt.rules[:0]
	for _, r := range s.icpt.rules {
		if r != f {
			kept = append(kept, r)
		}
	}
	n := len(s.icpt.rules) - len(kept)
	s.icpt.rules = kept
	return n
}

// UnholdAll removes every installed rule and reports how many there were.
func (s *Sim) UnholdAll() int {
	n := len(s.icpt.rules)
	s.icpt.rules = nil
	return n
}

// HoldRules returns the installed rules in the order they were installed.
func (s *Sim) HoldRules() []Filter {
	return append([]Filter(nil), s.icpt.rules...)
}

// Held lists the held messages in the order they arrived.
func (s *Sim) Held() []HeldMessage {
	out := make([]HeldMessage, len(s.icpt.held))
	for i, h := range s.icpt.held {
		out[i] = h.HeldMessage
	}
	return out
}

// Deliver makes the first n held messages matching f (all of them if n <=
// 0), in the order they arrived, arrive now, and returns them. Each goes
// through an ordinary arrival (see the comment at the top of this file);
// what their receivers send in turn leaves now and is subject to the
// rules like any message.
func (s *Sim) Deliver(f Filter, n int) []HeldMessage {
	out, events := s.take(f, n)
	for _, e := range events {
		if !s.arrive(e) {
			s.free(e)
		}
	}
	return out
}

// Drop discards the first n held messages matching f (all of them if n <=
// 0), in the order they arrived, and returns them. They count as dropped
// in Stats.
func (s *Sim) Drop(f Filter, n int) []HeldMessage {
	out, events := s.take(f, n)
	s.stats.Dropped += int64(len(out))
	for _, e := range events {
		s.free(e)
	}
	return out
}

// take removes the first n held messages matching f (all if n <= 0).
func (s *Sim) take(f Filter, n int) ([]HeldMessage, []*event) {
	var out []HeldMessage
	var events []*event
	kept := s.icpt.held[:0]
	for _, h := range s.icpt.held {
		if (n <= 0 || len(out) < n) && f.Matches(h.Kind, h.From, h.To) {
			out = append(out, h.HeldMessage)
			events = append(events, h.e)
			continue
		}
		kept = append(kept, h)
	}
	for i := len(kept); i < len(s.icpt.held); i++ {
		s.icpt.held[i] = held{}
	}
	s.icpt.held = kept
	return out, events
}

// SetTrace installs fn (nil: none) to be called for every message handed
// to a node's Step, at the virtual time it is handed over. Messages lost on
// the way, or held, are not traced until they are delivered.
func (s *Sim) SetTrace(fn func(now time.Duration, m protocol.Message)) {
	s.icpt.trace = fn
}

// maybeHold holds the arrival e if a rule matches it.
func (s *Sim) maybeHold(e *event) bool {
	if len(s.icpt.rules) == 0 {
		return false
	}
	body := e.body
	kind := Kind(body)
	for _, r := range s.icpt.rules {
		if r.Matches(kind, e.src.id, e.node.id) {
			s.icpt.held = append(s.icpt.held, held{
				HeldMessage: HeldMessage{From: e.src.id, To: e.node.id, Kind: kind, Body: body, Arrived: s.now},
				e:           e,
			})
			return true
		}
	}
	return false
}
