package faults

import (
	"math"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/causeway/causeway/topology"
)

// fuzzTopologies are the topologies schedules are checked against.
func fuzzTopologies(tb testing.TB) []*topology.Topology {
	var out []*topology.Topology
	for _, n := range []string{"local3", "karma-aws8"} {
		tp, err := topology.Preset(n)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, tp)
	}
	return out
}

// eventNamed matches a validation error: each line names the event.
var eventNamed = regexp.MustCompile(`^faults: event \d+ \(at -?[0-9a-zµ.]+\): .`)

// yamlWhere matches the decoding errors: yaml.v3's own ("yaml: …", with a
// line except for some syntax errors on the first lines), and the ones that
// add where or need no place.
var yamlWhere = regexp.MustCompile(`^faults: invalid YAML: (yaml: |line \d+, column \d+: |empty document$|more than one YAML document$)`)

// FuzzParse: any input either parses into a schedule of valid, sorted
// events that survives encoding and parsing unchanged, or is rejected with
// an error that names the event (or the YAML problem).
func FuzzParse(f *testing.F) {
	f.Add([]byte(`
- {at: 10s, partition: [[us-west1, us-east], [europe]]}
- {at: 10s, partition_oneway: {from: [brazil], to: [tokyo]}}
- {at: 40s, heal: all}
- {at: 15s, crash: "zone:europe/back"}
- {at: 25s, restart: "zone:europe/back"}
- {at: 30s, delay: {target: "dc:europe", add_ms: 1200, for: 120s}}
- {at: 0s,  loss: {target: "dc:*", probability: 0.01, for: 60s}}
- {at: 0s,  clock_skew: {target: "node:tokyo/*", ms: 250}}
`))
	f.Add([]byte(`
- {at: 1s, partition: [[a], [b, c]]}
- {at: 2s, heal: partitions}
- {at: 3s, duplicate: {target: "dc:b", probability: 0.1, for: 1s}}
- {at: 4s, reorder: {target: "dc:c", probability: 0.3, max_ms: 200, for: 2s}}
- {at: 5s, crash: "node:a/s0"}
- {at: 6s, restart: "node:a/s0"}
- {at: 7s, clock_skew: {target: "dc:a", ms: -250}}
`))
	for _, tp := range fuzzTopologies(f) {
		for seed := uint64(1); seed <= 3; seed++ {
			s := RandomZones(rand.New(rand.NewPCG(seed, 1)), tp, karmaNodes(tp), 10*time.Second)
			data, err := yaml.Marshal(s)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, s := range []string{"", "[]", "not: a list", "- {at: 1s}", "- {at: 1s, reorder: {target: dc:a, probability: 0.5, max_ms: 1}}", "- {at: 1h, delay: {target: dc:a, add_ms: 1, for: -1s}}", "- [\xff]"} {
		f.Add([]byte(s))
	}
	tps := fuzzTopologies(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tp := range tps {
			s, err := Parse(data, tp)
			if err != nil {
				if s != nil {
					t.Fatalf("Parse returned both a schedule and the error %v", err)
				}
				if strings.HasPrefix(err.Error(), "faults: invalid YAML: ") {
					if !yamlWhere.MatchString(err.Error()) {
						t.Fatalf("YAML error %q does not say where", err)
					}
				} else {
					for _, line := range strings.Split(err.Error(), "\n") {
						if !eventNamed.MatchString(line) {
							t.Fatalf("error %q: %q does not name the event", err, line)
						}
					}
				}
				continue
			}
			checkSchedule(t, s, tp)
			data2, err := yaml.Marshal(s)
			if err != nil {
				t.Fatalf("encoding a parsed schedule: %v", err)
			}
			again, err := Parse(data2, tp)
			if err != nil {
				t.Fatalf("re-parse of the encoded schedule: %v\n%s", err, data2)
			}
			if len(s) == 0 && len(again) == 0 {
				continue
			}
			if !reflect.DeepEqual(s, again) {
				t.Fatalf("round trip changed the schedule:\n%v\n%v", s, again)
			}
		}
	})
}

// checkSchedule checks the invariants of a parsed schedule, and that the
// simulator can carry out each event (targets parse, delays fit in a
// time.Duration, probabilities are probabilities).
func checkSchedule(t *testing.T, s Schedule, tp *topology.Topology) {
	t.Helper()
	for i, e := range s {
		if err := e.validate(tp); err != nil {
			t.Fatalf("event %d (%v) of a parsed schedule: %v", i, e, err)
		}
		if e.At < 0 || (i > 0 && e.At < s[i-1].At) {
			t.Fatalf("event %d at %v: negative or out of order", i, e.At)
		}
		_ = e.String()
		targets := []string{e.Crash, e.Restart}
		var ms []float64
		var fors []time.Duration
		var probs []float64
		if e.Delay != nil {
			targets, ms, fors = append(targets, e.Delay.Target), append(ms, e.Delay.AddMs), append(fors, e.Delay.For)
		}
		for _, c := range []*Chance{e.Loss, e.Duplicate} {
			if c != nil {
				targets, fors, probs = append(targets, c.Target), append(fors, c.For), append(probs, c.Probability)
			}
		}
		if e.Reorder != nil {
			targets, ms, fors, probs = append(targets, e.Reorder.Target), append(ms, e.Reorder.MaxMs), append(fors, e.Reorder.For), append(probs, e.Reorder.Probability)
		}
		if e.ClockSkew != nil {
			targets, ms = append(targets, e.ClockSkew.Target), append(ms, math.Abs(e.ClockSkew.Ms))
		}
		for _, tg := range targets {
			if tg == "" {
				continue
			}
			if _, err := ParseTarget(tg); err != nil {
				t.Fatalf("event %d: target %q: %v", i, tg, err)
			}
		}
		for _, v := range ms {
			if !(v >= 0 && v <= MaxMs) {
				t.Fatalf("event %d: %v ms accepted", i, v)
			}
		}
		for _, d := range fors {
			if d < 0 {
				t.Fatalf("event %d: negative for %v accepted", i, d)
			}
		}
		for _, p := range probs {
			if !(p >= 0 && p <= 1) {
				t.Fatalf("event %d: probability %v accepted", i, p)
			}
		}
	}
}

// FuzzParseTarget: a target either parses into a kind, DC and name that
// spell it again, or is rejected with an error quoting it.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"dc:a", "dc:*", "zone:europe/back", "zone:a/front", "node:tokyo/*", "node:a/s0", "planet:a", "dc:", "node:a", "zone:a/middle", ":", ""} {
		f.Add(s)
	}
	tps := fuzzTopologies(f)
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			if !strings.Contains(err.Error(), "target ") || tg != (Target{}) {
				t.Fatalf("ParseTarget(%q) = %+v, %v", s, tg, err)
			}
			return
		}
		again := tg.Kind + ":" + tg.DC
		if tg.Kind != "dc" {
			again += "/" + tg.Name
		}
		if again != s || tg.DC == "" || (tg.Kind != "dc" && tg.Name == "") {
			t.Fatalf("ParseTarget(%q) = %+v, which spells %q", s, tg, again)
		}
		switch tg.Kind {
		case "dc", "node":
		case "zone":
			if tg.Name != "front" && tg.Name != "back" && tg.Name != "*" {
				t.Fatalf("zone %q accepted", tg.Name)
			}
		default:
			t.Fatalf("kind %q accepted", tg.Kind)
		}
		if tg.Matches(tg.DC, tg.Name, tg.Name) != true {
			t.Fatalf("%+v does not match its own DC and name", tg)
		}
		for _, tp := range tps {
			if err := ValidateTarget(s, tp); (err == nil) != (tg.DC == "*" || tp.HasDC(tg.DC)) {
				t.Fatalf("ValidateTarget(%q) on %s = %v", s, tp.Name, err)
			}
		}
	})
}

