package nemesis

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// Event is one step of a live schedule: a time At (from the start of the
// run) and exactly one action.
type Event struct {
	At time.Duration `yaml:"at"`
	// Kill sends SIGKILL to the process of every node of the target
	// (kill -9): its memory is lost, its synced storage survives.
	Kill string `yaml:"kill,omitempty"`
	// Restart starts every node of the target that has no running
	// process again (cluster.Up), and waits until it answers /healthz.
	Restart string `yaml:"restart,omitempty"`
	// Pause sends SIGSTOP to every node of the target: the process keeps
	// its memory and its connections but answers nothing.
	Pause string `yaml:"pause,omitempty"`
	// Resume sends SIGCONT to every node of the target.
	Resume string `yaml:"resume,omitempty"`
	// Partition cuts links between datacenters (`causeway cluster
	// partition`).
	Partition *Partition `yaml:"partition,omitempty"`
	// Delay adds delay to the links of a datacenter (`causeway cluster
	// delay`).
	Delay *Delay `yaml:"delay,omitempty"`
	// Heal is "partitions" (every cut healed, delays kept) or "all" (every
	// link rule removed, paused nodes resumed, killed nodes restarted,
	// clock offsets back to 0).
	Heal string `yaml:"heal,omitempty"`
	// ClockSkew offsets the clock the protocol sees on every node of the
	// target (the node's /admin/clock).
	ClockSkew *Skew `yaml:"clock_skew,omitempty"`
}

// Partition is a cut between datacenter DC and Peers (every other
// datacenter when empty), in Direction ("both", the default; "out": what
// DC sends; "in": what it receives).
type Partition struct {
	DC        string   `yaml:"dc"`
	Peers     []string `yaml:"peers,omitempty"`
	Direction string   `yaml:"direction,omitempty"`
}

// Delay adds AddMs milliseconds to every frame between datacenter DC and
// Peers (every other datacenter when empty), both ways; 0 removes it.
type Delay struct {
	DC    string   `yaml:"dc"`
	Peers []string `yaml:"peers,omitempty"`
	AddMs int64    `yaml:"add_ms"`
}

// Skew sets the offset, in milliseconds, of the clock of the target's
// nodes (negative: behind); 0 removes it. An offset replaces the previous
// one, it does not add to it.
type Skew struct {
	Target string `yaml:"target"`
	Ms     int64  `yaml:"ms"`
}

// Schedule is a list of events in time order.
type Schedule []Event

// MaxSkewMs bounds the size of a clock offset: an hour.
const MaxSkewMs = cluster.MaxClockOffsetMS

// String renders the event as one line of the schedule's YAML, in flow
// style: {at: 2s, kill: "node:a/s0"}.
func (e Event) String() string {
	var n yaml.Node
	if err := n.Encode(e); err != nil {
		return fmt.Sprintf("{at: %v, ?}", e.At)
	}
	setFlow(&n)
	out, err := yaml.Marshal(&n)
	if err != nil {
		return fmt.Sprintf("{at: %v, ?}", e.At)
	}
	return strings.TrimSpace(string(out))
}

// setFlow puts every mapping and sequence of n in flow style.
func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		setFlow(c)
	}
}

// End is the time of the schedule's last event (0 when it is empty).
func (s Schedule) End() time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1].At
}

