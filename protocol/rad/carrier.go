package rad

import (
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/radpb"
)

var _ protocol.WriteCarrier = Protocol{}

// ReplicatedValue implements protocol.WriteCarrier: a Replicate carries
// writes to another replica group (a client's WriteRequest goes to its own
// group and is not a replicated write). A Replicate of several keys
// reports their values concatenated.
func (Protocol) ReplicatedValue(body proto.Message) ([]byte, bool) {
	m, ok := body.(*pb.Replicate)
	if !ok {
		return nil, false
	}
	if len(m.Writes) == 1 {
		return m.Writes[0].Value, true
	}
	var v []byte
	for _, w := range m.Writes {
		v = append(v, w.Value...)
	}
	return v, true
}
