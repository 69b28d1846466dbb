package fullrep

import (
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

var _ protocol.Cloner = (*Protocol)(nil)

// CloneBody implements protocol.Cloner for every fullrep message (clone_test
// checks each against proto.Clone); a body carrying unknown fields, which
// no fullrep node sends, is left to proto.Clone.
func (p *Protocol) CloneBody(body proto.Message) proto.Message {
	if u, ok := body.(interface{ UnknownLen() int }); !ok || u.UnknownLen() > 0 {
		return nil
	}
	switch m := body.(type) {
	case *pb.GetRequest:
		return &pb.GetRequest{ReqId: m.ReqId, Key: m.Key}
	case *pb.GetReply:
		return &pb.GetReply{ReqId: m.ReqId, Value: cloneBytes(m.Value), Version: m.Version, Stable: m.Stable}
	case *pb.PutRequest:
		c := &pb.PutRequest{ReqId: m.ReqId, Key: m.Key, Value: cloneBytes(m.Value), MinVersion: m.MinVersion}
		deps, ok := cloneDeps(m.Deps)
		if !ok {
			return nil
		}
		c.Deps = deps
		return c
	case *pb.PutReply:
		return &pb.PutReply{ReqId: m.ReqId, Version: m.Version}
	case *pb.Replicate:
		return &pb.Replicate{Key: m.Key, Value: cloneBytes(m.Value), Version: m.Version, Stable: m.Stable,
			PackedDeps: cloneBytes(m.PackedDeps)}
	case *pb.ReplicateAck:
		return &pb.ReplicateAck{Key: m.Key, Version: m.Version}
	case *pb.DepCheck:
		deps, ok := cloneDeps(m.Deps)
		if !ok {
			return nil
		}
		return &pb.DepCheck{Deps: deps}
	case *pb.DepOK:
		deps, ok := cloneDeps(m.Deps)
		if !ok {
			return nil
		}
		return &pb.DepOK{Deps: deps}
	}
	return nil
}

// cloneDeps copies a repeated Dep field (empty becomes nil); ok is false
// if an element is nil or carries unknown fields (left to proto.Clone).
func cloneDeps(ds []*pb.Dep) (out []*pb.Dep, ok bool) {
	if len(ds) == 0 {
		return nil, true
	}
	out = make([]*pb.Dep, len(ds))
	for i, d := range ds {
		if d == nil || d.UnknownLen() > 0 {
			return nil, false
		}
		out[i] = cloneDep(d)
	}
	return out, true
}

// cloneDep copies d (nil stays nil).
func cloneDep(d *pb.Dep) *pb.Dep {
	if d == nil {
		return nil
	}
	return &pb.Dep{Key: d.Key, Version: d.Version}
}

// cloneBytes copies b as proto.Clone copies a bytes field: empty becomes
// nil.
func cloneBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
