// Package deploy holds the Docker deployment (Dockerfile, compose.yaml,
// cluster.yaml, build-image.sh, docker-test.sh); its test checks that the
// compose file and the cluster file agree, without Docker.
package deploy

import (
	"net"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/topology"
)

// composeFile is the part of compose.yaml the test reads.
type composeFile struct {
	Services map[string]struct {
		Image      string   `yaml:"image"`
		Hostname   string   `yaml:"hostname"`
		Entrypoint []string `yaml:"entrypoint"`
		Command    []string `yaml:"command"`
		Volumes    []string `yaml:"volumes"`
		Networks   []string `yaml:"networks"`
	} `yaml:"services"`
	Networks map[string]any `yaml:"networks"`
	Volumes  map[string]any `yaml:"volumes"`
}

// mountedConfig is where every container finds cluster.yaml, and
// mountedCerts where the nodes and the client find the certificates.
const (
	mountedConfig = "./cluster.yaml:/etc/causeway/cluster.yaml:ro"
	mountedCerts  = "certs:/etc/causeway/certs:ro"
)

func TestComposeMatchesClusterFile(t *testing.T) {
	cfg, err := cluster.Load("cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	preset, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := preset.Marshal()
	got, _ := cfg.Topology.Marshal()
	if cfg.Protocol != "cops" || string(got) != string(want) {
		t.Errorf("cluster.yaml runs %s on\n%s\nwant cops on the local3 preset\n%s", cfg.Protocol, got, want)
	}

	data, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(data, &cf); err != nil {
		t.Fatal(err)
	}
	if len(cf.Networks) != 1 {
		t.Errorf("networks %v, want one (docker-test.sh cuts a DC off it)", cf.Networks)
	}
	for _, n := range cfg.Nodes {
		name := strings.ReplaceAll(n.ID, "/", "-")
		for _, addr := range []string{n.Addr, n.HTTP} {
			if host, _, _ := net.SplitHostPort(addr); host != name {
				t.Errorf("node %s: address %s, want the service name %s as its host", n.ID, addr, name)
			}
		}
		if n.Bind != "0.0.0.0" {
			t.Errorf("node %s: bind %q, want 0.0.0.0 (a container's IP address may change)", n.ID, n.Bind)
		}
		s, ok := cf.Services[name]
		if !ok {
			t.Errorf("node %s: no service %s in compose.yaml", n.ID, name)
			continue
		}
		if wantCmd := []string{"server", "--config", "/etc/causeway/cluster.yaml", "--node", n.ID}; !slices.Equal(s.Command, wantCmd) {
			t.Errorf("service %s: command %q, want %q", name, s.Command, wantCmd)
		}
		dataVolume := name + ":" + path.Dir(n.Data)
		if !slices.Contains(s.Volumes, mountedConfig) || !slices.Contains(s.Volumes, dataVolume) || !slices.Contains(s.Volumes, mountedCerts) {
			t.Errorf("service %s: volumes %q, want %q, %q and %q", name, s.Volumes, mountedConfig, dataVolume, mountedCerts)
		}
		if _, ok := cf.Volumes[name]; !ok {
			t.Errorf("volume %s is not declared", name)
		}
		if s.Hostname != name || s.Image == "" || len(s.Networks) != 1 {
			t.Errorf("service %s: hostname %q image %q networks %v", name, s.Hostname, s.Image, s.Networks)
		}
	}
	c, ok := cf.Services["client"]
	if !ok {
		t.Fatal("no client service")
	}
	if c.Hostname != "client" || !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/pause"}) ||
		!slices.Contains(c.Volumes, mountedConfig) || !slices.Contains(c.Volumes, mountedCerts) {
		t.Errorf("client: hostname %q entrypoint %q volumes %q", c.Hostname, c.Entrypoint, c.Volumes)
	}
	if len(cf.Services) != len(cfg.Nodes)+2 {
		t.Errorf("%d services, want one per node, the client and certs", len(cf.Services))
	}

	// TLS: the certs service makes, once, a certificate for every node
	// valid for its service name, and the client and admin certificates.
	if !cfg.TLS || cfg.CertsDir != "/etc/causeway/certs" {
		t.Errorf("cluster.yaml: tls %v certs_dir %q, want tls in /etc/causeway/certs", cfg.TLS, cfg.CertsDir)
	}
	cs, ok := cf.Services["certs"]
	if !ok {
		t.Fatal("no certs service")
	}
	flags := map[string]string{}
	for i := 0; i+1 < len(cs.Command); i++ {
		if strings.HasPrefix(cs.Command[i], "--") {
			flags[cs.Command[i]] = cs.Command[i+1]
		}
	}
	if len(cs.Command) == 0 || cs.Command[0] != "certs" || flags["--dir"] != cfg.CertsDir || !slices.Contains(cs.Command, "--if-missing") ||
		flags["--clients"] != cluster.ClientCertName+","+cluster.AdminCertName || !slices.Contains(cs.Volumes, "certs:"+cfg.CertsDir) {
		t.Errorf("certs service: command %q volumes %q", cs.Command, cs.Volumes)
	}
	nodes, hosts := strings.Split(flags["--nodes"], ","), strings.Split(flags["--hosts"], ",")
	for _, n := range cfg.Nodes {
		if !slices.Contains(nodes, n.ID) || !slices.Contains(hosts, strings.ReplaceAll(n.ID, "/", "-")) {
			t.Errorf("certs service: node %s missing from --nodes %q or its service name from --hosts %q", n.ID, nodes, hosts)
		}
	}
	if !slices.Contains(hosts, "localhost") {
		t.Errorf("certs service: --hosts %q lacks localhost, the name every process checks a node's certificate against", hosts)
	}
}
