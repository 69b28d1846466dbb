package k2

import (
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/k2pb"
)

var (
	_ protocol.WriteCarrier = (*Protocol)(nil)
	_ protocol.Visibler     = (*Protocol)(nil)
	_ protocol.Tagger       = (*Protocol)(nil)
)

// ReplicatedValue implements protocol.WriteCarrier: a Phase1 carries one
// key of a transaction with its value to a replica DC. (The metadata sent
// to the other DCs in phase 2, RemoteTxn, carries no value.)
func (p *Protocol) ReplicatedValue(body proto.Message) ([]byte, bool) {
	if m, ok := body.(*pb.Phase1); ok {
		return m.Value, true
	}
	return nil, false
}