// TestParseGarbage: malformed schedules are rejected with an error that
// names the event and the field, or the YAML problem.
func TestParseGarbage(t *testing.T) {
	tp := fuzzTopologies(t)[0]
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "faults: invalid YAML: empty document"},
		{"truncated", "- {at: 1s, crash: \"dc:a", "faults: invalid YAML: yaml: "},
		{"truncated list", "- {at: 1s, heal: all}\n- {at: 2s, crash: ", "faults: "},
		{"wrong type", "- {at: soon, heal: all}", "faults: invalid YAML: "},
		{"at without a unit", "- {at: 10, heal: all}", "faults: invalid YAML: "},
		{"unknown field", "- {at: 1s, heal: all, colour: red}", "field colour not found"},
		{"unknown nested field", "- {at: 1s, delay: {target: dc:a, add_ms: 1, until: 2s}}", "field until not found"},
		{"two documents", "- {at: 1s, heal: all}\n---\n- {at: 1s, heal: all}\n", "more than one YAML document"},
		{"enormous at", "- {at: 99999999999h, heal: all}", "faults: invalid YAML: "},
		{"enormous add_ms", "- {at: 1s, delay: {target: dc:a, add_ms: 1e300}}", "event 1 (at 1s): delay.add_ms must be positive and at most"},
		{"NaN add_ms", "- {at: 1s, delay: {target: dc:a, add_ms: .nan}}", "delay.add_ms must be positive"},
		{"NaN probability", "- {at: 1s, loss: {target: dc:a, probability: .nan}}", "loss.probability must be in [0,1]"},
		{"NaN reorder probability", "- {at: 1s, reorder: {target: dc:a, probability: .nan, max_ms: 1}}", "reorder.probability must be in [0,1]"},
		{"NaN max_ms", "- {at: 1s, reorder: {target: dc:a, probability: 0.5, max_ms: .nan}}", "reorder.max_ms must be positive"},
		{"enormous max_ms", "- {at: 1s, reorder: {target: dc:a, probability: 0.5, max_ms: 1e15}}", "reorder.max_ms must be positive and at most"},
		{"NaN skew", "- {at: 1s, clock_skew: {target: dc:a, ms: .nan}}", "clock_skew.ms must be a number"},
		{"enormous skew", "- {at: 1s, clock_skew: {target: dc:a, ms: -1e20}}", "clock_skew.ms must be between"},
		{"negative for", "- {at: 1s, loss: {target: dc:a, probability: 0.5, for: -1s}}", "loss.for must not be negative"},
		{"negative delay for", "- {at: 1s, delay: {target: dc:a, add_ms: 5, for: -1s}}", "delay.for must not be negative"},
		{"invalid UTF-8", "- {at: 1s, crash: \"dc:\xff\"}", "faults: invalid YAML: line 1, column 23: invalid UTF-8"},
		{"control character", "- {at: 1s,\x7f heal: all}", "control character U+007F"},
		{"no topology event", "- {at: 1s, partition_oneway: {from: [a], to: []}}", "partition_oneway.to: empty group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), tp)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse(%q) = %v, want an error containing %q", tc.src, err, tc.want)
			}
		})
	}
	if _, err := Parse([]byte("- {at: 1s, heal: all}"), nil); err == nil {
		t.Error("Parse without a topology: no error")
	}
}
