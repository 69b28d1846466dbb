package topology

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// fuzzSeeds adds every preset, hand-written variants of them and a few
// broken documents to the corpus.
//
// The presets go in as Marshal writes them, without their comments, and
// only local3's file as written: the fuzzer minimizes every input that
// finds new coverage, one byte at a time, for up to -fuzzminimizetime
// (60 s by default), and inputs grown from c3-azure9's 2.4 KB file (a
// 10-line comment) made each minimization take the whole budget, so that
// FuzzParse seemed to stall at a few dozen executions.
func fuzzSeeds(f *testing.F) {
	local3, err := PresetYAML("local3")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(local3)
	for _, n := range Presets() {
		t, err := Preset(n)
		if err != nil {
			f.Fatal(err)
		}
		m, err := t.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(m)
	}
	for _, s := range []string{
		"",
		"name: t\ndatacenters: [{name: a, servers: 1}]\n",
		"name: t\ndatacenters: [{name: a, servers: 1}, {name: b, servers: 3}]\nrtt_ms: {a-b: 10}\nintra_dc_rtt_ms: 0.1\njitter_ms: 2\n",
		"name: t\ndatacenters: [{name: us-west, servers: 1}, {name: us, servers: 1}, {name: west, servers: 1}]\nrtt_ms: {us-west-us: 1, us-west-west: 2, us-west: 3}\n",
		"name: t\ndatacenters: [{name: a, servers: 1}]\nplacement: {rings: [[a], []], replication_factor: -1, partitions: {p: []}}\n",
		"name: t\ndatacenters: [{name: a, servers: 3}, {name: b, servers: 2}]\nrtt_ms: {a-b: 1}\nplacement: {dc_replicas: 2, chain_length: 3, partitions: {p: [a], q: [a, b]}}\n",
		"name: t\n---\nname: u\n",
		"{{{",
		"name: \xff\n",
		"name: \x01\n",
		"x: &a [*a, *a]\n",
		// A DC name with a newline once broke the one-problem-per-line
		// form of the error (the servers error quoted the name raw).
		"datacenters: [{name: \"\\n\"}]\n",
	} {
		f.Add([]byte(s))
	}
}

// fieldNamed matches a validation error: each of its lines names a field.
var fieldNamed = regexp.MustCompile(`^topology [^\n]*?: ((name|datacenters(\[\d+\])?( \([^\n]*\))?|rtt_ms|intra_dc_rtt_ms|jitter_ms|placement\.[a-z_]+[^\n]*): |… and \d+ more errors)`)

// yamlWhere matches the decoding errors: yaml.v3's own ("yaml: …", with a
// line except for some syntax errors on the first lines), and the ones that
// add where or need no place.
var yamlWhere = regexp.MustCompile(`^(yaml: |line \d+, column \d+: |empty document$|more than one YAML document$)`)

// FuzzParse: any input either parses into a topology whose every accessor
// works and which survives Marshal and Parse unchanged, or is rejected with
// a "topology"-prefixed error naming what is wrong.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, err := Parse(data)
		if err != nil {
			if topo != nil {
				t.Fatalf("Parse returned both a topology and the error %v", err)
			}
			msg := err.Error()
			if rest, ok := strings.CutPrefix(msg, "topology: invalid YAML: "); ok {
				if !yamlWhere.MatchString(rest) {
					t.Fatalf("YAML error %q does not say where", msg)
				}
			} else {
				for i, line := range strings.Split(msg, "\n") {
					if i > 0 {
						line = "topology x: " + line
					}
					if !fieldNamed.MatchString(line) {
						t.Fatalf("error %q: %q does not start with the field", msg, line)
					}
				}
			}
			// Validate on whatever the YAML decodes to, without the
			// checks of Parse, must not panic either.
			var loose Topology
			if yaml.Unmarshal(data, &loose) == nil {
				if verr := loose.Validate(); verr != nil && verr.Error() == "" {
					t.Fatal("Validate returned an empty error")
				}
			}
			return
		}
		checkTopology(t, topo)
		if err := topo.Validate(); err != nil {
			t.Fatalf("Validate of a parsed topology: %v", err)
		}
		enc, err := topo.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed topology: %v", err)
		}
		again, err := Parse(enc)
		if err != nil {
			t.Fatalf("re-parse of the marshalled topology: %v\n%s", err, enc)
		}
		enc2, err := again.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("Marshal is not a fixpoint:\n%s\n---\n%s", enc, enc2)
		}
		sameTopology(t, topo, again)
	})
}

