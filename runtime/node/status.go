package node

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/causeway/causeway/cluster"
)

// diskUser is a storage engine that can say how much disk it occupies
// (storage.Pebble).
type diskUser interface {
	DiskSpaceUsage() (uint64, error)
}

// registerDiskGauge exports the storage's disk space as
// causeway_storage_disk_bytes, when the engine can tell it.
func (h *host) registerDiskGauge() {
	d, ok := h.eng.(diskUser)
	if !ok {
		return
	}
	h.metrics.registerDisk(string(h.id), func() float64 {
		n, err := d.DiskSpaceUsage()
		if err != nil {
			return 0
		}
		return float64(n)
	})
}

// registerDisk adds the causeway_storage_disk_bytes gauge, read from
// bytes at each scrape.
func (m *metrics) registerDisk(node string, bytes func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "causeway_storage_disk_bytes", Help: "Disk space of the node's storage: write-ahead log and tables.",
		ConstLabels: prometheus.Labels{"node": node},
	}, bytes))
}

// info is what the node says about itself at cluster.StatusPath.
func (h *host) info() cluster.NodeInfo {
	now := time.Now()
	in := cluster.NodeInfo{Node: string(h.id), Protocol: h.protocol, Ready: h.ready.Load(), Incarnation: h.incarnation,
		Started: h.started.UTC().Truncate(time.Second), UptimeS: now.Sub(h.started).Truncate(time.Millisecond).Seconds()}
	if d, ok := h.eng.(diskUser); ok {
		if n, err := d.DiskSpaceUsage(); err == nil {
			in.DataBytes = &n
		}
	}
	return in
}

// serveStatus answers GET cluster.StatusPath with the node's info as JSON.
func (h *host) serveStatus(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(h.info())
}
