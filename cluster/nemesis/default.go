package nemesis

import _ "embed"

// DefaultSchedule is the schedule `causeway nemesis` runs without
// --schedule (and `make torture-live` runs): every fault kind at least
// once on local3 (datacenters a, b, c with storage servers s0 and s1, as
// every protocol has), about 20 seconds, healed at the end.
//
//go:embed default.yaml
var DefaultSchedule string
