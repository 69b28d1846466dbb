// Package faults describes fault schedules: timed partitions, crashes and
// restarts, congestion, message loss, duplication, reordering and clock
// skew, read from a YAML file or drawn at random from a seed. The simulator
// (runtime/sim) carries them out.
//
// The file format — every action, target and field, with examples — is
// documented in docs/formats/faults.md, the one place it is described; a
// test parses that page's examples with Parse.
//
// A schedule marshals to JSON with the same fields and values
// ([{"at": "1.5s", "crash": "dc:tokyo"}, …]; durations as Go duration
// strings), which Load and Parse accept as they are (YAML is a superset of
// JSON): a result's fault_schedule saved to a file replays the run.
//
// # Nemeses
//
// Besides Random and RandomZones, the nemesis catalogue (Nemeses, in
// nemesis.go) names families of faults, each a generator that draws a
// schedule from a seeded rng over a protocol's own nodes (every role of
// its NodeSpecs, their zones) and the topology's DCs and rings:
//
//   - isolate-dc, majority, ring-split, bridge, oneway, zone-partition:
//     partitions of every shape (one DC from the rest; a minority from a
//     majority; two rings apart or one ring in two, karma.txt §4.4 Claim
//     2; two halves joined only through one DC; one direction only; zones
//     within or across DCs);
//   - crash-node, crash-zone, crash-dc, restart-loop: crashes (unsynced
//     writes lost, as the simulator's crash does) and restarts of a node of
//     any role, a zone, a DC, or one of them again and again;
//   - clock: clock skew of up to ±5 s, then jumps forward and back;
//   - lossy, congestion: loss, duplication, reordering, added delay;
//   - mix: two to four of the others at once.
//
// A nemesis that has nothing to fault (ring-split without rings, the zone
// nemeses for a protocol without zones) does not apply (Nemesis.Applies).
// Every schedule a nemesis draws is over by HealedBy(duration) — 70% of
// the run — where it heals everything and sets every skewed clock back to
// 0, so that convergence and availability after the heal can be judged.
package faults

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/causeway/causeway/topology"
)

// Oneway cuts the links from every DC of From to every DC of To (but not
// the way back).
type Oneway struct {
	From []string `yaml:"from"`
	To   []string `yaml:"to"`
}

// Delay adds latency to every message sent to or from Target for For.
type Delay struct {
	Target string        `yaml:"target"`
	AddMs  float64       `yaml:"add_ms"`
	For    time.Duration `yaml:"for"`
}

// Chance drops (loss) or duplicates (duplicate) each wide-area message sent
// to or from Target with Probability, for For (0: until healed).
type Chance struct {
	Target      string        `yaml:"target"`
	Probability float64       `yaml:"probability"`
	For         time.Duration `yaml:"for"`
}

// Reorder delays each wide-area message to or from Target, with
// Probability, by a uniform extra delay up to MaxMs, so that it overtakes
// or is overtaken by others.
type Reorder struct {
	Target      string        `yaml:"target"`
	Probability float64       `yaml:"probability"`
	MaxMs       float64       `yaml:"max_ms"`
	For         time.Duration `yaml:"for"`
}

// Skew offsets the local clock of every node of Target by Ms.
type Skew struct {
	Target string  `yaml:"target"`
	Ms     float64 `yaml:"ms"`
}

// Event is one timed fault. Exactly one of its action fields is set.
type Event struct {
	At              time.Duration `yaml:"at"`
	Partition       [][]string    `yaml:"partition,omitempty"`
	PartitionOneway *Oneway       `yaml:"partition_oneway,omitempty"`
	Heal            string        `yaml:"heal,omitempty"`
	Crash           string        `yaml:"crash,omitempty"`
	Restart         string        `yaml:"restart,omitempty"`
	Delay           *Delay        `yaml:"delay,omitempty"`
	Loss            *Chance       `yaml:"loss,omitempty"`
	Duplicate       *Chance       `yaml:"duplicate,omitempty"`
	Reorder         *Reorder      `yaml:"reorder,omitempty"`
	ClockSkew       *Skew         `yaml:"clock_skew,omitempty"`
}