// FuzzValidate builds topologies field by field, with any names, server
// counts and floating-point times (NaN, infinities, subnormals, huge
// values, which YAML mutations rarely produce): Validate must not panic,
// and what it accepts must work and survive Marshal and Parse.
func FuzzValidate(f *testing.F) {
	f.Add("a", "b", "c", 2, 2, 40.0, 120.0, 90.0, 0.0, 0.0, 2, uint8(0b011), true, 1, 1)
	f.Add("us-west", "us", "west", 1, 1, 1.0, 2.0, 3.0, 0.5, 10.0, 0, uint8(0), false, 0, 0)
	f.Add("a", "a", "", 0, -1, math.NaN(), math.Inf(1), -1.0, math.NaN(), math.Inf(-1), -1, uint8(0xff), true, -1, 2)
	f.Add("x", "x-x", "y", 1, 1, 1.0, 2.0, 3.0, 0.0, 0.0, 0, uint8(0), false, 2, -3)
	f.Add("x/y", "x y", "*", MaxServers, 1, 5e-324, MaxRTTms, MaxRTTms+1, MaxRTTms, 1e308, 3, uint8(0b101), false, 1, 1)
	f.Fuzz(func(t *testing.T, n1, n2, n3 string, s1, s2 int, r12, r13, r23, intra, jitter float64, rf int, rings uint8, partitions bool, dcReplicas, chain int) {
		topo := &Topology{
			Name:         "fuzz",
			Datacenters:  []DC{{Name: n1, Servers: s1}, {Name: n2, Servers: s2}, {Name: n3, Servers: 1}},
			RTTms:        map[string]float64{n1 + "-" + n2: r12, n1 + "-" + n3: r13, n3 + "-" + n2: r23},
			IntraDCRTTms: intra,
			JitterMs:     jitter,
		}
		topo.Placement.ReplicationFactor = rf
		topo.Placement.DCReplicas, topo.Placement.ChainLength = dcReplicas, chain
		names := []string{n1, n2, n3}
		for r := 0; r < 2; r++ {
			var ring []string
			for i, n := range names {
				if rings>>(3*r+i)&1 == 1 {
					ring = append(ring, n)
				}
			}
			if ring != nil || rings&0x40 != 0 {
				topo.Placement.Rings = append(topo.Placement.Rings, ring)
			}
		}
		if partitions {
			topo.Placement.Partitions = map[string][]string{n1: {n1, n2}, n3: {n3}}
		}
		if err := topo.Validate(); err != nil {
			if !strings.HasPrefix(err.Error(), "topology fuzz: ") {
				t.Fatalf("error %q does not name the topology", err)
			}
			return
		}
		checkTopology(t, topo)
		enc, err := topo.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(enc)
		if err != nil {
			t.Fatalf("re-parse of the marshalled topology: %v\n%s", err, enc)
		}
		sameTopology(t, topo, again)
	})
}

// checkTopology calls every accessor of a valid topology and checks what
// it returns.
func checkTopology(t *testing.T, topo *Topology) {
	t.Helper()
	if topo.Name == "" || len(topo.Datacenters) == 0 {
		t.Fatalf("accepted a topology without a name or datacenters: %+v", topo)
	}
	names := topo.DCNames()
	for _, a := range names {
		if !topo.HasDC(a) || topo.Servers(a) < 1 {
			t.Fatalf("DC %q: HasDC %v, Servers %d", a, topo.HasDC(a), topo.Servers(a))
		}
		for _, b := range names {
			r := topo.RTT(a, b)
			if r < 0 || r > time.Hour || r != topo.RTT(b, a) {
				t.Fatalf("RTT(%s, %s) = %v, RTT(%s, %s) = %v", a, b, r, b, a, topo.RTT(b, a))
			}
		}
		if got := topo.Nearest(a, names); got != a && topo.RTT(a, got) > topo.RTT(a, a) {
			t.Fatalf("Nearest(%s, all) = %s", a, got)
		}
		for _, key := range []string{"", "k", "user00000042"} {
			if s := topo.ServerIndex(a, key); s < 0 || s >= topo.Servers(a) {
				t.Fatalf("ServerIndex(%s, %q) = %d of %d servers", a, key, s, topo.Servers(a))
			}
		}
	}
	if j := topo.Jitter(); j < 0 || j > time.Hour {
		t.Fatalf("Jitter() = %v", j)
	}
	for ri, ring := range topo.Rings() {
		dc, s := topo.RingReplica(ri, "k")
		if topo.RingOf(dc) != ri || !contains(ring, dc) || s < 0 || s >= topo.Servers(dc) {
			t.Fatalf("RingReplica(%d) = %s/%d, not in ring %v", ri, dc, s, ring)
		}
	}
	for f := 0; f <= len(names)+1; f++ {
		dcs := topo.ReplicaDCs("k", f)
		want := f
		if f <= 0 || f >= len(names) {
			want = len(names)
		}
		seen := map[string]bool{}
		for _, d := range dcs {
			if seen[d] || !topo.HasDC(d) {
				t.Fatalf("ReplicaDCs(k, %d) = %v", f, dcs)
			}
			seen[d] = true
		}
		if len(dcs) != want {
			t.Fatalf("ReplicaDCs(k, %d) = %v, want %d DCs", f, dcs, want)
		}
	}
	checkPlacement(t, topo)
	if topo.Describe() == "" {
		t.Fatal("empty Describe")
	}
	for _, v := range []float64{topo.IntraDCRTTms, topo.JitterMs} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("accepted a non-finite time %v", v)
		}
	}
	for k, v := range topo.RTTms {
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			t.Fatalf("accepted rtt_ms %s: %v", k, v)
		}
		a, b, err := splitPair(k, topo.Datacenters, topo.HasDC)
		if err != nil {
			t.Fatalf("accepted rtt_ms key %q: %v", k, err)
		}
		if topo.RTT(a, b) != msToDuration(v) {
			t.Fatalf("rtt_ms %s: %v, but RTT(%s, %s) = %v", k, v, a, b, topo.RTT(a, b))
		}
	}
}

