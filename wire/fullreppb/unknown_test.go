package fullreppb

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// TestUnknownLenIsGetUnknown: every message of the file has UnknownLen,
// equal to the length of GetUnknown with no unknown fields and with
// some; a nil message has none.
func TestUnknownLenIsGetUnknown(t *testing.T) {
	msgs := File_proto_causeway_fullrep_v1_fullrep_proto.Messages()
	if msgs.Len() == 0 {
		t.Fatal("no messages")
	}
	for i := 0; i < msgs.Len(); i++ {
		name := msgs.Get(i).FullName()
		mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
		if err != nil {
			t.Fatal(err)
		}
		m := mt.New()
		u, ok := m.Interface().(interface{ UnknownLen() int })
		if !ok {
			t.Fatalf("%s has no UnknownLen method", name)
		}
		if u.UnknownLen() != 0 {
			t.Fatalf("%s: UnknownLen of an empty message is %d", name, u.UnknownLen())
		}
		m.SetUnknown(protoreflect.RawFields{0xf8, 0x07, 0x01, 0x02}[:3])
		if got, want := u.UnknownLen(), len(m.GetUnknown()); got != want || want != 3 {
			t.Fatalf("%s: UnknownLen %d, GetUnknown has %d bytes (want 3)", name, got, want)
		}
		nilMsg := mt.Zero().Interface().(interface{ UnknownLen() int })
		if nilMsg.UnknownLen() != 0 {
			t.Fatalf("%s: a nil message's UnknownLen is %d", name, nilMsg.UnknownLen())
		}
	}
}
