package nemesis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/causeway/causeway/cluster"
)

// DefaultDockerSocket is where the Docker daemon listens.
const DefaultDockerSocket = "/var/run/docker.sock"

// Docker is a Target for a cluster of containers, one per node, run by
// Docker Compose (deploy/compose.yaml): node DC/NAME is the container of
// the compose service DC-NAME of Project. It speaks to the Docker
// daemon's Engine API on its unix socket, so `causeway nemesis` can run in
// a container on the cluster's network with the socket mounted (make
// docker-nemesis). Every fault is a Docker operation, none goes through a
// node's /admin endpoint:
//
//   - kill: docker kill (SIGKILL); restart: docker start, then wait until
//     the node answers /healthz (unless its DC is cut off, see below),
//     polled like the cluster commands poll it (cluster.Config.HTTPClient:
//     with tls, HTTPS to the cluster's CA with the admin certificate);
//   - pause, resume: docker pause, unpause (the cgroup freezer: the
//     process is stopped as by SIGSTOP, its connections stay open);
//   - partition {dc: X} (both ways, from every other DC): docker network
//     disconnect of X's containers; heal: docker network connect, with the
//     service name as alias again.
//
// A disconnected DC is cut off from its clients too (they are on the same
// network), unlike a local cluster's link rules, which cut only the links
// between DCs. Partitions of some peers or one direction, added delay and
// clock skew have no Docker operation: Check refuses schedules with them.
type Docker struct {
	Config *cluster.Config
	// Project is the compose project (docker compose -p).
	Project string
	// Network is the network the nodes are on (default: the only network
	// of the first node's container, found by New).
	Network string
	// Socket is the Docker daemon's socket (default DefaultDockerSocket).
	Socket string

	once      sync.Once
	client    *http.Client
	health    *http.Client // the cluster commands' (cluster.Config.HTTPClient)
	healthErr error        // why there is no health client
	mu        sync.Mutex
	ids       map[string]string // node ID → container ID
	cutDCs    map[string]bool   // DCs disconnected from Network
	off       map[string]bool   // nodes whose containers are disconnected
}

// Service is the compose service of node id ("a/s0" → "a-s0").
func Service(id string) string { return strings.ReplaceAll(id, "/", "-") }

func (d *Docker) init() {
	d.once.Do(func() {
		sock := d.Socket
		if sock == "" {
			sock = DefaultDockerSocket
		}
		d.client = &http.Client{Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				var dl net.Dialer
				return dl.DialContext(ctx, "unix", sock)
			}}}
		// With tls the nodes serve /healthz over HTTPS to a client
		// certificate of the cluster's CA only: the cluster commands'
		// client (the admin certificate) polls it.
		d.health, d.healthErr = d.Config.HTTPClient(2 * time.Second)
		d.ids = map[string]string{}
		d.cutDCs = map[string]bool{}
		d.off = map[string]bool{}
	})
}

