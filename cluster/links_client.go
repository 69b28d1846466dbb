package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// linkTimeout bounds one request to a node's link controls.
const linkTimeout = 5 * time.Second

// NodeLinks is the outcome of a link request to one node.
type NodeLinks struct {
	// ID is the node.
	ID string
	// State is the node's answer; nil when Err is set.
	State *LinkState
	// Err says why the node did not apply the request.
	Err error
}

// SetLinks sends each node of plan its change (POST AdminLinksPath), all
// at once, and returns the outcome for each, in the order of cfg's nodes.
// A node that fails does not stop the others: check every Err.
func SetLinks(ctx context.Context, cfg *Config, plan map[string]LinkChange) []NodeLinks {
	return eachNode(ctx, cfg, func(id string) (string, any, bool) {
		c, ok := plan[id]
		return http.MethodPost, c, ok
	})
}

// ResetLinks removes every link rule of every node (DELETE
// AdminLinksPath): all cuts healed, no added delay.
func ResetLinks(ctx context.Context, cfg *Config) []NodeLinks {
	return eachNode(ctx, cfg, func(string) (string, any, bool) { return http.MethodDelete, nil, true })
}

// Links returns every node's link rules (GET AdminLinksPath).
func Links(ctx context.Context, cfg *Config) []NodeLinks {
	return eachNode(ctx, cfg, func(string) (string, any, bool) { return http.MethodGet, nil, true })
}

// eachNode makes the request req gives for each node (skipping those for
// which it says false) concurrently.
func eachNode(ctx context.Context, cfg *Config, req func(id string) (method string, body any, ok bool)) []NodeLinks {
	return eachNodeAt(ctx, cfg, AdminLinksPath, req)
}

// eachNodeAt is eachNode on the admin endpoint path; State is set only
// for AdminLinksPath.
func eachNodeAt(ctx context.Context, cfg *Config, path string, req func(id string) (method string, body any, ok bool)) []NodeLinks {
	type call struct {
		n      Node
		method string
		body   any
	}
	var calls []call
	for _, n := range cfg.Nodes {
		if method, body, ok := req(n.ID); ok {
			calls = append(calls, call{n, method, body})
		}
	}
	out := make([]NodeLinks, len(calls))
	hc, err := cfg.HTTPClient(linkTimeout)
	if err != nil {
		for i, c := range calls {
			out[i] = NodeLinks{ID: c.n.ID, Err: err}
		}
		return out
	}
	var wg sync.WaitGroup
	for i, c := range calls {
		out[i].ID = c.n.ID
		wg.Go(func() {
			out[i].State, out[i].Err = adminRequest(ctx, hc, c.method, c.n, cfg.NodeURL(c.n, path), path, c.body)
		})
	}
	wg.Wait()
	return out
}

// adminRequest makes one request to node n's admin endpoint path; for
// AdminLinksPath it returns the node's LinkState.
func adminRequest(ctx context.Context, hc *http.Client, method string, n Node, url, path string, body any) (*LinkState, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("node %s unreachable: %w", n.ID, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("node %s: reading the answer: %w", n.ID, err)
	}
	switch {
	case resp.StatusCode == http.StatusOK && path != AdminLinksPath:
		return nil, nil
	case resp.StatusCode == http.StatusOK:
		var st LinkState
		if err := json.Unmarshal(data, &st); err != nil {
			return nil, fmt.Errorf("node %s: %s %s answered something that is not a link state: %w", n.ID, method, url, err)
		}
		return &st, nil
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("node %s does not serve %s: it runs without the admin endpoint (causeway server --admin; cluster up passes it with --tls or --admin)", n.ID, url)
	}
	var e struct {
		Error string `json:"error"`
	}
	msg := string(bytes.TrimSpace(data))
	if json.Unmarshal(data, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	return nil, fmt.Errorf("node %s: %s %s: %s: %s", n.ID, method, url, resp.Status, msg)
}
