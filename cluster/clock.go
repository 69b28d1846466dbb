package cluster

import (
	"context"
	"net/http"
)

// AdminClockPath is the path of a node's clock offset on its http
// address, served with the admin endpoint (`causeway server --admin`,
// which `causeway cluster up` passes):
//
//	GET    /admin/clock   the node's offset (ClockOffset)
//	POST   /admin/clock   set it (body: ClockOffset); answers ClockOffset
//	DELETE /admin/clock   set it to 0
//
// The offset is added to the time the node's runtime passes to the
// protocol's state machine (the time since the cluster's epoch), as the
// simulator's clock_skew fault does: a node whose clock is off by an
// offset sees every input at that offset, forwards or backwards. Its
// timers keep running on the unskewed clock, so a skew neither fires nor
// holds back a retransmission. Protocols that take versions from the clock
// (eventual) see it; those with logical clocks should not care. An offset
// replaces the previous one and lives in the node's memory only: a
// restarted node starts at 0. A refused request gets a 4xx status and a
// JSON body {"error": "..."}.
const AdminClockPath = "/admin/clock"

// MaxClockOffsetMS bounds the size of ClockOffset.OffsetMS: an hour.
const MaxClockOffsetMS = 3_600_000

// ClockOffset is the body of POST AdminClockPath and its answer.
type ClockOffset struct {
	// Node is the node that answers (ignored in a request).
	Node string `json:"node,omitempty"`
	// OffsetMS is the offset in milliseconds (negative: behind), between
	// -MaxClockOffsetMS and MaxClockOffsetMS.
	OffsetMS int64 `json:"offset_ms"`
}

// SetClockOffset sets the clock offset of each node of ids to offsetMS,
// all at once, and returns every node's outcome in the order of cfg's
// nodes (NodeLinks.State is nil: check Err).
func SetClockOffset(ctx context.Context, cfg *Config, ids []string, offsetMS int64) []NodeLinks {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	return eachNodeAt(ctx, cfg, AdminClockPath, func(id string) (string, any, bool) {
		return http.MethodPost, ClockOffset{OffsetMS: offsetMS}, want[id]
	})
}
