package topology

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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
	var t Topology
	if err := DecodeYAML(data, &t); err != nil {
		return nil, fmt.Errorf("topology: invalid YAML: %w", err)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// ErrEmptyYAML is returned by DecodeYAML for input without a document.
var ErrEmptyYAML = errors.New("empty document")

// DecodeYAML decodes data, which must hold exactly one YAML document, into
// v strictly, as Causeway reads all its YAML files (topologies,
// cluster.yaml, fault schedules): a field v does not have is an error, and
// so are an empty input (ErrEmptyYAML) and a second document. The errors
// are yaml.v3's (a *yaml.TypeError for unknown fields and wrong types,
// which name the line), except that invalid UTF-8 and control characters,
// which yaml.v3 reports without a position, are reported with their line
// and column.
func DecodeYAML(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return ErrEmptyYAML
		}
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			if terr := textError(data); terr != nil {
				return terr
			}
		}
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("more than one YAML document")
	}
	return nil
}

// textError returns the first character of data that YAML does not allow
// in a UTF-8 document (invalid UTF-8, a control character other than tab,
// LF, CR and NEL, U+FFFE or U+FFFF), with its 1-based line and column
// (counted in characters), or nil.
func textError(data []byte) error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return fmt.Errorf("line %d, column %d: invalid UTF-8 (byte 0x%02x)", line, col, data[i])
		case r == '\n':
			line, col = line+1, 0
		case r == '\t' || r == '\r':
		case r < 0x20 || (r >= 0x7f && r < 0xa0 && r != 0x85) || r == 0xfffe || r == 0xffff:
			return fmt.Errorf("line %d, column %d: control character %U is not allowed in YAML", line, col, r)
		}
		i += size
		col++
	}
	return nil
}

// Marshal encodes the topology as YAML (without the presets' comments).
func (t *Topology) Marshal() ([]byte, error) { return yaml.Marshal(t) }

// dcField names datacenter i in an error: "datacenters[i] (NAME)", or
// without the name when it is empty or invalid (a name with a newline
// would break the error's one-problem-per-line form; the name's own error
// quotes it).
func dcField(i int, name string) string {
	if name == "" || strings.ContainsFunc(name, badNameRune) {
		return fmt.Sprintf("datacenters[%d]", i)
	}
	return fmt.Sprintf("datacenters[%d] (%s)", i, name)
}

// MaxServers bounds the number of storage servers of a topology, in all
// its datacenters: every server owns points on hash rings, and the
// simulator runs a node per server.
const MaxServers = 10000

// MaxRTTms bounds every round-trip time and the jitter of a topology (an
// hour), so that delays stay far from overflowing a time.Duration.
const MaxRTTms = 3600e3

// maxErrs bounds the errors Validate lists (the rest are counted).
const maxErrs = 20

// Validate checks the topology and derives its lookup tables. Every error
// names what is wrong and where.
func (t *Topology) Validate() error {
	var errs []error
	more := 0
	bad := func(format string, args ...any) {
		if len(errs) == maxErrs {
			more++
			return
		}
		errs = append(errs, fmt.Errorf(format, args...))
	}
	fail := func() error {
		if more > 0 {
			errs = append(errs, fmt.Errorf("… and %d more errors", more))
		}
		return joinErrs(t.Name, errs)
	}
	if t.Name == "" {
		bad("name: missing")
	} else if strings.ContainsFunc(t.Name, unicode.IsControl) {
		bad("name: %q may not contain control characters", t.Name)
	}
	if len(t.Datacenters) == 0 {
		bad("datacenters: at least one datacenter is needed")
	}
	seen := map[string]bool{}
	total := 0
	for i, d := range t.Datacenters {
		switch {
		case d.Name == "":
			bad("datacenters[%d]: missing name", i)
		case strings.ContainsFunc(d.Name, badNameRune):
			bad("datacenters[%d]: name %q may not contain '/', '*', spaces or control characters", i, d.Name)
		case seen[d.Name]:
			bad("datacenters[%d]: %q is declared twice", i, d.Name)
		}
		seen[d.Name] = true
		switch {
		case d.Servers <= 0:
			bad("%s: servers must be at least 1, got %d", dcField(i, d.Name), d.Servers)
		case d.Servers > MaxServers:
			bad("%s: servers must be at most %d, got %d", dcField(i, d.Name), MaxServers, d.Servers)
		default:
			total += d.Servers
		}
	}
	if total > MaxServers {
		bad("datacenters: %d servers in all, more than the %d allowed", total, MaxServers)
	}
	if len(errs) > 0 {
		return fail()
	}
	// RTT pairs: every key names two DCs, every pair is present once.
	pairs := map[[2]string]string{}
	keys := make([]string, 0, len(t.RTTms))
	for k := range t.RTTms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a, b, err := splitPair(k, t.Datacenters, func(name string) bool { return seen[name] })
		if err != nil {
			bad("%v", err)
			continue
		}
		if a == b {
			bad("rtt_ms: %q pairs a datacenter with itself (use intra_dc_rtt_ms)", k)
			continue
		}
		if v := t.RTTms[k]; !(v > 0) {
			bad("rtt_ms: %s must be positive, got %g", k, v)
		} else if v > MaxRTTms {
			bad("rtt_ms: %s must be at most %g (an hour), got %g", k, float64(MaxRTTms), v)
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
	for _, f := range []struct {
		name string
		v    float64
	}{{"intra_dc_rtt_ms", t.IntraDCRTTms}, {"jitter_ms", t.JitterMs}} {
		switch {
		case math.IsNaN(f.v):
			bad("%s: must be a number, got %g", f.name, f.v)
		case f.v < 0:
			bad("%s: must not be negative, got %g", f.name, f.v)
		case f.v > MaxRTTms:
			bad("%s: must be at most %g (an hour), got %g", f.name, float64(MaxRTTms), f.v)
		}
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
	if cf := t.Placement.CacheFraction; !(cf >= 0 && cf <= 1) {
		bad("placement.cache_fraction: %v is not between 0 and 1", cf)
	}
	t.validatePlacementSizes(bad)
	for _, p := range t.PartitionNames() {
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
		return fail()
	}
	t.finish()
	return nil
}

// badNameRune reports whether r may not appear in a datacenter name: '/'
// separates the DC from the node in node IDs, '*' is the wildcard of fault
// targets, and spaces and control characters would garble IDs, file names
// and logs.
func badNameRune(r rune) bool {
	return r == '/' || r == '*' || unicode.IsSpace(r) || !unicode.IsPrint(r)
}

func joinErrs(name string, errs []error) error {
	if name == "" {
		name = "(unnamed)"
	} else if strings.ContainsFunc(name, unicode.IsControl) {
		name = strconv.Quote(name)
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
	if t.Placement.DCReplicas > 0 {
		fmt.Fprintf(&b, "; %d replicas per DC", t.Placement.DCReplicas)
	}
	if t.Placement.ChainLength > 0 {
		fmt.Fprintf(&b, "; chains of %d", t.Placement.ChainLength)
	}
	if cf := t.Placement.CacheFraction; cf > 0 {
		fmt.Fprintf(&b, "; cache %g%% of the keys", 100*cf)
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