// checkPlacement checks the partition and in-DC placement of a valid
// topology on a few keys.
func checkPlacement(t *testing.T, topo *Topology) {
	t.Helper()
	names := topo.PartitionNames()
	for _, key := range []string{"", "k", "user00000042"} {
		p := topo.PartitionOf(key)
		switch {
		case len(names) == 0 && (p != -1 || topo.Partition(key) != "" || len(topo.PartitionDCs(key)) != len(topo.Datacenters)):
			t.Fatalf("no partitions, but key %q is in %d (%q) on %v", key, p, topo.Partition(key), topo.PartitionDCs(key))
		case len(names) > 0 && (p < 0 || p >= len(names) || topo.Partition(key) != names[p] ||
			fmt.Sprint(topo.PartitionDCs(key)) != fmt.Sprint(topo.Placement.Partitions[names[p]])):
			t.Fatalf("key %q: partition %d (%q) of %v, on %v", key, p, topo.Partition(key), names, topo.PartitionDCs(key))
		}
		for _, dc := range topo.DCNames() {
			for _, n := range []int{1, topo.Placement.DCReplicas, topo.Placement.ChainLength, min(topo.Servers(dc), 5)} {
				if n < 1 {
					continue
				}
				set := topo.DCReplicas(dc, key, n)
				seen := map[int]bool{}
				for _, s := range set {
					if s < 0 || s >= topo.Servers(dc) || seen[s] {
						t.Fatalf("DCReplicas(%s, %q, %d) = %v", dc, key, n, set)
					}
					seen[s] = true
				}
				if len(set) != n || set[0] != topo.ServerIndex(dc, key) {
					t.Fatalf("DCReplicas(%s, %q, %d) = %v, ServerIndex %d", dc, key, n, set, topo.ServerIndex(dc, key))
				}
			}
		}
	}
	for _, d := range topo.DCNames() {
		for _, p := range topo.PartitionsOf(d) {
			if !contains(topo.Placement.Partitions[p], d) {
				t.Fatalf("PartitionsOf(%s) lists %s, which does not hold %s", d, p, d)
			}
		}
	}
}

// sameTopology compares what a topology declares and derives.
func sameTopology(t *testing.T, a, b *Topology) {
	t.Helper()
	if a.Name != b.Name || a.Source != b.Source || !reflect.DeepEqual(a.Datacenters, b.Datacenters) ||
		a.IntraDCRTTms != b.IntraDCRTTms || a.JitterMs != b.JitterMs ||
		fmt.Sprint(a.RTTms) != fmt.Sprint(b.RTTms) || fmt.Sprint(a.Placement) != fmt.Sprint(b.Placement) ||
		!reflect.DeepEqual(a.rtt, b.rtt) || a.Describe() != b.Describe() {
		t.Fatalf("round trip changed the topology:\n%+v\n%+v", a, b)
	}
}

