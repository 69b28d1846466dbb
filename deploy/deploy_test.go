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

// mountedConfig is where every container finds cluster.yaml.
const mountedConfig = "./cluster.yaml:/etc/causeway/cluster.yaml:ro"

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
		if !slices.Contains(s.Volumes, mountedConfig) || !slices.Contains(s.Volumes, dataVolume) {
			t.Errorf("service %s: volumes %q, want %q and %q", name, s.Volumes, mountedConfig, dataVolume)
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
	if c.Hostname != "client" || !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/pause"}) || !slices.Contains(c.Volumes, mountedConfig) {
		t.Errorf("client: hostname %q entrypoint %q volumes %q", c.Hostname, c.Entrypoint, c.Volumes)
	}
	if len(cf.Services) != len(cfg.Nodes)+1 {
		t.Errorf("%d services, want one per node and the client", len(cf.Services))
	}
}
