package cluster_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// fixedConfig is a valid configuration of proto on the preset topo with
// fixed loopback addresses (Plan picks free ports, which would make the
// corpus differ from run to run).
func fixedConfig(tb testing.TB, proto, topo string) *cluster.Config {
	tb.Helper()
	tp, err := topology.Preset(topo)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := protocol.Lookup(proto)
	if err != nil {
		tb.Fatal(err)
	}
	if err := p.Validate(tp); err != nil {
		return nil
	}
	cfg := &cluster.Config{
		Protocol: proto,
		WANDelay: true,
		Epoch:    time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC),
		Topology: tp,
	}
	for i, s := range p.Nodes(tp) {
		cfg.Nodes = append(cfg.Nodes, cluster.Node{
			ID:   string(s.ID),
			Addr: fmt.Sprintf("127.0.0.1:%d", 20000+2*i),
			HTTP: fmt.Sprintf("127.0.0.1:%d", 20001+2*i),
			Data: "data/" + cluster.Stem(string(s.ID)),
		})
	}
	if err := cfg.Validate(); err != nil {
		tb.Fatal(err)
	}
	return cfg
}

func marshal(tb testing.TB, cfg *cluster.Config) []byte {
	tb.Helper()
	data, err := cfg.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// namesField matches a validation error that names a field.
var namesField = regexp.MustCompile(`^cluster: (empty file|(id|protocol|tls|certs_dir|wan_delay|epoch|nodes(\[\d+\]\.[a-z]+)?|topology|nodes): )`)

// yamlWhere matches the decoding errors: yaml.v3's own ("yaml: …",
// with a line except for some syntax errors on the first lines), and the
// ones that add where (text errors, epoch) or need no place.
var yamlWhere = regexp.MustCompile(`^(yaml: |line \d+, column \d+: |epoch: |empty document$|more than one YAML document$)`)

// FuzzParse: any cluster.yaml content either parses into a configuration
// that validates and survives Marshal and Parse unchanged, or is rejected
// with a "cluster"-prefixed error that names a line or a field.
func FuzzParse(f *testing.F) {
	for _, proto := range protocol.Names() {
		if cfg := fixedConfig(f, proto, "local3"); cfg != nil {
			f.Add(marshal(f, cfg))
		}
	}
	cfg := fixedConfig(f, "cops", "chainreaction-2dc")
	cfg.TLS, cfg.CertsDir, cfg.WANDelay = true, "certs", false
	cfg.Epoch = time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("", -5*3600))
	f.Add(marshal(f, cfg))
	for _, s := range []string{
		"",
		"protocol: cops\n",
		"protocol: cops\n---\nprotocol: cops\n",
		"protocol: cops\ntopology: {name: t, datacenters: [{name: a, servers: 1}]}\nnodes: [{id: a/s0, addr: \"h:1\", http: \"h:2\", data: d}]\n",
		"epoch: 2026-11-23\n",
		"epoch: 2026-11-23T10:00:00.123456789+14:00\n",
		"tls: maybe\nnodes: [{id: 1}]\n",
		"{{{",
		"protocol: \xff\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := cluster.Parse(data)
		if err != nil {
			if cfg != nil {
				t.Fatalf("Parse returned both a configuration and the error %v", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "cluster: ") || len(msg) <= len("cluster: ") {
				t.Fatalf("error %q does not start with \"cluster: \" and say what is wrong", msg)
			}
			if rest, ok := strings.CutPrefix(msg, "cluster: invalid YAML: "); ok {
				if !yamlWhere.MatchString(rest) {
					t.Fatalf("YAML error %q does not say where", msg)
				}
			} else if !namesField.MatchString(msg) {
				t.Fatalf("error %q does not start with the field", msg)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Validate of a parsed configuration: %v", err)
		}
		if cfg.Topology == nil || len(cfg.Nodes) == 0 {
			t.Fatalf("accepted a configuration without topology or nodes: %+v", cfg)
		}
		for _, id := range cfg.NodeIDs() {
			n := cfg.Node(id)
			if n == nil || n.ID != id || n.Addr == "" || n.HTTP == "" || n.Data == "" {
				t.Fatalf("node %q: %+v", id, n)
			}
		}
		enc := marshal(t, cfg)
		again, err := cluster.Parse(enc)
		if err != nil {
			t.Fatalf("re-parse of the marshalled configuration: %v\n%s", err, enc)
		}
		if enc2 := marshal(t, again); !bytes.Equal(enc, enc2) {
			t.Fatalf("Marshal is not a fixpoint:\n%s\n---\n%s", enc, enc2)
		}
		for _, a := range cfg.Topology.DCNames() {
			for _, b := range cfg.Topology.DCNames() {
				if r := cfg.Topology.RTT(a, b); r < 0 || r > time.Hour {
					t.Fatalf("RTT(%s, %s) = %v", a, b, r)
				}
			}
		}
		if !again.Epoch.Equal(cfg.Epoch) || again.Protocol != cfg.Protocol || again.TLS != cfg.TLS ||
			again.WANDelay != cfg.WANDelay || fmt.Sprint(again.Nodes) != fmt.Sprint(cfg.Nodes) ||
			again.Topology.Describe() != cfg.Topology.Describe() {
			t.Fatalf("round trip changed the configuration:\n%+v\n%+v", cfg, again)
		}
	})
}

// TestParseGarbage: truncated files, wrong types, unknown fields, enormous
// numbers and invalid text are rejected with an error naming where.
func TestParseGarbage(t *testing.T) {
	good := string(marshal(t, fixedConfig(t, "cops", "local3")))
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "cluster: empty file"},
		{"only comments", "# nothing\n", "cluster: empty file"},
		{"truncated in a node", good[:strings.Index(good, "nodes:")+40], "cluster: "},
		{"truncated in the topology", good[:strings.Index(good, "rtt_ms:")+len("rtt_ms:\n")+8], "cluster: "},
		{"not a mapping", "- protocol: cops\n", "cannot unmarshal !!seq"},
		{"nodes is a string", strings.Replace(good, "nodes:\n", "nodes: many\nx:\n", 1), "(nodes): cannot unmarshal !!str `many`"},
		{"epoch is not a time", strings.Replace(good, "epoch: 2026-11-23T10:00:00Z", "epoch: yesterday", 1), `cluster: invalid YAML: epoch: parsing time "yesterday"`},
		{"enormous servers", strings.Replace(good, "servers: 2", "servers: 99999999999999999999", 1), "cannot unmarshal !!float"},
		{"too many servers", strings.Replace(good, "servers: 2", "servers: 100000", 1), "topology: topology local3: datacenters[0] (a): servers must be at most"},
		{"enormous rtt", strings.Replace(good, "a-b: 40", "a-b: 1e300", 1), "topology: topology local3: rtt_ms: a-b must be at most"},
		{"NaN rtt", strings.Replace(good, "a-b: 40", "a-b: .nan", 1), "rtt_ms: a-b must be positive, got NaN"},
		{"port out of range", strings.Replace(good, "addr: 127.0.0.1:20000", "addr: 127.0.0.1:99999999999999999999", 1), `nodes[0].addr: "127.0.0.1:99999999999999999999": port`},
		{"unknown field", good + "colour: blue\n", "field colour not found"},
		{"invalid UTF-8", strings.Replace(good, "protocol: cops", "protocol: co\xffps", 1), "invalid UTF-8 (byte 0xff)"},
		{"control character", strings.Replace(good, "protocol: cops", "protocol: co\x00ps", 1), "control character U+0000"},
		{"a list of garbage", "[1, 2, [3]]\n", "cannot unmarshal !!seq"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cluster.Parse([]byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "cluster: ") {
				t.Fatalf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestValidateDoesNotPanic: Validate of configurations built in code, with
// missing or unvalidated parts, reports errors and does not panic.
func TestValidateDoesNotPanic(t *testing.T) {
	raw := &topology.Topology{Name: "t", Datacenters: []topology.DC{{Name: "a", Servers: 1}}} // never validated
	for _, cfg := range []*cluster.Config{
		{},
		{Protocol: "cops"},
		{Protocol: "cops", Topology: &topology.Topology{}},
		{Protocol: "cops", Topology: raw, Nodes: []cluster.Node{{ID: "a/s0", Addr: "h:1", HTTP: "h:2"}}},
		{Protocol: "karma", Topology: raw, Nodes: []cluster.Node{{}, {ID: "/"}}},
	} {
		if err := cfg.Validate(); err == nil || err.Error() == "" {
			t.Errorf("Validate(%+v) = %v, want an error", cfg, err)
		}
	}
}
