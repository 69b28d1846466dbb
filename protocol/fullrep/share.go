package fullrep

import (
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

var _ protocol.Sharer = (*Protocol)(nil)

// ShareBody implements protocol.Sharer: no fullrep node modifies a
// message once sent or received. A sender builds each body whole before
// Ready.Send (a checkBatch's DepChecks are complete before they are
// sent) and keeps only what it may send again unchanged (outgoing.msg,
// resent as it was); a receiver reads a body and keeps parts of it
// (incoming.msg, a Replicate's value in store, a DepCheck's Deps in
// waiters, a reply's value handed to the client) without writing to
// them. TestSharedBodiesStayIntact (bench) runs cops and eventual under
// random faults with the simulator's check of that promise. A body is
// refused (and copied) when a copy would differ from it: unknown fields,
// or a bytes field or list empty but not nil.
func (p *Protocol) ShareBody(body proto.Message) bool {
	switch m := body.(type) {
	case *pb.GetRequest:
		return m.UnknownLen() == 0
	case *pb.PutReply:
		return m.UnknownLen() == 0
	case *pb.ReplicateAck:
		return m.UnknownLen() == 0
	case *pb.GetReply:
		return m.UnknownLen() == 0 && copiesAs(m.Value)
	case *pb.PutRequest:
		return m.UnknownLen() == 0 && copiesAs(m.Value) && depsShareable(m.Deps)
	case *pb.Replicate:
		return m.UnknownLen() == 0 && copiesAs(m.Value) && copiesAs(m.PackedDeps)
	case *pb.DepCheck:
		return m.UnknownLen() == 0 && depsShareable(m.Deps)
	case *pb.DepOK:
		return m.UnknownLen() == 0 && depsShareable(m.Deps)
	}
	return false
}

// copiesAs reports whether a bytes field copies as itself: nil or not
// empty.
func copiesAs(b []byte) bool { return b == nil || len(b) > 0 }

// depsShareable reports whether a list of Deps copies as itself: nil or
// not empty, with no nil element and no unknown fields.
func depsShareable(ds []*pb.Dep) bool {
	if ds != nil && len(ds) == 0 {
		return false
	}
	for _, d := range ds {
		if d == nil || d.UnknownLen() > 0 {
			return false
		}
	}
	return true
}
