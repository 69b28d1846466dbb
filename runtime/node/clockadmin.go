package node

import (
	"net/http"
	"time"

	"github.com/causeway/causeway/cluster"
)

// The clock offset (cluster.AdminClockPath, served with Options.Admin): a
// live nemesis skews a node's clock as the simulator's clock_skew fault
// does. cluster/clock.go documents the endpoint; the offset is h.skew,
// which the machine's clock adds to the time it hands the state machine.

// handleClock registers the clock offset on mux.
func (h *host) handleClock(mux *http.ServeMux) {
	path := cluster.AdminClockPath
	mux.HandleFunc("GET "+path, h.whenReady(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, h.clockOffset())
	}))
	mux.HandleFunc("DELETE "+path, h.whenReady(func(w http.ResponseWriter, _ *http.Request) {
		h.setSkew(0)
		writeJSON(w, http.StatusOK, h.clockOffset())
	}))
	mux.HandleFunc("POST "+path, h.whenReady(h.postClock))
}

// postClock decodes, validates and applies a cluster.ClockOffset.
func (h *host) postClock(w http.ResponseWriter, r *http.Request) {
	var c cluster.ClockOffset
	if !decodeAdminBody(w, r, &c, `{"offset_ms": 2000}`, "the field is offset_ms") {
		return
	}
	if c.OffsetMS < -cluster.MaxClockOffsetMS || c.OffsetMS > cluster.MaxClockOffsetMS {
		writeError(w, http.StatusBadRequest, "offset_ms: %d is not between %d and %d", c.OffsetMS, -cluster.MaxClockOffsetMS, cluster.MaxClockOffsetMS)
		return
	}
	h.setSkew(time.Duration(c.OffsetMS) * time.Millisecond)
	writeJSON(w, http.StatusOK, h.clockOffset())
}

// setSkew sets the clock offset and logs it.
func (h *host) setSkew(d time.Duration) {
	h.skew.Store(int64(d))
	h.log.Info("clock offset set", "offset", d)
}

// clockOffset is the node's answer at cluster.AdminClockPath.
func (h *host) clockOffset() cluster.ClockOffset {
	return cluster.ClockOffset{Node: string(h.id), OffsetMS: time.Duration(h.skew.Load()).Milliseconds()}
}
