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
	if len(body.ProtoReflect().GetUnknown()) > 0 {
		return nil
	}
	switch m := body.(type) {
	case *pb.GetRequest:
		return &pb.GetRequest{ReqId: m.ReqId, Key: m.Key}
	case *pb.GetReply:
		return &pb.GetReply{ReqId: m.ReqId, Value: cloneBytes(m.Value), Version: m.Version, Stable: m.Stable}
	case *pb.PutRequest:
		c := &pb.PutRequest{ReqId: m.ReqId, Key: m.Key, Value: cloneBytes(m.Value), MinVersion: m.MinVersion}
		if len(m.Deps) > 0 {
			c.Deps = make([]*pb.Dep, len(m.Deps))
			for i, d := range m.Deps {
				if d == nil || len(d.ProtoReflect().GetUnknown()) > 0 {
					return nil
				}
				c.Deps[i] = cloneDep(d)
			}
		}
		return c
	case *pb.PutReply:
		return &pb.PutReply{ReqId: m.ReqId, Version: m.Version}
	case *pb.Replicate:
		return &pb.Replicate{Key: m.Key, Value: cloneBytes(m.Value), Version: m.Version, Stable: m.Stable,
			PackedDeps: cloneBytes(m.PackedDeps)}
	case *pb.ReplicateAck:
		return &pb.ReplicateAck{Key: m.Key, Version: m.Version}
	case *pb.DepCheck:
		if m.Dep != nil && len(m.Dep.ProtoReflect().GetUnknown()) > 0 {
			return nil
		}
		return &pb.DepCheck{Dep: cloneDep(m.Dep)}
	case *pb.DepOK:
		if m.Dep != nil && len(m.Dep.ProtoReflect().GetUnknown()) > 0 {
			return nil
		}
		return &pb.DepOK{Dep: cloneDep(m.Dep)}
	}
	return nil
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
