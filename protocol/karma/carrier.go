package karma

import (
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

var _ protocol.WriteCarrier = (*Protocol)(nil)

// ReplicatedValue implements protocol.WriteCarrier: a RingPut carries a
// write from a CC to the key's MM in one ring. A notify-after (§4.2) writes
// nothing and is not a replicated write; nor are a session's ClientPut (to
// its own DC) and a CacheFill (inside a DC).
func (p *Protocol) ReplicatedValue(body proto.Message) ([]byte, bool) {
	if m, ok := body.(*pb.RingPut); ok && !m.Notify {
		return m.Value, true
	}
	return nil, false
}
