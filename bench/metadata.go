package bench

import "github.com/causeway/causeway/runtime/sim"

// metadataPerWrite is metadata_bytes_per_write: over the messages that
// carried a replicated write between DCs (protocol.WriteCarrier), their
// mean payload bytes (proto.Size) minus the value written — the key,
// version, dependencies and whatever else a protocol ships per replicated
// write. nil when no such message crossed (the protocol does not say which
// messages replicate writes, or nothing was written).
func metadataPerWrite(st sim.Stats) *float64 {
	if st.ReplicatedWrites == 0 {
		return nil
	}
	v := round3(float64(st.MetadataBytes) / float64(st.ReplicatedWrites))
	return &v
}

// framingPerMessage is framing_bytes_per_message: the wire codec's bytes
// (wire.FrameSize minus the payload) per message that crossed between DCs;
// nil when none did.
func framingPerMessage(st sim.Stats) *float64 {
	if st.WANMessages == 0 {
		return nil
	}
	v := round3(float64(st.WANFrameBytes-st.WANBytes) / float64(st.WANMessages))
	return &v
}
