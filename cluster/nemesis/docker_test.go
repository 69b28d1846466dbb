package nemesis

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/causeway/causeway/certs"
	"github.com/causeway/causeway/cluster"
)

// fakeDocker is a Docker daemon's Engine API as far as Docker uses it:
// one container per compose service of the project, all running on
// network "net1". It records every POST (an operation) as "OP SERVICE".
type fakeDocker struct {
	mu  sync.Mutex
	ops []string
}

func (f *fakeDocker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	service := func(id string) string { return strings.TrimPrefix(id, "id-") }
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/containers/json":
		var filters map[string][]string
		_ = json.Unmarshal([]byte(r.URL.Query().Get("filters")), &filters)
		var out []map[string]string
		for _, l := range filters["label"] {
			if s, ok := strings.CutPrefix(l, "com.docker.compose.service="); ok {
				out = append(out, map[string]string{"Id": "id-" + s})
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "containers":
		_, _ = w.Write([]byte(`{"State": {"Running": true, "Paused": false}, "NetworkSettings": {"Networks": {"net1": {}}}}`))
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "containers":
		f.record(parts[2] + " " + service(parts[1]))
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "networks" && parts[1] == "net1":
		var body struct {
			Container      string
			EndpointConfig struct{ Aliases []string }
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		op := parts[2] + " " + service(body.Container)
		if len(body.EndpointConfig.Aliases) > 0 {
			op += " as " + strings.Join(body.EndpointConfig.Aliases, ",")
		}
		f.record(op)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message": "no such thing"}`))
	}
}

func (f *fakeDocker) record(op string) {
	f.mu.Lock()
	f.ops = append(f.ops, op)
	f.mu.Unlock()
}

// startFakeDocker serves f on a unix socket and returns its path.
func startFakeDocker(t *testing.T, f *fakeDocker) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "docker.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(f)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return sock
}

// TestDockerCarriesOutTheComposeSchedule runs deploy/nemesis.yaml (the
// schedule of make docker-nemesis) through the executor on a Docker
// target talking to a fake daemon, and checks the Docker operations it
// makes: kill, start, pause, unpause; a partition of c as a network
// disconnect of c's containers only; no reconnection of c/s0 when it is
// restarted inside the partition; the heal connecting c's containers with
// their service names as aliases; and the final heal restarting DC b.
func TestDockerCarriesOutTheComposeSchedule(t *testing.T) {
	f := &fakeDocker{}
	cfg := testConfig(t, "cops")
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer health.Close()
	for i := range cfg.Nodes {
		cfg.Nodes[i].HTTP = strings.TrimPrefix(health.URL, "http://")
	}
	d := &Docker{Config: cfg, Project: "p", Socket: startFakeDocker(t, f)}
	sched, err := Load("../../deploy/nemesis.yaml", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Check(sched); err != nil {
		t.Fatalf("deploy/nemesis.yaml: %v", err)
	}
	x := newExecutor(cfg, d)
	ctx := context.Background()
	for _, e := range sched {
		if err := x.apply(ctx, e); err != nil {
			t.Errorf("%s: %v", e, err)
		}
	}
	if err := x.healAll(ctx); err != nil {
		t.Errorf("heal all: %v", err)
	}
	want := []string{
		"kill a-s0", "start a-s0",
		"pause b-s1", "unpause b-s1",
		"disconnect c-s0", "disconnect c-s1",
		"kill c-s0", "start c-s0",
		"connect c-s0 as c-s0", "connect c-s1 as c-s1",
		"kill b-s0", "kill b-s1",
		"start b-s0", "start b-s1",
	}
	if !slices.Equal(f.ops, want) {
		t.Errorf("docker operations:\n  %s\nwant\n  %s", strings.Join(f.ops, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestDockerRefusesWhatItCannotDo: added delay, clock skew and partitions
// of some peers or one direction have no Docker operation; Check names
// each such event, and the local built-in schedule (which has all three)
// is refused.
func TestDockerRefusesWhatItCannotDo(t *testing.T) {
	cfg := testConfig(t, "cops")
	d := &Docker{Config: cfg, Project: "p"}
	s, err := Parse([]byte(`
- {at: 1s, delay: {dc: a, add_ms: 100}}
- {at: 2s, clock_skew: {target: "node:a/s0", ms: 100}}
- {at: 3s, partition: {dc: a, peers: [b]}}
- {at: 4s, partition: {dc: a, direction: out}}
- {at: 5s, partition: {dc: a}}
- {at: 6s, heal: all}
`), cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = d.Check(s)
	if err == nil {
		t.Fatal("Check accepted delay, skew and partial partitions")
	}
	for _, what := range []string{"at: 1s", "at: 2s", "at: 3s", "at: 4s"} {
		if !strings.Contains(err.Error(), what) {
			t.Errorf("Check's error does not name the event %s: %v", what, err)
		}
	}
	if strings.Contains(err.Error(), "at: 5s") {
		t.Errorf("Check refused a whole DC's partition: %v", err)
	}
	def, err := Parse([]byte(DefaultSchedule), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d.Check(def) == nil {
		t.Error("Check accepted the local built-in schedule (delay, skew, a one-way partition)")
	}
	if _, err := os.Stat("../../deploy/nemesis.yaml"); err != nil {
		t.Error(err)
	}
}

// TestDockerRestartPollsHealthzOverHTTPS: with tls (the Compose cluster's
// deploy/cluster.yaml) a node serves /healthz over HTTPS to a client
// certificate of the cluster's CA only. Restart's wait polls it as the
// cluster commands do, with the admin certificate, and returns once the
// node answers; without an admin certificate it says so at once rather
// than polling until the timeout.
func TestDockerRestartPollsHealthzOverHTTPS(t *testing.T) {
	dir := t.TempDir()
	nodes := []string{"a/s0", "a/s1", "b/s0", "b/s1", "c/s0", "c/s1"}
	if err := certs.Generate(dir, certs.Options{Nodes: nodes, Clients: []string{"client", cluster.AdminCertName}}); err != nil {
		t.Fatal(err)
	}
	tc, err := certs.ServerConfig(dir, "a/s0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var polls []string // the client certificate of each /healthz request
	health := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := r.TLS.PeerCertificates[0].Subject.CommonName
		mu.Lock()
		polls = append(polls, who)
		mu.Unlock()
		if r.URL.Path != "/healthz" || who != cluster.AdminCertName {
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	health.TLS = tc
	health.StartTLS()
	defer health.Close()

	cfg := testConfig(t, "cops")
	cfg.TLS, cfg.CertsDir = true, dir
	for i := range cfg.Nodes {
		cfg.Nodes[i].HTTP = strings.TrimPrefix(health.URL, "https://")
	}
	f := &fakeDocker{}
	d := &Docker{Config: cfg, Project: "p", Socket: startFakeDocker(t, f)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Restart(ctx, []string{"a/s0"}); err != nil {
		t.Fatalf("Restart against an HTTPS /healthz: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(polls) == 0 || polls[len(polls)-1] != cluster.AdminCertName {
		t.Errorf("/healthz was polled with client certificates %v, want %s", polls, cluster.AdminCertName)
	}
	if !slices.Equal(f.ops, []string{"start a-s0"}) {
		t.Errorf("docker operations %v, want [start a-s0]", f.ops)
	}

	// No admin certificate: Restart fails at once, naming it.
	if err := os.Remove(filepath.Join(dir, cluster.AdminCertName+".crt")); err != nil {
		t.Fatal(err)
	}
	d = &Docker{Config: cfg, Project: "p", Socket: startFakeDocker(t, f)}
	start := time.Now()
	err = d.Restart(ctx, []string{"a/s0"})
	if err == nil || !strings.Contains(err.Error(), "admin certificate") {
		t.Errorf("Restart without the admin certificate: %v, want an error naming it", err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("Restart without the admin certificate took %v: it polled", time.Since(start))
	}
}
