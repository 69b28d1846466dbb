package fullrep

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	pb "github.com/causeway/causeway/wire/fullreppb"
)

// fill sets every field of m (recursively, two elements per list) to a
// value that is not its default.
func fill(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		switch {
		case f.IsList() && f.Kind() == protoreflect.MessageKind:
			l := m.Mutable(f).List()
			for range 2 {
				e := l.NewElement()
				fill(e.Message())
				l.Append(e)
			}
		case f.IsList() || f.IsMap():
			panic("fill: add support for " + string(f.FullName()))
		case f.Kind() == protoreflect.MessageKind:
			fill(m.Mutable(f).Message())
		default:
			m.Set(f, scalar(f))
		}
	}
}

func scalar(f protoreflect.FieldDescriptor) protoreflect.Value {
	switch f.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("s-" + string(f.Name()))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte("b-" + string(f.Name())))
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(f.Number()) + 1000)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(f.Number()) + 1000)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(f.Number()) + 1000)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(f.Number()) + 1000)
	}
	panic("fill: add support for " + f.Kind().String())
}

// exported is v's exported fields, recursively: what a protocol can see,
// nil and empty slices told apart.
func exported(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return exported(v.Elem())
	case reflect.Struct:
		out := map[string]any{}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				out[v.Type().Field(i).Name] = exported(v.Field(i))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		out := []any{}
		for i := 0; i < v.Len(); i++ {
			out = append(out, exported(v.Index(i)))
		}
		return out
	}
	return v.Interface()
}

// TestCloneBodyIsProtoClone checks CloneBody against proto.Clone for every
// fullrep message, all fields set, none set, and bytes fields empty but
// not nil (proto.Clone makes them nil); and that the copy shares no bytes
// with the original.
func TestCloneBodyIsProtoClone(t *testing.T) {
	p := New(Mode{Name: "test", Causal: true})
	msgs := pb.File_proto_causeway_fullrep_v1_fullrep_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		d := msgs.Get(i)
		goType, err := protoregistry.GlobalTypes.FindMessageByName(d.FullName())
		if err != nil {
			t.Fatal(err)
		}
		full := goType.New()
		fill(full)
		for _, m := range []proto.Message{full.Interface(), goType.New().Interface()} {
			if d.FullName() == "causeway.fullrep.v1.Dep" {
				continue // never a message body on its own
			}
			checkClone(t, p, m)
		}
	}
	// Empty bytes fields that are not nil (proto.Clone makes them nil).
	for _, m := range []proto.Message{&pb.GetReply{Value: []byte{}}, &pb.PutRequest{Value: []byte{}},
		&pb.Replicate{Value: []byte{}, PackedDeps: []byte{}}} {
		checkClone(t, p, m)
	}
	if p.CloneBody(&pb.DepCheck{}) == nil || p.CloneBody(&pb.PutRequest{Deps: []*pb.Dep{nil}}) != nil {
		t.Fatal("a nil Dep in a list must be left to proto.Clone; a DepCheck without one is copied")
	}
}

// checkClone checks that p copies m as proto.Clone does, sharing nothing.
func checkClone(t *testing.T, p *Protocol, m proto.Message) {
	t.Helper()
	c := p.CloneBody(m)
	if c == nil {
		t.Fatalf("CloneBody copies no %T", m)
	}
	if got, want := exported(reflect.ValueOf(c)), exported(reflect.ValueOf(proto.Clone(m))); !reflect.DeepEqual(got, want) {
		t.Fatalf("%T: CloneBody gives %v, proto.Clone %v", m, got, want)
	}
	before := proto.Clone(m)
	scribble(c.ProtoReflect())
	if !proto.Equal(before, m) {
		t.Fatalf("%T: the copy shares memory with the original", m)
	}
}

// scribble changes every set field of m in place, recursively.
func scribble(m protoreflect.Message) {
	m.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case f.IsList() && f.Kind() == protoreflect.MessageKind:
			for i := 0; i < v.List().Len(); i++ {
				scribble(v.List().Get(i).Message())
			}
		case f.Kind() == protoreflect.MessageKind:
			scribble(v.Message())
		case f.Kind() == protoreflect.BytesKind:
			for k := range v.Bytes() {
				v.Bytes()[k] = 'X'
			}
		case f.Kind() == protoreflect.StringKind:
			m.Set(f, protoreflect.ValueOfString("X"))
		case f.Kind() == protoreflect.Uint64Kind:
			m.Set(f, protoreflect.ValueOfUint64(v.Uint()+1))
		}
		return true
	})
}