// Schedule is a list of events in time order.
type Schedule []Event

// After returns the events of s that come at or after end: in a run that
// ends at end they never happen (the simulator heals every fault when the
// run ends), which callers should warn about.
func (s Schedule) After(end time.Duration) Schedule {
	var late Schedule
	for _, e := range s {
		if e.At >= end {
			late = append(late, e)
		}
	}
	return late
}

// String renders the event as one YAML flow line, as the format's
// examples are written.
func (e Event) String() string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	_ = enc.Encode(e)
	return strings.TrimSpace(strings.ReplaceAll(buf.String(), "\n", " "))
}

// Load reads a schedule from a YAML file.
func Load(path string, t *topology.Topology) (Schedule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data, t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// MaxMs bounds the milliseconds of a fault (delay.add_ms, reorder.max_ms
// and the size of clock_skew.ms): an hour, far from overflowing the
// time.Duration the simulator turns them into.
const MaxMs = topology.MaxRTTms

// Parse reads a schedule from YAML and validates it against t.
func Parse(data []byte, t *topology.Topology) (Schedule, error) {
	if t == nil {
		return nil, errors.New("faults: no topology to check the schedule against")
	}
	var s Schedule
	if err := topology.DecodeYAML(data, &s); err != nil {
		return nil, fmt.Errorf("faults: invalid YAML: %w", err)
	}
	var errs []error
	for i, e := range s {
		if err := e.validate(t); err != nil {
			errs = append(errs, fmt.Errorf("faults: event %d (at %v): %w", i+1, e.At, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(s, func(i, j int) bool { return s[i].At < s[j].At })
	return s, nil
}

func (e Event) validate(t *topology.Topology) error {
	n := 0
	count := func(b bool) {
		if b {
			n++
		}
	}
	count(e.Partition != nil)
	count(e.PartitionOneway != nil)
	count(e.Heal != "")
	count(e.Crash != "")
	count(e.Restart != "")
	count(e.Delay != nil)
	count(e.Loss != nil)
	count(e.Duplicate != nil)
	count(e.Reorder != nil)
	count(e.ClockSkew != nil)
	if n != 1 {
		return fmt.Errorf("an event needs exactly one action (partition, partition_oneway, heal, crash, restart, delay, loss, duplicate, reorder, clock_skew), found %d", n)
	}
	if e.At < 0 {
		return fmt.Errorf("at must not be negative")
	}
	checkDCs := func(field string, dcs []string) error {
		if len(dcs) == 0 {
			return fmt.Errorf("%s: empty group", field)
		}
		for _, g := range dcs {
			dc, zone, isZone := strings.Cut(g, "/")
			if isZone && zone != "front" && zone != "back" {
				return fmt.Errorf("%s: %q: a zone is DC/front or DC/back", field, g)
			}
			if g != "*" && !t.HasDC(dc) {
				return fmt.Errorf("%s: unknown datacenter %q (valid: %v)", field, dc, t.DCNames())
			}
		}
		return nil
	}
	switch {
	case e.Partition != nil:
		if len(e.Partition) < 2 {
			return fmt.Errorf("partition needs at least two groups of DCs")
		}
		for _, g := range e.Partition {
			if err := checkDCs("partition", g); err != nil {
				return err
			}
		}
	case e.PartitionOneway != nil:
		if err := checkDCs("partition_oneway.from", e.PartitionOneway.From); err != nil {
			return err
		}
		return checkDCs("partition_oneway.to", e.PartitionOneway.To)
	case e.Heal != "":
		if e.Heal != "all" && e.Heal != "partitions" {
			return fmt.Errorf("heal: %q is not one of all, partitions", e.Heal)
		}
	case e.Crash != "":
		return ValidateTarget(e.Crash, t)
	case e.Restart != "":
		return ValidateTarget(e.Restart, t)
	case e.Delay != nil:
		if !(e.Delay.AddMs > 0 && e.Delay.AddMs <= MaxMs) {
			return fmt.Errorf("delay.add_ms must be positive and at most %g (an hour), got %g", float64(MaxMs), e.Delay.AddMs)
		}
		if e.Delay.For < 0 {
			return fmt.Errorf("delay.for must not be negative, got %v", e.Delay.For)
		}
		return ValidateTarget(e.Delay.Target, t)
	case e.Loss != nil:
		return e.Loss.validate("loss", t)
	case e.Duplicate != nil:
		return e.Duplicate.validate("duplicate", t)
	case e.Reorder != nil:
		if !(e.Reorder.Probability >= 0 && e.Reorder.Probability <= 1) {
			return fmt.Errorf("reorder.probability must be in [0,1], got %g", e.Reorder.Probability)
		}
		if !(e.Reorder.MaxMs > 0 && e.Reorder.MaxMs <= MaxMs) {
			return fmt.Errorf("reorder.max_ms must be positive and at most %g (an hour), got %g", float64(MaxMs), e.Reorder.MaxMs)
		}
		if e.Reorder.For < 0 {
			return fmt.Errorf("reorder.for must not be negative, got %v", e.Reorder.For)
		}
		return ValidateTarget(e.Reorder.Target, t)
	case e.ClockSkew != nil:
		if ms := e.ClockSkew.Ms; math.IsNaN(ms) {
			return fmt.Errorf("clock_skew.ms must be a number, got %g", ms)
		} else if ms < -MaxMs || ms > MaxMs {
			return fmt.Errorf("clock_skew.ms must be between %g and %g (an hour), got %g", -float64(MaxMs), float64(MaxMs), ms)
		}
		return ValidateTarget(e.ClockSkew.Target, t)
	}
	return nil
}

func (c *Chance) validate(field string, t *topology.Topology) error {
	if !(c.Probability >= 0 && c.Probability <= 1) {
		return fmt.Errorf("%s.probability must be in [0,1], got %g", field, c.Probability)
	}
	if c.For < 0 {
		return fmt.Errorf("%s.for must not be negative, got %v", field, c.For)
	}
	return ValidateTarget(c.Target, t)
}

// Target is a parsed target.
type Target struct {
	Kind string // "dc", "zone" or "node"
	DC   string // a DC name or "*"
	Name string // zone or node name (or "*"); empty for Kind "dc"
}

// ParseTarget splits "dc:NAME", "zone:DC/ZONE" or "node:DC/NAME".
func ParseTarget(s string) (Target, error) {
	kind, rest, ok := strings.Cut(s, ":")
	if !ok || rest == "" {
		return Target{}, fmt.Errorf("target %q: want dc:NAME, zone:DC/front|back or node:DC/NAME", s)
	}
	switch kind {
	case "dc":
		return Target{Kind: kind, DC: rest}, nil
	case "zone", "node":
		dc, name, ok := strings.Cut(rest, "/")
		if !ok || dc == "" || name == "" {
			return Target{}, fmt.Errorf("target %q: want %s:DC/NAME", s, kind)
		}
		if kind == "zone" && name != "front" && name != "back" && name != "*" {
			return Target{}, fmt.Errorf("target %q: zone must be front or back", s)
		}
		return Target{Kind: kind, DC: dc, Name: name}, nil
	}
	return Target{}, fmt.Errorf("target %q: unknown kind %q (want dc, zone or node)", s, kind)
}

// ValidateTarget checks that s parses and names a DC of t.
func ValidateTarget(s string, t *topology.Topology) error {
	tg, err := ParseTarget(s)
	if err != nil {
		return err
	}
	if tg.DC != "*" && !t.HasDC(tg.DC) {
		return fmt.Errorf("target %q: unknown datacenter %q (valid: %v)", s, tg.DC, t.DCNames())
	}
	return nil
}

// Matches reports whether a node (its DC, zone and name) is named by tg.
func (tg Target) Matches(dc, zone, name string) bool {
	if tg.DC != "*" && tg.DC != dc {
		return false
	}
	switch tg.Kind {
	case "zone":
		return tg.Name == "*" || tg.Name == zone
	case "node":
		return tg.Name == "*" || tg.Name == name
	}
	return true
}
