// Package cluster describes and runs a multi-process Causeway cluster: the
// cluster.yaml file that every node process and client reads, and the
// management of a local cluster (one `causeway server` process per node on
// loopback) behind `causeway cluster up|down|status`.
//
// # cluster.yaml
//
// The file is self-contained: it holds the whole topology document, so a
// cluster keeps running on the topology it was planned on even if a preset
// of the same name changes later.
//
//	id: 3f9c2a7e5b1d4c80        # names the cluster in session tokens (optional)
//	protocol: cops              # a registered protocol (causeway protocols)
//	tls: false                  # mutual TLS between every process
//	certs_dir: /abs/dir/certs   # required when tls is true (causeway certs)
//	wan_delay: true             # emulate the topology's one-way delays (default true)
//	epoch: 2026-11-23T10:00:00Z # origin of the nodes' clocks (optional)
//	nodes:
//	  - {id: a/s0, addr: 127.0.0.1:40001, http: 127.0.0.1:40002, data: /abs/dir/data/a_s0}
//	  - {id: a/s1, addr: a-s1:7000, http: a-s1:8080, bind: 0.0.0.0, data: /var/lib/causeway/a_s1}
//	  - …                       # one entry per protocol.NodeSpec of protocol on topology
//	topology:                   # the full topology document (topology.Topology.Marshal)
//	  name: local3
//	  datacenters: …
//
// Decoding is strict: an unknown field, a second YAML document, or any
// inconsistency (a node the protocol does not run, a missing one, two
// nodes on one address, …) is an error naming the field. Relative data and
// certs_dir paths in a file are taken relative to the file's directory.
//
// addr is the node's transport (gRPC) address; http serves /healthz and
// /metrics. A node listens on them, unless it has a bind host: it then
// listens on bind with the ports of addr and http, while the other
// processes still dial addr. bind: 0.0.0.0 is for a node known by a name
// that does not stand for a fixed local address, such as a container
// whose IP address may change when it restarts or reconnects (deploy/).
//
// A client process only dials: the nodes send its replies back on its own
// connections (see runtime/node), so it listens on no port and needs no
// address in this file.
//
// With wan_delay, every process delays each frame it sends by the one-way
// delay (RTT/2) between its datacenter and the destination's (see
// runtime/node). epoch fixes the zero of the clock the protocol state
// machines see, so that every process of the cluster, and a node restarted
// later, reads the same clock (protocols that take versions from the
// clock, such as eventual, need it monotonic across restarts); without it
// the Unix epoch is used.
//
// id names the cluster: Plan draws a random one, and client session
// tokens (package client) carry it, so that a token taken on one cluster
// is refused by another instead of making its session wait for writes
// that cluster never had. A file without one (older files) gives tokens
// without one, which any cluster running the same protocol accepts.
//
// # Local clusters
//
// Up, Down and Status manage a cluster whose processes all run on this
// machine, with everything in one directory (see Up): Up plans and saves
// cluster.yaml on first use, starts one `causeway server` process per node
// (logs in DIR/logs, pid files in DIR/pids) and waits for every node's
// /healthz; Down stops them with SIGTERM (SIGKILL after a timeout); Status
// reports each node's process and health.
package cluster

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/causeway/causeway/certs"
	"github.com/causeway/causeway/protocol"
	_ "github.com/causeway/causeway/protocol/all" // a cluster file names any registered protocol
	"github.com/causeway/causeway/topology"
)

// FileName is the name of the configuration file in a cluster directory.
const FileName = "cluster.yaml"

// ClientCertName is the certificate (in certs_dir) that client processes
// present when tls is true.
const ClientCertName = "client"

