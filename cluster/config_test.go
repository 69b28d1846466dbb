package cluster_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/topology"
)

func plan(t *testing.T, proto string) (*cluster.Config, string) {
	t.Helper()
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg, err := cluster.Plan(topo, proto, dir)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, dir
}

func TestPlan(t *testing.T) {
	cfg, dir := plan(t, "cops")
	if len(cfg.Nodes) != 6 {
		t.Fatalf("%d nodes, want 6 (2 servers in each of 3 DCs)", len(cfg.Nodes))
	}
	seen := map[string]bool{}
	for _, n := range cfg.Nodes {
		for _, a := range []string{n.Addr, n.HTTP} {
			if !strings.HasPrefix(a, "127.0.0.1:") || seen[a] {
				t.Errorf("node %s: address %s is not a fresh loopback address", n.ID, a)
			}
			seen[a] = true
		}
		if want := filepath.Join(dir, "data", strings.ReplaceAll(n.ID, "/", "_")); n.Data != want {
			t.Errorf("node %s: data %s, want %s", n.ID, n.Data, want)
		}
	}
	if cfg.Node("b/s1") == nil || cfg.Node("b/s2") != nil {
		t.Errorf("Node lookup: b/s1 %v, b/s2 %v", cfg.Node("b/s1"), cfg.Node("b/s2"))
	}
	if !cfg.WANDelay || cfg.TLS || cfg.Epoch.IsZero() {
		t.Errorf("defaults: wan_delay %v tls %v epoch %v", cfg.WANDelay, cfg.TLS, cfg.Epoch)
	}
	if _, err := cluster.Plan(cfg.Topology, "nosuch", dir); err == nil || !strings.Contains(err.Error(), "cops") {
		t.Errorf("Plan with an unknown protocol: %v, want the valid names", err)
	}
}

// TestRoundTrip saves a planned configuration and loads it back.
func TestRoundTrip(t *testing.T) {
	cfg, dir := plan(t, "cops")
	cfg.TLS, cfg.CertsDir, cfg.WANDelay = true, filepath.Join(dir, "certs"), false
	path := filepath.Join(dir, cluster.FileName)
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := cluster.Load(dir) // a directory is read as DIR/cluster.yaml
	if err != nil {
		t.Fatal(err)
	}
	a, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b, err := got.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("round trip changed the file:\n--- saved\n%s\n--- loaded\n%s", a, b)
	}
	if !got.Epoch.Equal(cfg.Epoch) || got.Topology.RTT("a", "c") != cfg.Topology.RTT("a", "c") {
		t.Errorf("loaded epoch %v rtt %v; saved %v %v", got.Epoch, got.Topology.RTT("a", "c"), cfg.Epoch, cfg.Topology.RTT("a", "c"))
	}
}

// TestRelativePathsAndDefaults loads a hand-written file with relative
// paths and no wan_delay.
func TestRelativePathsAndDefaults(t *testing.T) {
	cfg, dir := plan(t, "eventual")
	data, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), filepath.Join(dir, "data")+"/", "data/")
	text = strings.Replace(text, "wan_delay: true\n", "", 1)
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := cluster.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "data", "a_s0"); got.Node("a/s0").Data != want {
		t.Errorf("relative data resolved to %s, want %s", got.Node("a/s0").Data, want)
	}
	if !got.WANDelay {
		t.Error("wan_delay absent: want the default true")
	}
}

