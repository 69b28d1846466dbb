package fullrep

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

var _ protocol.Sizer = (*Protocol)(nil)

// BodySize implements protocol.Sizer for every fullrep message: the
// bytes of its protobuf encoding, as proto.Size counts them (size_test
// checks each message against it), without reflection. Every field
// number is below 16, so each field's tag is one byte. A body carrying
// unknown fields is left to proto.Size.
func (p *Protocol) BodySize(body proto.Message) (int, bool) {
	switch m := body.(type) {
	case *pb.GetRequest:
		return sizeU(m.ReqId) + sizeS(m.Key) + m.UnknownLen(), true
	case *pb.GetReply:
		return sizeU(m.ReqId) + sizeB(m.Value) + sizeU(m.Version) + sizeBool(m.Stable) + m.UnknownLen(), true
	case *pb.PutRequest:
		return sizeU(m.ReqId) + sizeS(m.Key) + sizeB(m.Value) + sizeDeps(m.Deps) + sizeU(m.MinVersion) + m.UnknownLen(), true
	case *pb.PutReply:
		return sizeU(m.ReqId) + sizeU(m.Version) + m.UnknownLen(), true
	case *pb.Replicate:
		return sizeS(m.Key) + sizeB(m.Value) + sizeU(m.Version) + sizeU(m.Stable) + sizeB(m.PackedDeps) + m.UnknownLen(), true
	case *pb.ReplicateAck:
		return sizeS(m.Key) + sizeU(m.Version) + m.UnknownLen(), true
	case *pb.DepCheck:
		return sizeDeps(m.Deps) + m.UnknownLen(), true
	case *pb.DepOK:
		return sizeDeps(m.Deps) + m.UnknownLen(), true
	}
	return 0, false
}

// sizeU is a uint64 field's size (absent when 0).
func sizeU(v uint64) int {
	if v == 0 {
		return 0
	}
	return 1 + protowire.SizeVarint(v)
}

// sizeBool is a bool field's size (absent when false).
func sizeBool(v bool) int {
	if !v {
		return 0
	}
	return 2
}

// sizeS is a string field's size (absent when empty).
func sizeS(s string) int {
	if len(s) == 0 {
		return 0
	}
	return 1 + protowire.SizeBytes(len(s))
}

// sizeB is a bytes field's size (absent when empty).
func sizeB(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return 1 + protowire.SizeBytes(len(b))
}

// sizeDeps is a repeated Dep field's size: each element, empty or nil
// included, is a tag and a length-prefixed message.
func sizeDeps(ds []*pb.Dep) int {
	n := 0
	for _, d := range ds {
		l := 0
		if d != nil {
			l = sizeS(d.Key) + sizeU(d.Version) + d.UnknownLen()
		}
		n += 1 + protowire.SizeBytes(l)
	}
	return n
}
