package wire

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// fill sets every field of m to a non-default value (one element for lists
// and maps), down to depth nested messages, so that each protocol message
// of the seed corpus exercises all its fields.
func fill(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.ContainingOneof() != nil && m.WhichOneof(fd.ContainingOneof()) != nil {
			continue
		}
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
				if depth > 0 {
					e := l.NewElement()
					fill(e.Message(), depth-1)
					l.Append(e)
				}
			} else {
				l.Append(scalar(fd, i))
			}
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			k := scalar(fd.MapKey(), i).MapKey()
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				if depth > 0 {
					v := mp.NewValue()
					fill(v.Message(), depth-1)
					mp.Set(k, v)
				}
			} else {
				mp.Set(k, scalar(fd.MapValue(), i))
			}
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			if depth > 0 {
				fill(m.Mutable(fd).Message(), depth-1)
			}
		default:
			m.Set(fd, scalar(fd, i))
		}
	}
}

// scalar returns a non-default value of fd's kind.
func scalar(fd protoreflect.FieldDescriptor, i int) protoreflect.Value {
	n := int64(i + 1)
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vals.Get(vals.Len() - 1).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(-n))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(-n << 40)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(n))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(n) << 40)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(n) + 0.5)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(n) + 0.25)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("s" + strings.Repeat("é", i%3))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{byte(i), 0xff, 0})
	}
	panic("unknown kind " + fd.Kind().String())
}

// FuzzDecode: any frame either decodes into a message that encodes back to
// a frame decoding to an equal message (and Encode is then a fixpoint), or
// is rejected with a "wire: " error.
func FuzzDecode(f *testing.F) {
	n := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		if !strings.HasPrefix(string(mt.Descriptor().FullName()), "causeway.") {
			return true
		}
		for _, depth := range []int{0, 2} {
			m := mt.New()
			if depth > 0 {
				fill(m, depth)
			}
			b, err := Encode(m.Interface())
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
		n++
		return true
	})
	if n < 10 {
		f.Fatalf("only %d protocol message types registered", n)
	}
	b, err := Encode(wrapperspb.String("hello"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)            // a type without a kind, under its full name
	f.Add(b[:len(b)-3]) // truncated
	f.Add([]byte{})
	f.Add([]byte("\x00\x06nosuch"))                      // unknown type
	f.Add([]byte("\x00\x13google.protobuf.Any\x0a\x00")) // an Any
	f.Add([]byte{0xff, 0x7f})                            // unknown kind
	f.Add([]byte{0x80})                                  // truncated kind
	f.Add(protowire.AppendVarint(nil, 1<<40))            // kind over 32 bits
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := Decode(frame)
		if err != nil {
			if m != nil || !strings.HasPrefix(err.Error(), "wire: ") {
				t.Fatalf("Decode = %v, %v", m, err)
			}
			return
		}
		if m == nil {
			t.Fatal("Decode returned neither a message nor an error")
		}
		enc, err := Encode(m)
		if err != nil {
			t.Fatalf("Encode of a decoded %T: %v", m, err)
		}
		back, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode of a re-encoded %T: %v", m, err)
		}
		enc2, err := Encode(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("Encode is not a fixpoint for %T:\n%x\n%x", m, enc, enc2)
		}
		if !proto.Equal(m, back) && !hasNaN(m.ProtoReflect()) {
			t.Fatalf("round trip changed %T:\n%v\n%v", m, m, back)
		}
		if k, ok := KindOf(m); ok {
			if got, n := protowire.ConsumeVarint(enc); n < 0 || got != uint64(k) {
				t.Fatalf("encoded %T without its kind %d: %x", m, k, enc)
			}
		} else if !bytes.Contains(enc, []byte(m.ProtoReflect().Descriptor().FullName())) {
			t.Fatalf("encoded %T, which has no kind, without its name", m)
		}
	})
}

// hasNaN reports whether a message holds a floating-point NaN, which
// proto.Equal does not consider equal to itself.
func hasNaN(m protoreflect.Message) bool {
	found := false
	isNaN := func(v protoreflect.Value, k protoreflect.Kind) bool {
		switch k {
		case protoreflect.FloatKind, protoreflect.DoubleKind:
			f := v.Float()
			return f != f
		}
		return false
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
					found = found || hasNaN(l.Get(i).Message())
				} else {
					found = found || isNaN(l.Get(i), fd.Kind())
				}
			}
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapValue().Kind() == protoreflect.MessageKind {
					found = found || hasNaN(mv.Message())
				} else {
					found = found || isNaN(mv, fd.MapValue().Kind())
				}
				return !found
			})
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			found = found || hasNaN(v.Message())
		default:
			found = found || isNaN(v, fd.Kind())
		}
		return !found
	})
	return found
}

// TestDecodeGarbage: truncated frames, unknown kinds and message types, oversized
// frames and malformed payloads are errors that say what is wrong.
func TestDecodeGarbage(t *testing.T) {
	good, err := Encode(wrapperspb.String("hello"))
	if err != nil {
		t.Fatal(err)
	}
	named := func(name string, payload []byte) []byte {
		b := protowire.AppendVarint(nil, 0)
		b = protowire.AppendString(b, name)
		return append(b, payload...)
	}
	for _, tc := range []struct {
		name  string
		frame []byte
		want  string
	}{
		{"empty", nil, "wire: empty frame"},
		{"truncated", good[:len(good)-2], "wire: frame of type google.protobuf.StringValue: "},
		{"truncated kind", []byte{0xff}, "wire: malformed frame: bad kind"},
		{"truncated name", []byte{0x00, 0x05, 'a'}, "wire: malformed frame: bad type name"},
		{"unknown kind", []byte{0xff, 0x7f}, "wire: frame of unknown kind 16383"},
		{"kind over 32 bits", protowire.AppendVarint(nil, 1<<32+16), "wire: frame of unknown kind 4294967312"},
		{"unknown type", named("causeway.nosuch.v1.Thing", nil), `wire: frame of type "causeway.nosuch.v1.Thing": `},
		{"malformed payload", named("google.protobuf.StringValue", []byte{0x0a, 0x05, 'a'}), "wire: frame of type google.protobuf.StringValue: "},
		{"malformed payload of a kind", []byte{21, 0x0a, 0x05, 'a'}, "wire: frame of type causeway.fullrep.v1.Replicate: "},
		{"invalid UTF-8 in a string", named("google.protobuf.StringValue", []byte{0x0a, 0x01, 0xff}), "wire: frame of type"},
		{"wrong wire type", named("google.protobuf.StringValue", []byte{0x08, 0x01}), ""},
		{"oversized", make([]byte, MaxFrameBytes+1), "over the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode(tc.frame)
			if tc.want == "" { // proto3 keeps a field of the wrong wire type as unknown
				if err != nil {
					t.Fatalf("Decode = %v", err)
				}
				return
			}
			if err == nil || m != nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode = %v, %v; want an error containing %q", m, err, tc.want)
			}
		})
	}
}
