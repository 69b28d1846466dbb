package wire

import (
	"fmt"
	"reflect"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Kind is the numeric tag that names a message's type in a frame, in place
// of a type URL. Kinds are assigned once and never reused (kindTable); 0
// is not a kind: it marks a frame that names its type in full instead.
type Kind uint32

// kindMessage pairs a kind with an instance of the message type it names.
type kindMessage struct {
	kind Kind
	msg  proto.Message
}

// registry maps message types to kinds and back.
type registry struct {
	byType map[reflect.Type]Kind
	byKind map[Kind]protoreflect.MessageType
}

// newRegistry builds a registry from entries, or says which two collide:
// two types with one kind, or one type with two kinds.
func newRegistry(entries []kindMessage) (*registry, error) {
	r := &registry{byType: map[reflect.Type]Kind{}, byKind: map[Kind]protoreflect.MessageType{}}
	for _, e := range entries {
		if err := r.register(e.kind, e.msg); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// register gives m's type the kind k.
func (r *registry) register(k Kind, m proto.Message) error {
	name := m.ProtoReflect().Descriptor().FullName()
	if k == 0 {
		return fmt.Errorf("wire: kind 0 given to %s: kinds start at 1", name)
	}
	if old, ok := r.byKind[k]; ok {
		return fmt.Errorf("wire: kind %d given to both %s and %s", k, old.Descriptor().FullName(), name)
	}
	t := reflect.TypeOf(m)
	if old, ok := r.byType[t]; ok {
		return fmt.Errorf("wire: %s given both kind %d and kind %d", name, old, k)
	}
	r.byType[t] = k
	r.byKind[k] = m.ProtoReflect().Type()
	return nil
}

// kinds is the registry of kindTable, checked when the program starts.
var kinds = mustRegistry(kindTable)

func mustRegistry(entries []kindMessage) *registry {
	r, err := newRegistry(entries)
	if err != nil {
		panic(err)
	}
	return r
}

// KindOf returns the kind of m's type, and false when its type has none
// (it then travels under its full name).
func KindOf(m proto.Message) (Kind, bool) {
	k, ok := kinds.byType[reflect.TypeOf(m)]
	return k, ok
}

// Kinds returns every registered kind with the full name of its message
// type, for documentation and tests.
func Kinds() map[Kind]protoreflect.FullName {
	out := make(map[Kind]protoreflect.FullName, len(kinds.byKind))
	for k, mt := range kinds.byKind {
		out[k] = mt.Descriptor().FullName()
	}
	return out
}
