package cassandra

import (
	"google.golang.org/protobuf/proto"

	pb "github.com/causeway/causeway/wire/cassandrapb"
)

// ReplicatedValue implements protocol.WriteCarrier: a Mutation carries a
// client's write (or a read repair) from its coordinator to a replica.
func (p *Protocol) ReplicatedValue(body proto.Message) ([]byte, bool) {
	if m, ok := body.(*pb.Mutation); ok {
		return m.Value, true
	}
	return nil, false
}