// Config is the content of cluster.yaml.
type Config struct {
	// ID names the cluster in session tokens (see "id" in the package
	// doc): 1 to 64 letters, digits, '.', '_' or '-'. Empty: tokens carry
	// no cluster.
	ID string `yaml:"id,omitempty"`
	// Protocol is the name of a registered protocol.
	Protocol string `yaml:"protocol"`
	// TLS turns on mutual TLS between every process of the cluster.
	TLS bool `yaml:"tls"`
	// CertsDir holds ca.crt and each node's NAME.crt and NAME.key (see
	// package certs); required when TLS is true.
	CertsDir string `yaml:"certs_dir,omitempty"`
	// WANDelay makes every process delay the frames it sends by the
	// topology's one-way delay to the destination's datacenter. It
	// defaults to true when the field is absent.
	WANDelay bool `yaml:"wan_delay"`
	// Epoch is the zero of the nodes' clock (zero: the Unix epoch).
	Epoch time.Time `yaml:"epoch,omitempty"`
	// Nodes lists every server node of Protocol on Topology.
	Nodes []Node `yaml:"nodes"`
	// Topology is the full topology the cluster runs on, validated (as
	// topology.Parse, topology.Preset and Parse return it). Validate does
	// not modify it, so a Config may be shared by goroutines.
	Topology *topology.Topology `yaml:"topology"`
}

// Node is one server node of the cluster.
type Node struct {
	// ID is the protocol node ID, "DC/name".
	ID string `yaml:"id"`
	// Addr is the host:port of the node's transport.
	Addr string `yaml:"addr"`
	// HTTP is the host:port serving /healthz and /metrics.
	HTTP string `yaml:"http"`
	// Data is the node's storage directory.
	Data string `yaml:"data"`
	// Bind, if set, is the host the node listens on, with the ports of
	// Addr and HTTP (see ListenAddr); "0.0.0.0" listens on every
	// interface. Others still reach the node at Addr.
	Bind string `yaml:"bind,omitempty"`
}

// ListenAddr is where the node's transport listens: Addr, or Addr's port
// on Bind.
func (n *Node) ListenAddr() string { return bindAddr(n.Addr, n.Bind) }

// HTTPListenAddr is where the node serves HTTP: HTTP, or HTTP's port on
// Bind.
func (n *Node) HTTPListenAddr() string { return bindAddr(n.HTTP, n.Bind) }

// bindAddr is addr with its host replaced by bind, if bind is set.
func bindAddr(addr, bind string) string {
	if bind == "" {
		return addr
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr // Validate reports it
	}
	return net.JoinHostPort(bind, port)
}

// Node returns the entry of node id, or nil.
func (c *Config) Node(id string) *Node {
	for i := range c.Nodes {
		if c.Nodes[i].ID == id {
			return &c.Nodes[i]
		}
	}
	return nil
}

// NodeIDs lists the node IDs in file order.
func (c *Config) NodeIDs() []string {
	ids := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		ids[i] = n.ID
	}
	return ids
}

// Stem is the file name stem of node id: id with "/" replaced by "_" (as
// for certificates, data directories, logs and pid files).
func Stem(id string) string { return certs.FileStem(id) }