// TestParseGarbage: malformed documents are rejected with an error that
// says what and where.
func TestParseGarbage(t *testing.T) {
	two := "name: t\ndatacenters: [{name: a, servers: 1}, {name: b, servers: 1}]\n"
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "topology: invalid YAML: empty document"},
		{"only a comment", "# nothing\n", "empty document"},
		{"truncated", two[:len(two)-10], "invalid YAML"},
		{"truncated flow", "name: t\ndatacenters: [{name: a, serv", "invalid YAML"},
		{"not a mapping", "- a\n- b\n", "cannot unmarshal !!seq"},
		{"wrong type", "name: t\ndatacenters: [{name: a, servers: many}]\n", "line 2: cannot unmarshal !!str `many` into int"},
		{"name is a list", "name: [a]\n", "line 1: cannot unmarshal !!seq into string"},
		{"unknown field", two + "colour: red\n", "line 3: field colour not found"},
		{"unknown dc field", "name: t\ndatacenters: [{name: a, servers: 1, zone: x}]\n", "field zone not found"},
		{"enormous integer", "name: t\ndatacenters: [{name: a, servers: 99999999999999999999}]\n", "cannot unmarshal"},
		{"too many servers", "name: t\ndatacenters: [{name: a, servers: 1000000000}]\n", "datacenters[0] (a): servers must be at most 10000"},
		{"too many servers in all", "name: t\ndatacenters: [{name: a, servers: 6000}, {name: b, servers: 6000}]\nrtt_ms: {a-b: 1}\n", "servers in all"},
		{"enormous rtt", two + "rtt_ms: {a-b: 1e300}\n", "rtt_ms: a-b must be at most"},
		{"infinite rtt", two + "rtt_ms: {a-b: .inf}\n", "rtt_ms: a-b must be at most"},
		{"NaN rtt", two + "rtt_ms: {a-b: .nan}\n", "rtt_ms: a-b must be positive, got NaN"},
		{"NaN jitter", two + "rtt_ms: {a-b: 1}\njitter_ms: .nan\n", "jitter_ms: must be a number"},
		{"enormous jitter", two + "rtt_ms: {a-b: 1}\njitter_ms: 1e20\n", "jitter_ms: must be at most"},
		{"NaN intra", two + "rtt_ms: {a-b: 1}\nintra_dc_rtt_ms: .nan\n", "intra_dc_rtt_ms: must be a number"},
		{"two documents", two + "rtt_ms: {a-b: 1}\n---\nname: u\n", "more than one YAML document"},
		{"invalid UTF-8", "name: t\ndatacenters: [{name: \"a\xff\", servers: 1}]\n", "line 2, column 24: invalid UTF-8"},
		{"control character", "name: t\x01\n", "line 1, column 8: control character U+0001"},
		{"escaped control character in the name", "name: \"t\\n\"\n", `topology "t\n": name: "t\n" may not contain control characters`},
		{"control character in a DC name", "name: t\ndatacenters: [{name: \"a\\tb\", servers: 1}]\n", `datacenters[0]: name "a\tb" may not contain '/', '*', spaces or control characters`},
		{"negative replication factor", two + "rtt_ms: {a-b: 1}\nplacement: {replication_factor: -1}\n", "placement.replication_factor: -1"},
		{"empty partition", two + "rtt_ms: {a-b: 1}\nplacement: {partitions: {p: []}}\n", "placement.partitions.p: no datacenter"},
		{"alias loop", "x: &a [*a]\n", "invalid YAML"},
		{"ambiguous pair", "name: t\ndatacenters: [{name: a, servers: 1}, {name: a-b, servers: 1}, {name: b-c, servers: 1}, {name: c, servers: 1}]\n" +
			"rtt_ms: {a-a-b: 1, a-b-c: 2, a-c: 3, a-b-b-c: 4, c-a-b: 5, b-c-c: 6}\n", `rtt_ms: "a-b-c" is ambiguous: it reads as a and b-c, or as a-b and c`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse(%q) = %v, want an error containing %q", tc.src, err, tc.want)
			}
		})
	}
}

// TestManyErrorsAreCapped: a document with thousands of mistakes gets a
// bounded error.
func TestManyErrorsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: t\ndatacenters:\n")
	for i := range 300 {
		fmt.Fprintf(&b, "  - {name: d%d, servers: 1}\n", i)
	}
	_, err := Parse([]byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "missing the pair d0-d1") || !strings.Contains(err.Error(), "more errors") {
		t.Fatalf("error %.300v…, want the first missing pairs and a count of the rest", err)
	}
	if n := len(err.Error()); n > 10000 {
		t.Fatalf("error of %d bytes", n)
	}
}

// TestValidateZero: Validate of a zero or half-built topology reports
// errors and does not panic.
func TestValidateZero(t *testing.T) {
	for _, topo := range []*Topology{
		{},
		{Name: "x", Datacenters: []DC{{}}},
		{Name: "x", Datacenters: []DC{{Name: "a", Servers: 1}}, Placement: Placement{Rings: [][]string{nil}, Partitions: map[string][]string{"": nil}}},
		{Name: "x", Datacenters: []DC{{Name: "a", Servers: 1}, {Name: "b", Servers: 1}}, RTTms: map[string]float64{"a-b": math.NaN(), "": 1, "-": 1}},
	} {
		if err := topo.Validate(); err == nil || err.Error() == "" {
			t.Errorf("Validate(%+v) = %v, want an error", topo, err)
		}
	}
}