// api calls the Engine API: method on path (with query q), body as JSON
// when not nil, the answer decoded into out when not nil. A status of 300
// or more is an error with the daemon's message.
func (d *Docker) api(ctx context.Context, method, path string, q url.Values, body, out any) error {
	d.init()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	u := "http://docker" + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return fmt.Errorf("docker %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		var m struct{ Message string }
		if json.Unmarshal(data, &m) != nil || m.Message == "" {
			m.Message = strings.TrimSpace(string(data))
		}
		return &dockerError{status: resp.StatusCode, msg: fmt.Sprintf("docker %s %s: %s (%d)", method, path, m.Message, resp.StatusCode)}
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

type dockerError struct {
	status int
	msg    string
}

func (e *dockerError) Error() string { return e.msg }

// container returns node id's container ID, found by its compose labels.
func (d *Docker) container(ctx context.Context, id string) (string, error) {
	d.init()
	d.mu.Lock()
	c, ok := d.ids[id]
	d.mu.Unlock()
	if ok {
		return c, nil
	}
	f, _ := json.Marshal(map[string][]string{"label": {
		"com.docker.compose.project=" + d.Project, "com.docker.compose.service=" + Service(id)}})
	var list []struct{ ID string }
	if err := d.api(ctx, http.MethodGet, "/containers/json", url.Values{"all": {"1"}, "filters": {string(f)}}, nil, &list); err != nil {
		return "", err
	}
	if len(list) != 1 {
		return "", fmt.Errorf("node %s: %d containers of service %s in compose project %s, want 1", id, len(list), Service(id), d.Project)
	}
	d.mu.Lock()
	d.ids[id] = list[0].ID
	d.mu.Unlock()
	return list[0].ID, nil
}

// containerState is the part of a container's inspection Docker uses.
type containerState struct {
	State struct {
		Running, Paused bool
	}
	NetworkSettings struct {
		Networks map[string]json.RawMessage
	}
}

func (d *Docker) inspect(ctx context.Context, id string) (*containerState, string, error) {
	c, err := d.container(ctx, id)
	if err != nil {
		return nil, "", err
	}
	var st containerState
	err = d.api(ctx, http.MethodGet, "/containers/"+c+"/json", nil, nil, &st)
	return &st, c, err
}

// network returns d.Network, or finds it: the only network of the first
// node's container.
func (d *Docker) network(ctx context.Context) (string, error) {
	if d.Network != "" {
		return d.Network, nil
	}
	st, _, err := d.inspect(ctx, d.Config.Nodes[0].ID)
	if err != nil {
		return "", err
	}
	if len(st.NetworkSettings.Networks) != 1 {
		return "", fmt.Errorf("node %s's container is on %d networks; name the cluster's network", d.Config.Nodes[0].ID, len(st.NetworkSettings.Networks))
	}
	for n := range st.NetworkSettings.Networks {
		d.Network = n
	}
	return d.Network, nil
}

// post is a POST without body to /containers/CONTAINER/op of node id.
func (d *Docker) post(ctx context.Context, id, op string, q url.Values) error {
	c, err := d.container(ctx, id)
	if err != nil {
		return err
	}
	return d.api(ctx, http.MethodPost, "/containers/"+c+"/"+op, q, nil, nil)
}

// Kill implements Target: docker kill (SIGKILL). A paused container is
// unpaused first, as SIGKILL ends a stopped process.
func (d *Docker) Kill(ctx context.Context, id string) error {
	if st, _, err := d.inspect(ctx, id); err == nil && st.State.Paused {
		if err := d.post(ctx, id, "unpause", nil); err != nil {
			return err
		}
	}
	return d.post(ctx, id, "kill", url.Values{"signal": {"KILL"}})
}

// Pause implements Target: docker pause.
func (d *Docker) Pause(ctx context.Context, id string) error { return d.post(ctx, id, "pause", nil) }

// Resume implements Target: docker unpause.
func (d *Docker) Resume(ctx context.Context, id string) error { return d.post(ctx, id, "unpause", nil) }

// Restart implements Target: docker start of each node, then a wait until
// each answers /healthz (a node of a disconnected DC: until its container
// runs, as nothing can reach it).
func (d *Docker) Restart(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if err := d.post(ctx, id, "start", nil); err != nil {
			var de *dockerError
			if !errors.As(err, &de) || de.status != http.StatusNotModified { // 304: already running
				return err
			}
		}
	}
	// A container stays disconnected through a kill and a start: one
	// whose DC was healed meanwhile goes back on the network.
	var errs []error
	for _, id := range ids {
		if !d.isCut(id) {
			errs = append(errs, d.connect(ctx, id))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if d.healthErr != nil {
		return fmt.Errorf("restarted %v but cannot poll /healthz: %w", ids, d.healthErr)
	}
	ctx, cancel := context.WithTimeout(ctx, cluster.DefaultUpTimeout)
	defer cancel()
	nodes := map[string]cluster.Node{}
	for _, n := range d.Config.Nodes {
		nodes[n.ID] = n
	}
	for _, id := range ids {
		for {
			ok := false
			if d.isCut(id) {
				st, _, err := d.inspect(ctx, id)
				ok = err == nil && st.State.Running
			} else {
				ok = d.healthy(ctx, nodes[id])
			}
			if ok {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("node %s restarted but not healthy: %w", id, ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

// healthy reports whether node n answers /healthz with 200: over HTTPS
// with the admin certificate when the cluster has tls, else HTTP.
func (d *Docker) healthy(ctx context.Context, n cluster.Node) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.Config.NodeURL(n, "/healthz"), nil)
	if err != nil {
		return false
	}
	resp, err := d.health.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// isCut reports whether node id's DC is cut off.
func (d *Docker) isCut(id string) bool {
	d.init()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cutDCs[dcOf(id)]
}

// Links implements Target for the plans of Check's partitions: the nodes
// of a DC cut both ways from every other DC are disconnected from the
// network; when a node's change heals its cuts, every disconnected
// container of its DC is connected again (a partition is a DC's, and a
// killed or paused node, left out of the executor's plans, must not stay
// off). The peers' side of a cut (their nodes cut from the DC only) needs
// nothing: a disconnected container reaches no one.
func (d *Docker) Links(ctx context.Context, plan map[string]cluster.LinkChange) error {
	d.init()
	others := len(d.Config.Topology.DCNames()) - 1
	full := func(c cluster.LinkChange, cut bool) bool {
		return c.CutOut != nil && c.CutIn != nil && *c.CutOut == cut && *c.CutIn == cut
	}
	// First the DCs cut from every other: the cuts of their peers' nodes
	// from them only are their other side.
	d.mu.Lock()
	for id, c := range plan {
		if full(c, true) && len(c.PeersDC) == others {
			d.cutDCs[dcOf(id)] = true
		}
	}
	d.mu.Unlock()
	var errs []error
	healed := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(plan)) {
		c := plan[id]
		switch {
		case c.DelayMS != nil:
			errs = append(errs, fmt.Errorf("node %s: added delay has no docker operation", id))
		case full(c, true) && len(c.PeersDC) == others:
			errs = append(errs, d.disconnect(ctx, id))
		case full(c, true):
			if !d.peersCut(c.PeersDC) {
				errs = append(errs, fmt.Errorf("node %s: a cut from %v only has no docker operation (docker network disconnect cuts a DC from every other)", id, c.PeersDC))
			}
		case full(c, false):
			healed[dcOf(id)] = true
		default:
			errs = append(errs, fmt.Errorf("node %s: a one-way cut has no docker operation", id))
		}
	}
	for _, dc := range slices.Sorted(maps.Keys(healed)) {
		errs = append(errs, d.reconnect(ctx, func(id string) bool { return dcOf(id) == dc }))
	}
	return errors.Join(errs...)
}

// reconnect connects every disconnected container of the nodes that
// match, and marks their DCs no longer cut off.
func (d *Docker) reconnect(ctx context.Context, match func(id string) bool) error {
	d.mu.Lock()
	var ids []string
	for id := range d.off {
		if match(id) {
			ids = append(ids, id)
		}
	}
	for dc := range d.cutDCs {
		if match(dc + "/") {
			delete(d.cutDCs, dc)
		}
	}
	d.mu.Unlock()
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		errs = append(errs, d.connect(ctx, id))
	}
	return errors.Join(errs...)
}

// dcOf is the datacenter of node ID id ("DC/name").
func dcOf(id string) string {
	dc, _, _ := strings.Cut(id, "/")
	return dc
}

// peersCut reports whether every DC of peers is cut off.
func (d *Docker) peersCut(peers []string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range peers {
		if !d.cutDCs[p] {
			return false
		}
	}
	return true
}

// disconnect takes node id's container off the network (a container
// killed while off stays off: nothing to do again).
func (d *Docker) disconnect(ctx context.Context, id string) error {
	d.mu.Lock()
	off := d.off[id]
	d.mu.Unlock()
	if off {
		return nil
	}
	nw, err := d.network(ctx)
	if err != nil {
		return err
	}
	c, err := d.container(ctx, id)
	if err != nil {
		return err
	}
	if err := d.api(ctx, http.MethodPost, "/networks/"+nw+"/disconnect", nil, map[string]any{"Container": c, "Force": true}, nil); err != nil {
		return err
	}
	d.mu.Lock()
	d.off[id] = true
	d.mu.Unlock()
	return nil
}

// connect puts node id's container back on the network, with its
// service name as alias (the disconnect dropped it).
func (d *Docker) connect(ctx context.Context, id string) error {
	d.mu.Lock()
	off := d.off[id]
	d.mu.Unlock()
	if !off {
		return nil
	}
	nw, err := d.network(ctx)
	if err != nil {
		return err
	}
	c, err := d.container(ctx, id)
	if err != nil {
		return err
	}
	body := map[string]any{"Container": c, "EndpointConfig": map[string]any{"Aliases": []string{Service(id)}}}
	if err := d.api(ctx, http.MethodPost, "/networks/"+nw+"/connect", nil, body, nil); err != nil {
		return err
	}
	d.mu.Lock()
	delete(d.off, id)
	d.mu.Unlock()
	return nil
}

// ResetLinks implements Target: every disconnected container is
// connected again.
func (d *Docker) ResetLinks(ctx context.Context) error {
	d.init()
	return d.reconnect(ctx, func(string) bool { return true })
}

// ClockOffset implements Target: there is no Docker operation for it (a
// node's clock offset is set through its /admin endpoint).
func (d *Docker) ClockOffset(context.Context, []string, int64) error {
	return errors.New("clock skew has no docker operation (it needs the node's /admin endpoint)")
}

// Check refuses a schedule with a fault Docker cannot carry out: added
// delay, clock skew, and partitions of some peers or one direction.
func (d *Docker) Check(s Schedule) error {
	var errs []error
	for _, e := range s {
		switch {
		case e.Delay != nil:
			errs = append(errs, fmt.Errorf("%s: added delay has no docker operation", e))
		case e.ClockSkew != nil:
			errs = append(errs, fmt.Errorf("%s: clock skew has no docker operation", e))
		case e.Partition != nil && (len(e.Partition.Peers) > 0 || (e.Partition.Direction != "" && e.Partition.Direction != string(cluster.Both))):
			errs = append(errs, fmt.Errorf("%s: docker network disconnect cuts a DC from every other, both ways: no peers, no direction", e))
		}
	}
	return errors.Join(errs...)
}
