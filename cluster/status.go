package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// StatusPath is the path of a node's status on its http address: GET
// answers a NodeInfo as JSON.
const StatusPath = "/status"

// NodeInfo is what a running node says about itself at StatusPath.
type NodeInfo struct {
	// Node is the node's ID; Protocol the protocol it runs.
	Node     string `json:"node"`
	Protocol string `json:"protocol"`
	// Ready is true once the node has recovered and serves (as /healthz).
	Ready bool `json:"ready"`
	// Incarnation is the node's boot counter: 1 on its first start.
	Incarnation uint64 `json:"incarnation"`
	// Started is when this process started the node; UptimeS the seconds
	// since.
	Started time.Time `json:"started"`
	UptimeS float64   `json:"uptime_s"`
	// DataBytes is the disk space of the node's storage (Pebble's
	// write-ahead log and tables); absent when the node could not tell.
	DataBytes *uint64 `json:"data_bytes,omitempty"`
}

// Health values of NodeStatus.
const (
	// HealthUp: /healthz answers 200.
	HealthUp = "up"
	// HealthStarting: the node answers but is not ready yet (recovering).
	HealthStarting = "starting"
	// HealthDown: the node's http address does not answer.
	HealthDown = "down"
)

// nodeInfo asks the node at addr for its status.
func nodeInfo(ctx context.Context, hc *http.Client, url string) (*NodeInfo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("%s: %s", StatusPath, resp.Status)
	}
	var info NodeInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("%s: %w", StatusPath, err)
	}
	return &info, nil
}
