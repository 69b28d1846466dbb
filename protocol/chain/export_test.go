package chain

import (
	"time"

	"github.com/causeway/causeway/protocol"
)

// SetDebugHook exposes debugHook to the external tests.
func SetDebugHook(f func(now time.Duration, id protocol.NodeID, m protocol.Message)) { debugHook = f }
