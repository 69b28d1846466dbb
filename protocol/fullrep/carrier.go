package fullrep

import (
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

var _ protocol.WriteCarrier = (*Protocol)(nil)

// ReplicatedValue implements protocol.WriteCarrier: a Replicate carries a
// write to the key's server in another DC (a session's PutRequest goes to
// its own DC and is not a replicated write).
func (p *Protocol) ReplicatedValue(body proto.Message) ([]byte, bool) {
	if m, ok := body.(*pb.Replicate); ok {
		return m.Value, true
	}
	return nil, false
}