// TestValidationErrors edits a valid file and checks that each mistake is
// reported with the field it is in.
func TestValidationErrors(t *testing.T) {
	cfg, _ := plan(t, "cops")
	data, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	if _, err := cluster.Parse(data); err != nil {
		t.Fatalf("the unedited file: %v", err)
	}
	n0, n1 := cfg.Nodes[0], cfg.Nodes[1]
	tests := []struct {
		name, text, want string
	}{
		{"unknown field", strings.Replace(good, "tls: false", "tls: false\ncolour: blue", 1), "colour"},
		{"unknown field in a node", strings.Replace(good, "id: "+n0.ID, "id: "+n0.ID+"\n    weight: 3", 1), "weight"},
		{"unknown topology field", strings.Replace(good, "  name: local3", "  name: local3\n  owner: me", 1), "owner"},
		{"wrong type", strings.Replace(good, "tls: false", "tls: maybe", 1), "tls"},
		{"two documents", good + "---\nprotocol: cops\n", "more than one YAML document"},
		{"empty", "", "empty"},
		{"no protocol", strings.Replace(good, "protocol: cops\n", "", 1), "protocol: missing"},
		{"unknown protocol", strings.Replace(good, "protocol: cops", "protocol: copz", 1), `protocol: unknown protocol "copz"`},
		{"tls without certs", strings.Replace(good, "tls: false", "tls: true", 1), "certs_dir: required"},
		{"clients (no longer a field)", good + "clients:\n  listen: 127.0.0.1:0\n", "clients"},
		{"no topology", good[:strings.Index(good, "topology:")], "topology: missing"},
		{"bad topology", strings.Replace(good, "a-c: 120", "a-c: -1", 1), "rtt_ms"},
		{"node of another protocol", strings.Replace(good, "id: "+n0.ID, "id: a/front0", 1), `nodes[0].id: "a/front0" is not a node`},
		{"missing node", strings.Replace(good, "id: "+n0.ID, "id: "+n1.ID, 1), "node " + n0.ID + " of protocol cops on topology local3 is missing"},
		{"duplicate node", strings.Replace(good, "id: "+n0.ID, "id: "+n1.ID, 1), `nodes[1].id: "` + n1.ID + `" is also nodes[0]`},
		{"no addr", strings.Replace(good, "addr: "+n0.Addr, "addr: \"\"", 1), "nodes[0].addr: missing"},
		{"port 0", strings.Replace(good, "addr: "+n0.Addr, "addr: 127.0.0.1:0", 1), "nodes[0].addr"},
		{"not host:port", strings.Replace(good, "http: "+n1.HTTP, "http: localhost", 1), "nodes[1].http"},
		{"shared address", strings.Replace(good, "http: "+n1.HTTP, "http: "+n0.Addr, 1), "nodes[1].http: " + n0.Addr + " is also nodes[0].addr"},
		{"no data", strings.Replace(good, "data: "+n1.Data, "data: \"\"", 1), "nodes[1].data: missing"},
		{"no nodes", good[:strings.Index(good, "nodes:")] + "nodes: []\n" + good[strings.Index(good, "topology:"):], "nodes: none listed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cluster.Parse([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Load names the file.
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte(tests[0].text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cluster.Load(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Load: %v, want the file named", err)
	}
	if _, err := cluster.Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("Load of a missing file: no error")
	}
	// Save refuses an invalid configuration.
	bad := *cfg
	bad.Protocol = ""
	if err := bad.Save(filepath.Join(t.TempDir(), cluster.FileName)); err == nil || !strings.Contains(err.Error(), "protocol") {
		t.Errorf("Save of an invalid configuration: %v", err)
	}
}

// TestBindAndAdvertise covers the fields that let a node listen on every
// interface while others dial it by name, and a client do the same.
func TestBindAndAdvertise(t *testing.T) {
	cfg, dir := plan(t, "cops")
	n := &cfg.Nodes[0]
	if n.ListenAddr() != n.Addr || n.HTTPListenAddr() != n.HTTP {
		t.Errorf("no bind: listen on %s and %s, want %s and %s", n.ListenAddr(), n.HTTPListenAddr(), n.Addr, n.HTTP)
	}
	n.Addr, n.HTTP, n.Bind = "a-s0:7000", "a-s0:8080", "0.0.0.0"
	if n.ListenAddr() != "0.0.0.0:7000" || n.HTTPListenAddr() != "0.0.0.0:8080" {
		t.Errorf("bind 0.0.0.0: listen on %s and %s", n.ListenAddr(), n.HTTPListenAddr())
	}
	n.Bind = "::"
	if n.ListenAddr() != "[::]:7000" {
		t.Errorf("bind ::: listen on %s", n.ListenAddr())
	}

	// The fields survive a round trip, and bad values are reported.
	n.Bind = "0.0.0.0"
	path := filepath.Join(dir, cluster.FileName)
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := cluster.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if g := got.Node(n.ID); g.Bind != "0.0.0.0" || g.Addr != "a-s0:7000" {
		t.Errorf("loaded bind %q addr %q", g.Bind, g.Addr)
	}
	if got.Node(cfg.Nodes[1].ID).Bind != "" {
		t.Error("a node without bind got one")
	}
	data, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	for _, tc := range []struct{ from, to, want string }{
		{"bind: 0.0.0.0", "bind: 0.0.0.0:7000", "nodes[0].bind"},
		{"bind: 0.0.0.0", "bind: a b", "nodes[0].bind"},
	} {
		text := strings.Replace(good, tc.from, tc.to, 1)
		if text == good {
			t.Fatalf("%q not in the file:\n%s", tc.from, good)
		}
		if _, err := cluster.Parse([]byte(text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s", tc.to, err, tc.want)
		}
	}
}
