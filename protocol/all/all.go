// Package all links every protocol into a binary: importing it for its side
// effects registers each protocol with package protocol.
package all

import (
	// Each import registers one protocol (or, for karma, its variants).
	_ "github.com/causeway/causeway/protocol/cops"
	_ "github.com/causeway/causeway/protocol/eventual"
	_ "github.com/causeway/causeway/protocol/karma"
)