// Plan makes the configuration of a new local cluster of protocolName on
// topo whose files live under dir: one node per protocol.NodeSpec, each
// with two free loopback ports (transport and HTTP) and its data in
// dir/data/<stem>. WANDelay is on, TLS off, Epoch now. The ports are free
// when Plan returns, but nothing reserves them.
func Plan(topo *topology.Topology, protocolName, dir string) (*Config, error) {
	if topo == nil {
		return nil, errors.New("cluster: no topology")
	}
	p, err := protocol.Lookup(protocolName)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if err := p.Validate(topo); err != nil {
		return nil, fmt.Errorf("cluster: protocol %s cannot run on topology %s: %w", p.Name(), topo.Name, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	specs := p.Nodes(topo)
	ports, err := freePorts(2 * len(specs))
	if err != nil {
		return nil, err
	}
	cfg := &Config{
		ID:       newID(),
		Protocol: p.Name(),
		WANDelay: true,
		Epoch:    time.Now().UTC().Truncate(time.Second),
		Topology: topo,
	}
	for i, s := range specs {
		id := string(s.ID)
		cfg.Nodes = append(cfg.Nodes, Node{
			ID:   id,
			Addr: ports[2*i],
			HTTP: ports[2*i+1],
			Data: filepath.Join(abs, "data", Stem(id)),
		})
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// freePorts returns n distinct free loopback addresses: it listens on
// 127.0.0.1:0 n times (all at once, so the ports differ) and closes the
// listeners.
func freePorts(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	out := make([]string, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("cluster: finding a free port: %w", err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().String())
	}
	return out, nil
}

// Parse decodes and validates cluster.yaml content. Relative paths are
// kept as they are.
func Parse(data []byte) (*Config, error) {
	cfg := &Config{WANDelay: true} // defaults of absent fields
	if err := topology.DecodeYAML(data, cfg); err != nil {
		var pe *time.ParseError
		switch {
		case errors.Is(err, topology.ErrEmptyYAML):
			return nil, errors.New("cluster: empty file")
		case errors.As(err, &pe):
			// yaml.v3 returns time.Time's own error, without the line.
			return nil, fmt.Errorf("cluster: invalid YAML: epoch: %w", err)
		}
		return nil, fmt.Errorf("cluster: invalid YAML: %w", nameFields(data, err))
	}
	if cfg.Topology != nil {
		// Derives the topology's lookup tables; nothing shares it yet.
		if err := cfg.Topology.Validate(); err != nil {
			return nil, fmt.Errorf("cluster: topology: %w", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Load reads and validates the cluster file at path (a cluster.yaml, or a
// directory holding one). Relative data and certs_dir paths are resolved
// against the file's directory.
func Load(path string) (*Config, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, FileName)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	base := filepath.Dir(path)
	resolve := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	cfg.CertsDir = resolve(cfg.CertsDir)
	for i := range cfg.Nodes {
		cfg.Nodes[i].Data = resolve(cfg.Nodes[i].Data)
	}
	return cfg, nil
}

// Marshal encodes the configuration as YAML.
func (c *Config) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# Causeway cluster file: written by `causeway cluster up`, read by\n# `causeway server` and clients. Edit with care: every process must agree.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return b.Bytes(), nil
}

// Save validates the configuration and writes it to path atomically (a
// temporary file renamed into place), creating the directory if needed.
func (c *Config) Save(path string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	data, err := c.Marshal()
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("cluster: write %s: %w", path, err)
	}
	return nil
}

// Validate checks the configuration; every error names its field.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if c.ID != "" && !clusterID.MatchString(c.ID) {
		bad("id: %q is not 1 to 64 letters, digits, '.', '_' or '-'", c.ID)
	}
	var p protocol.Protocol // set when the protocol can run on the topology
	if c.Protocol == "" {
		bad("protocol: missing (valid: %v)", protocol.Names())
	} else if pp, err := protocol.Lookup(c.Protocol); err != nil {
		bad("protocol: %v", err)
	} else {
		p = pp
	}
	if c.Topology == nil {
		bad("topology: missing (the full topology document)")
		p = nil
	} else if err := checkTopology(c.Topology); err != nil {
		bad("topology: %v", err)
		p = nil
	} else if p != nil {
		if err := p.Validate(c.Topology); err != nil {
			bad("protocol: %s cannot run on topology %s: %v", p.Name(), c.Topology.Name, err)
			p = nil
		}
	}
	if c.TLS && c.CertsDir == "" {
		bad("certs_dir: required when tls is true")
	}
	if len(c.Nodes) == 0 {
		bad("nodes: none listed")
	}
	var want map[string]bool
	if p != nil {
		want = map[string]bool{}
		for _, s := range p.Nodes(c.Topology) {
			want[string(s.ID)] = true
		}
	}
	ids := map[string]int{}
	addrs := map[string]string{}
	claim := func(field, addr string) {
		if prev, dup := addrs[addr]; dup {
			bad("%s: %s is also %s", field, addr, prev)
			return
		}
		addrs[addr] = field
	}
	for i, n := range c.Nodes {
		f := fmt.Sprintf("nodes[%d]", i)
		switch {
		case n.ID == "":
			bad("%s.id: missing", f)
		case want != nil && !want[n.ID]:
			bad("%s.id: %q is not a node of protocol %s on topology %s", f, n.ID, c.Protocol, c.Topology.Name)
		}
		if n.ID != "" {
			if prev, dup := ids[n.ID]; dup {
				bad("%s.id: %q is also nodes[%d]", f, n.ID, prev)
			}
			ids[n.ID] = i
		}
		if err := checkAddr(n.Addr, false); err != nil {
			bad("%s.addr: %v", f, err)
		} else {
			claim(f+".addr", n.Addr)
		}
		if err := checkAddr(n.HTTP, false); err != nil {
			bad("%s.http: %v", f, err)
		} else {
			claim(f+".http", n.HTTP)
		}
		if n.Data == "" {
			bad("%s.data: missing", f)
		}
		if n.Bind != "" {
			if err := checkHost(n.Bind); err != nil {
				bad("%s.bind: %v", f, err)
			}
		}
	}
	if want != nil {
		for _, s := range p.Nodes(c.Topology) {
			if _, ok := ids[string(s.ID)]; !ok {
				bad("nodes: node %s of protocol %s on topology %s is missing", s.ID, c.Protocol, c.Topology.Name)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("cluster: %w", errors.Join(errs...))
	}
	return nil
}

// clusterID is what Config.ID may hold.
var clusterID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// newID draws a random cluster ID: 16 hexadecimal digits.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// lineRef matches the "line N: " yaml.v3 starts its decoding errors with.
var lineRef = regexp.MustCompile(`^line (\d+): `)

// nameFields adds to each "line N: …" message of a yaml.TypeError the path
// of the field on that line ("line 4 (tls): cannot unmarshal …").
func nameFields(data []byte, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return err
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = m
		sub := lineRef.FindStringSubmatch(m)
		if sub == nil {
			continue
		}
		line, _ := strconv.Atoi(sub[1])
		if path, ok := pathAt(&root, line, ""); ok && path != "" {
			msgs[i] = fmt.Sprintf("line %d (%s): %s", line, path, m[len(sub[0]):])
		}
	}
	return &yaml.TypeError{Errors: msgs}
}

// pathAt returns the path ("nodes[2].addr") of the innermost field at line.
func pathAt(n *yaml.Node, line int, prefix string) (string, bool) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p, ok := pathAt(c, line, prefix); ok {
				return p, true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if prefix != "" {
				p = prefix + "." + k.Value
			}
			if k.Line == line && v.Kind == yaml.ScalarNode {
				return p, true
			}
			if sub, ok := pathAt(v, line, p); ok {
				return sub, true
			}
			if k.Line == line {
				return p, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if sub, ok := pathAt(c, line, fmt.Sprintf("%s[%d]", prefix, i)); ok {
				return sub, true
			}
		}
	case yaml.ScalarNode, yaml.AliasNode:
		if n.Line == line {
			return prefix, true
		}
	}
	return "", false
}

// checkTopology validates a copy of t: Topology.Validate derives t's lookup
// tables in place, and t may be in use by other goroutines.
func checkTopology(t *topology.Topology) error {
	data, err := t.Marshal()
	if err != nil {
		return err
	}
	_, err = topology.Parse(data)
	return err
}

// checkHost checks a host name or IP address given without a port.
func checkHost(host string) error {
	if net.ParseIP(host) != nil {
		return nil
	}
	if _, _, err := net.SplitHostPort(host); err == nil || strings.ContainsAny(host, ":/@ \t") {
		return fmt.Errorf("%q is not a host name or IP address (give no port)", host)
	}
	return nil
}

// checkAddr checks a host:port address; port 0 is allowed only if zeroOK.
func checkAddr(addr string, zeroOK bool) error {
	if addr == "" {
		return errors.New("missing (want host:port)")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %v", addr, err)
	}
	if host == "" {
		return fmt.Errorf("%q has no host", addr)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 || (n == 0 && !zeroOK) {
		return fmt.Errorf("%q: port %q is not between 1 and 65535", addr, port)
	}
	return nil
}