// Load reads a schedule from a YAML file and validates it against cfg.
func Load(path string, cfg *cluster.Config) (Schedule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse reads a schedule from YAML (strictly: an unknown field or a second
// document is an error) and validates every event against cfg: its
// datacenters, and targets that name at least one node of cfg. The error
// names each bad event. The events are returned in time order (equal
// times in file order).
func Parse(data []byte, cfg *cluster.Config) (Schedule, error) {
	if cfg == nil {
		return nil, errors.New("nemesis: no cluster to check the schedule against")
	}
	var s Schedule
	if err := topology.DecodeYAML(data, &s); err != nil {
		return nil, fmt.Errorf("nemesis: invalid YAML: %w", err)
	}
	var errs []error
	for i, e := range s {
		if err := e.validate(cfg); err != nil {
			errs = append(errs, fmt.Errorf("nemesis: event %d (at %v): %w", i+1, e.At, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(s, func(i, j int) bool { return s[i].At < s[j].At })
	return s, nil
}

// actions names the actions of an event, for messages.
const actions = "kill, restart, pause, resume, partition, delay, heal, clock_skew"

func (e Event) validate(cfg *cluster.Config) error {
	n := 0
	for _, set := range []bool{e.Kill != "", e.Restart != "", e.Pause != "", e.Resume != "",
		e.Partition != nil, e.Delay != nil, e.Heal != "", e.ClockSkew != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("an event needs exactly one action (%s), found %d", actions, n)
	}
	if e.At < 0 {
		return errors.New("at must not be negative")
	}
	switch {
	case e.Kill != "":
		return checkTarget("kill", e.Kill, cfg)
	case e.Restart != "":
		return checkTarget("restart", e.Restart, cfg)
	case e.Pause != "":
		return checkTarget("pause", e.Pause, cfg)
	case e.Resume != "":
		return checkTarget("resume", e.Resume, cfg)
	case e.Partition != nil:
		if e.Partition.Direction != "" {
			if _, err := cluster.ParseDirection(e.Partition.Direction); err != nil {
				return fmt.Errorf("partition: %w", err)
			}
		}
		_, err := cluster.PlanLinks(cfg, e.Partition.fault())
		if err != nil {
			return fmt.Errorf("partition: %w", err)
		}
	case e.Delay != nil:
		if e.Delay.AddMs < 0 || e.Delay.AddMs > cluster.MaxAddedDelayMS {
			return fmt.Errorf("delay.add_ms must be between 0 and %d (an hour), got %d", cluster.MaxAddedDelayMS, e.Delay.AddMs)
		}
		if _, err := cluster.PlanLinks(cfg, e.Delay.fault()); err != nil {
			return fmt.Errorf("delay: %w", err)
		}
	case e.Heal != "":
		if e.Heal != "all" && e.Heal != "partitions" {
			return fmt.Errorf("heal: %q is not one of all, partitions", e.Heal)
		}
	case e.ClockSkew != nil:
		if ms := e.ClockSkew.Ms; ms < -MaxSkewMs || ms > MaxSkewMs {
			return fmt.Errorf("clock_skew.ms must be between %d and %d (an hour), got %d", -MaxSkewMs, MaxSkewMs, ms)
		}
		return checkTarget("clock_skew.target", e.ClockSkew.Target, cfg)
	}
	return nil
}

// fault is the cluster-wide link change of a partition.
func (p *Partition) fault() cluster.LinkFault {
	yes := true
	return cluster.LinkFault{DC: p.DC, Peers: p.Peers, Direction: cluster.Direction(p.Direction), Cut: &yes}
}

// fault is the cluster-wide link change of a delay.
func (d *Delay) fault() cluster.LinkFault {
	ms := d.AddMs
	return cluster.LinkFault{DC: d.DC, Peers: d.Peers, DelayMS: &ms}
}

// checkTarget checks that target (the fault schedules' syntax: dc:NAME,
// zone:DC/front|back, node:DC/NAME, with * wildcards) names a node of cfg.
func checkTarget(field, target string, cfg *cluster.Config) error {
	ids, err := Nodes(target, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	if len(ids) == 0 {
		return fmt.Errorf("%s: target %q names no node of the cluster (nodes: %s)", field, target, strings.Join(cfg.NodeIDs(), ", "))
	}
	return nil
}

// Nodes returns the IDs of the nodes of cfg that target names, in the
// cluster file's order. Zones are the protocol's (protocol.NodeSpec.Zone).
func Nodes(target string, cfg *cluster.Config) ([]string, error) {
	if err := faults.ValidateTarget(target, cfg.Topology); err != nil {
		return nil, err
	}
	tg, _ := faults.ParseTarget(target)
	zone := map[string]string{}
	if p, err := protocol.Lookup(cfg.Protocol); err == nil {
		for _, spec := range p.Nodes(cfg.Topology) {
			zone[string(spec.ID)] = spec.Zone
		}
	}
	var ids []string
	for _, n := range cfg.Nodes {
		id := protocol.NodeID(n.ID)
		if tg.Matches(id.DC(), zone[n.ID], id.Name()) {
			ids = append(ids, n.ID)
		}
	}
	return ids, nil
}
