package all

import (
	// Each import registers one protocol (or, for karma, its variants).
	_ "github.com/causeway/causeway/protocol/c3"
	_ "github.com/causeway/causeway/protocol/cassandra"
	_ "github.com/causeway/causeway/protocol/chainreaction"
	_ "github.com/causeway/causeway/protocol/cops"
	_ "github.com/causeway/causeway/protocol/eventual"
	_ "github.com/causeway/causeway/protocol/fawnkv"
	_ "github.com/causeway/causeway/protocol/k2"
	_ "github.com/causeway/causeway/protocol/karma"
	_ "github.com/causeway/causeway/protocol/rad"
	_ "github.com/causeway/causeway/protocol/saturn"
)
