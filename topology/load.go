package topology

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed presets/*.yaml
var presetFS embed.FS

// Presets lists the names of the topologies shipped in the binary, sorted.
func Presets() []string {
	entries, err := presetFS.ReadDir("presets")
	if err != nil {
		panic(err) // embedded at build time
	}
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Preset returns a fresh copy of the named preset topology.
func Preset(name string) (*Topology, error) {
	data, err := presetFS.ReadFile(path.Join("presets", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("topology: no preset named %q (presets: %s)", name, strings.Join(Presets(), ", "))
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("topology preset %s: %w", name, err)
	}
	return t, nil
}

// PresetYAML returns the YAML source of a preset, comments included.
func PresetYAML(name string) ([]byte, error) {
	data, err := presetFS.ReadFile(path.Join("presets", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("topology: no preset named %q (presets: %s)", name, strings.Join(Presets(), ", "))
	}
	return data, nil
}

// Lookup returns the preset called nameOrPath, or else loads the YAML
// file at that path.
func Lookup(nameOrPath string) (*Topology, error) {
	if _, err := presetFS.ReadFile(path.Join("presets", nameOrPath+".yaml")); err == nil {
		return Preset(nameOrPath)
	}
	if _, err := os.Stat(nameOrPath); err != nil {
		return nil, fmt.Errorf("topology %q is neither a preset (%s) nor a readable file", nameOrPath, strings.Join(Presets(), ", "))
	}
	return Load(nameOrPath)
}

// Load reads and validates a topology YAML file.
func Load(file string) (*Topology, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return t, nil
}

// Parse decodes and validates a topology from YAML. Unknown fields are
// errors, so that a misspelt section is not silently ignored.
func Parse(data []byte) (*Topology, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var t Topology
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("topology: invalid YAML: %w", err)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Marshal encodes the topology as YAML (without the presets' comments).
func (t *Topology) Marshal() ([]byte, error) { return yaml.Marshal(t) }

// Validate checks the topology and derives its lookup tables. Every error
// names what is wrong and where.
func (t *Topology) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if t.Name == "" {
		bad("name: missing")
	}
	if len(t.Datacenters) == 0 {
		bad("datacenters: at least one datacenter is needed")
	}
	seen := map[string]bool{}
	for i, d := range t.Datacenters {
		switch {
		case d.Name == "":
			bad("datacenters[%d]: missing name", i)
		case strings.ContainsAny(d.Name, "/ \t"):
			bad("datacenters[%d]: name %q may not contain '/' or spaces", i, d.Name)
		case seen[d.Name]:
			bad("datacenters[%d]: %q is declared twice", i, d.Name)
		}
		seen[d.Name] = true
		if d.Servers <= 0 {
			bad("datacenters[%d] (%s): servers must be at least 1, got %d", i, d.Name, d.Servers)
		}
	}
	if len(errs) > 0 {
		return joinErrs(t.Name, errs)
	}
	// RTT pairs: every key names two DCs, every pair is present once.
	pairs := map[[2]string]string{}
	keys := make([]string, 0, len(t.RTTms))
	for k := range t.RTTms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a, b, err := t.splitPair(k)
		if err != nil {
			bad("%v", err)
			continue
		}
		if a == b {
			bad("rtt_ms: %q pairs a datacenter with itself (use intra_dc_rtt_ms)", k)
			continue
		}
		if v := t.RTTms[k]; v <= 0 {
			bad("rtt_ms: %s must be positive, got %g", k, v)
		}
		p := [2]string{min(a, b), max(a, b)}
		if prev, dup := pairs[p]; dup {
			bad("rtt_ms: %s and %s give the same pair twice", prev, k)
		}
		pairs[p] = k
	}
	for i, d := range t.Datacenters {
		for _, e := range t.Datacenters[i+1:] {
			if _, ok := pairs[[2]string{min(d.Name, e.Name), max(d.Name, e.Name)}]; !ok {
				bad("rtt_ms: missing the pair %s-%s", d.Name, e.Name)
			}
		}
	}
	if t.IntraDCRTTms < 0 {
		bad("intra_dc_rtt_ms: must not be negative, got %g", t.IntraDCRTTms)
	}
	if t.JitterMs < 0 {
		bad("jitter_ms: must not be negative, got %g", t.JitterMs)
	}
	inRing := map[string]int{}
	for ri, ring := range t.Placement.Rings {
		if len(ring) == 0 {
			bad("placement.rings[%d]: empty ring", ri)
		}
		for _, dc := range ring {
			switch {
			case !seen[dc]:
				bad("placement.rings[%d]: unknown datacenter %q", ri, dc)
			case inRing[dc] != 0:
				bad("placement.rings[%d]: datacenter %q is already in ring %d (a DC belongs to at most one ring)", ri, dc, inRing[dc]-1)
			default:
				inRing[dc] = ri + 1
			}
		}
	}
	if rf := t.Placement.ReplicationFactor; rf < 0 || rf > len(t.Datacenters) {
		bad("placement.replication_factor: %d is not between 1 and the %d datacenters", rf, len(t.Datacenters))
	}
	pnames := make([]string, 0, len(t.Placement.Partitions))
	for p := range t.Placement.Partitions {
		pnames = append(pnames, p)
	}
	sort.Strings(pnames)
	for _, p := range pnames {
		dcs := t.Placement.Partitions[p]
		if len(dcs) == 0 {
			bad("placement.partitions.%s: no datacenter replicates it", p)
		}
		dup := map[string]bool{}
		for _, dc := range dcs {
			if !seen[dc] {
				bad("placement.partitions.%s: unknown datacenter %q", p, dc)
			}
			if dup[dc] {
				bad("placement.partitions.%s: datacenter %q listed twice", p, dc)
			}
			dup[dc] = true
		}
	}
	if len(errs) > 0 {
		return joinErrs(t.Name, errs)
	}
	t.finish()
	return nil
}

func joinErrs(name string, errs []error) error {
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Errorf("topology %s: %w", name, errors.Join(errs...))
}

// Describe returns a one-line description of t: its DCs, servers and
// placement.
func (t *Topology) Describe() string {
	var b strings.Builder
	servers := 0
	for _, d := range t.Datacenters {
		servers += d.Servers
	}
	fmt.Fprintf(&b, "%d DCs (%s), %d servers", len(t.Datacenters), strings.Join(t.DCNames(), " "), servers)
	if len(t.Placement.Rings) > 0 {
		var rs []string
		for _, r := range t.Placement.Rings {
			rs = append(rs, "{"+strings.Join(r, " ")+"}")
		}
		fmt.Fprintf(&b, "; rings %s", strings.Join(rs, " "))
	}
	if t.Placement.ReplicationFactor > 0 {
		fmt.Fprintf(&b, "; f=%d", t.Placement.ReplicationFactor)
	}
	if len(t.Placement.Partitions) > 0 {
		fmt.Fprintf(&b, "; %d partitions", len(t.Placement.Partitions))
	}
	return b.String()
}

// Describe returns the one-line description of the named preset.
func Describe(name string) string {
	t, err := Preset(name)
	if err != nil {
		return err.Error()
	}
	return t.Describe()
}

// PartitionsOf returns the names of the partitions dc replicates, sorted.
func (t *Topology) PartitionsOf(dc string) []string {
	var out []string
	for p, dcs := range t.Placement.Partitions {
		if contains(dcs, dc) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
