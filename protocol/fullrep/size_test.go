package fullrep

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	pb "github.com/causeway/causeway/wire/fullreppb"
)

// TestBodySizeIsProtoSize checks BodySize against proto.Size for every
// fullrep message: all fields set (through reflection, so a field added
// later fails here), none set, large values (multi-byte lengths and
// varints), empty and nil Deps, and unknown fields.
func TestBodySizeIsProtoSize(t *testing.T) {
	p := New(Mode{Name: "test", Causal: true})
	msgs := pb.File_proto_causeway_fullrep_v1_fullrep_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		d := msgs.Get(i)
		if d.FullName() == "causeway.fullrep.v1.Dep" {
			continue // never a message body on its own
		}
		goType, err := protoregistry.GlobalTypes.FindMessageByName(d.FullName())
		if err != nil {
			t.Fatal(err)
		}
		full := goType.New()
		fill(full)
		withUnknown := goType.New()
		fill(withUnknown)
		withUnknown.SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 7))
		for _, m := range []proto.Message{full.Interface(), goType.New().Interface(), withUnknown.Interface()} {
			checkSize(t, p, m)
		}
	}
	big := make([]byte, 300)
	for _, m := range []proto.Message{
		&pb.GetReply{ReqId: 1 << 40, Value: big, Version: 1<<63 + 5, Stable: true},
		&pb.Replicate{Key: string(big), Value: make([]byte, 70000), Version: 1 << 20, Stable: 1 << 30, PackedDeps: big},
		&pb.PutRequest{Value: []byte{}, Deps: []*pb.Dep{{}, {Key: "k", Version: 1 << 50}, {Key: string(big)}}},
		&pb.DepCheck{Deps: []*pb.Dep{}},
		&pb.DepCheck{Deps: []*pb.Dep{nil, {Key: "k"}}},
		&pb.DepOK{Deps: []*pb.Dep{{Key: "a"}, {Version: 3}}},
		&pb.ReplicateAck{Key: "x", Version: 127},
		&pb.ReplicateAck{Key: "x", Version: 128},
	} {
		checkSize(t, p, m)
	}
	if _, ok := p.BodySize(&pb.Dep{}); ok {
		t.Fatal("BodySize sizes a Dep, which is never a body")
	}
}

func checkSize(t *testing.T, p *Protocol, m proto.Message) {
	t.Helper()
	got, ok := p.BodySize(m)
	if !ok {
		t.Fatalf("BodySize sizes no %T", m)
	}
	if want := proto.Size(m); got != want {
		t.Fatalf("%T %v: BodySize %d, proto.Size %d", m, m, got, want)
	}
}
