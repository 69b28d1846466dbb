package runtime

import (
	"fmt"

	"github.com/causeway/causeway/storage"
)

// IncarnationKey is the storage key under which a live runtime keeps a
// server node's boot counter, beside the protocol's own keys (no protocol
// key starts with a NUL byte). The counter is the record's version.
const IncarnationKey = "\x00incarnation"

// NextIncarnation counts one more start of the node whose storage is eng
// and returns the new count, for protocol.NodeConfig.Incarnation: 1 on an
// empty engine, one more than the stored count otherwise. The count is
// synced before it is returned, so a node never runs twice under the same
// incarnation, even if it crashes right after starting. The simulator
// counts restarts itself (its nodes keep the count in memory).
func NextIncarnation(eng storage.Engine) (uint64, error) {
	rec, found, err := eng.Get(IncarnationKey)
	if err != nil {
		return 0, fmt.Errorf("reading the boot counter: %w", err)
	}
	n := uint64(1)
	if found {
		n = rec.Version + 1
	}
	err = eng.Apply([]storage.Write{
		{Kind: storage.Put, Key: IncarnationKey, Version: n},
		{Kind: storage.DeleteBelow, Key: IncarnationKey, Version: n},
	}, true)
	if err != nil {
		return 0, fmt.Errorf("writing the boot counter: %w", err)
	}
	return n, nil
}
