package repro

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// ChainReaction's reproduction (chainreaction.txt §7): the single-site
// throughput and latency of Figs. 2–4 against Cassandra-E and FAWN-KV,
// the get-transactions of Figs. 8–9 (on one site and on two DCs), the
// node failures of Fig. 10, and the geo figures 5–7 and 11 (crgeo.go).

// CROptions configure `repro chainreaction`; Options' Dir, Duration,
// ServiceTime, Cost, Seed and the callbacks apply as for Karma.
type CROptions struct {
	Options
	// Clients is the closed-loop client threads of every run but Fig.
	// 10's (default 200, §7.1's).
	Clients int
	// FailDuration is each Fig. 10 run's virtual time (default 20s, the
	// paper's 140 s scaled) and FailAt when the node is killed (default
	// 8s, the paper's 60 s scaled alike).
	FailDuration, FailAt time.Duration
	// FailThreads is Fig. 10's client threads (default 100, §7.4's).
	FailThreads int
	// Figures selects the groups of figures to run, comma-separated
	// (CRFigureGroups; "" or "all": every one).
	Figures string
}

func (o CROptions) withDefaults() CROptions {
	o.Options = o.Options.withDefaults()
	if o.Clients <= 0 {
		o.Clients = 200
	}
	if o.FailDuration <= 0 {
		o.FailDuration = 20 * time.Second
	}
	if o.FailAt <= 0 || o.FailAt >= o.FailDuration {
		o.FailAt = o.FailDuration * 2 / 5
	}
	if o.FailThreads <= 0 {
		o.FailThreads = 100
	}
	return o
}

// The systems of §7.1 and their run labels.
const (
	crName    = "chainreaction"
	cassE     = "cassandra-e"
	fawn3     = "fawn-kv-3"
	fawn6     = "fawn-kv-6"
	crCOPS    = "cr-cops"
	fawnProto = "fawn-kv"
)

// system is one column of a figure: a protocol on a topology.
type system struct {
	label, protocol string
	topo            *topology.Topology
}

// crRunner runs the reproduction and keeps what each figure needs.
type crRunner struct {
	*runner
	cr CROptions
	// site are §7.1's systems on chainreaction-1dc.
	site []system
	// ycsb and single hold Figs. 2a and 2b's runs by label and workload.
	ycsb, single map[string]map[string]*run
	// txn holds Figs. 8–9's runs by workload.
	txn map[string]*run
	// fail holds Fig. 10's runs: by zone ("head-k", "k-tail") and mix.
	fail map[string]map[string]*run
	// failNode names the node killed in each zone.
	failNode map[string]protocol.NodeID
	// figs are the figure groups selected (CROptions.Figures).
	figs map[string]bool
	// g holds the geo figures (crgeo.go).
	g *crGeo
}

var crYCSB = []string{"a", "b", "c", "d", "f"}

// crFailMixes are Fig. 10's single-object mixes (write%).
var crFailMixes = []int{50, 5}

// ChainReaction reproduces chainreaction.txt §7 and writes Dir/report.md
// and the plots.
func ChainReaction(opts CROptions) error {
	_, err := chainReaction(opts)
	return err
}

// withChainLength is preset name with R = r, named name-rR.
func withChainLength(name string, r int) (*topology.Topology, error) {
	t, err := topology.Preset(name)
	if err != nil {
		return nil, err
	}
	t.Placement.ChainLength = r
	t.Name = fmt.Sprintf("%s-r%d", name, r)
	return t, nil
}

func chainReaction(opts CROptions) (*crRunner, error) {
	opts = opts.withDefaults()
	t6, err := topology.Preset("chainreaction-1dc")
	if err != nil {
		return nil, err
	}
	t3, err := withChainLength("chainreaction-1dc", 3)
	if err != nil {
		return nil, err
	}
	k := &crRunner{runner: &runner{opts: opts.Options, topo: t6, jitter: -1}, cr: opts,
		site: []system{{crName, crName, t6}, {cassE, cassE, t6}, {fawn3, fawnProto, t3}, {fawn6, fawnProto, t6}},
		ycsb: map[string]map[string]*run{}, single: map[string]map[string]*run{}, txn: map[string]*run{},
		fail: map[string]map[string]*run{}, failNode: map[string]protocol.NodeID{}}
	k.simulate = k.sim
	if k.figs, err = parseFigures(opts.Figures); err != nil {
		return nil, err
	}
	geo, err := geoSystems()
	if err != nil {
		return nil, err
	}
	k.g = &crGeo{systems: geo, ycsb: map[string]map[string]*run{}, single: map[string]map[string]*run{},
		meta: map[string]map[string]*run{}, txn: map[string]*run{}}
	single := len(k.site) - 1 // fawn-kv-6 is in Fig. 2a only
	if k.figs["site"] {
		k.total += len(k.site)*len(crYCSB) + single*len(workload.CRSingleObjectMixes)
	}
	if k.figs["txn"] {
		k.total += len(workload.CRTxnMixes)
	}
	if k.figs["fail"] {
		k.total += 2 * len(crFailMixes)
	}
	k.total += k.geoRuns()
	if err := os.MkdirAll(filepath.Join(opts.Dir, RunsDir), 0o755); err != nil {
		return nil, err
	}
	for _, g := range []struct {
		name string
		run  func() error
	}{{"site", k.runSite}, {"txn", k.runTxn}, {"txn", k.runGeoTxn}, {"fail", k.runFailures}, {"geo", k.runGeo}, {"meta", k.runMeta}} {
		if !k.figs[g.name] {
			continue
		}
		if err := g.run(); err != nil {
			return nil, err
		}
	}
	figs, err := k.crPlots()
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(opts.Dir, "report.md"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	k.crWrite(f, figs)
	return k, f.Close()
}

// simSystem runs a named workload on a system.
func (k *crRunner) simSystem(s system, wl string, threads int, extra func(*spec)) (*run, error) {
	w, err := workload.Lookup(wl)
	if err != nil {
		return nil, err
	}
	sp := spec{protocol: s.protocol, workload: w, threads: threads, topo: s.topo, label: s.label}
	if extra != nil {
		extra(&sp)
	}
	return k.simulate(sp)
}

// runSite runs Figs. 2a and 2b (and with them Figs. 3 and 4).
func (k *crRunner) runSite() error {
	for _, s := range k.site {
		k.ycsb[s.label], k.single[s.label] = map[string]*run{}, map[string]*run{}
		for _, y := range crYCSB {
			r, err := k.simSystem(s, "cr-ycsb-"+y, k.cr.Clients, nil)
			if err != nil {
				return err
			}
			k.ycsb[s.label][y] = r
		}
	}
	for _, s := range k.site {
		if s.label == fawn6 {
			continue
		}
		for _, m := range workload.CRSingleObjectMixes {
			r, err := k.simSystem(s, workload.CRSingleObjectName(m[0]), k.cr.Clients, nil)
			if err != nil {
				return err
			}
			k.single[s.label][mixName(m[0])] = r
		}
	}
	return nil
}

// mixName is "W/R" of a single-object mix of write% w.
func mixName(w int) string { return fmt.Sprintf("%d/%d", w, 100-w) }

// runTxn runs Figs. 8 and 9: ChainReaction's get-transaction mixes. §7.3
// ran them on two DCs; ours run on the single site (see crWrite).
func (k *crRunner) runTxn() error {
	for _, m := range workload.CRTxnMixes {
		name := workload.CRTxnName(m[0], m[1], m[2])
		r, err := k.simSystem(k.site[0], name, k.cr.Clients, nil)
		if err != nil {
			return err
		}
		k.txn[name] = r
	}
	return nil
}

// runFailures runs Fig. 10: one object (one chain, R = 6, k = 3), a node
// killed at FailAt inside [head, k] (the node after the head) or in
// (k, tail] (the node after k), for each mix, with a throughput timeline.
func (k *crRunner) runFailures() error {
	p, err := protocol.Lookup(crName)
	if err != nil {
		return err
	}
	cp, ok := p.(*chain.Protocol)
	if !ok {
		return fmt.Errorf("repro: %s is not a chain protocol", crName)
	}
	l := cp.Layout(k.topo)
	c, _ := l.Chain(l.InitialView(), workload.Key(0))
	kk := l.K
	if len(c) < kk+1 || kk < 2 {
		return fmt.Errorf("repro: chain %v too short for Fig. 10 (k = %d)", c, kk)
	}
	k.failNode["head-k"], k.failNode["k-tail"] = c[1], c[kk]
	bucket := k.cr.FailDuration / 40
	for _, zone := range []string{"head-k", "k-tail"} {
		k.fail[zone] = map[string]*run{}
		for _, w := range crFailMixes {
			node := k.failNode[zone]
			r, err := k.simSystem(system{crName + "-" + zone, crName, k.topo}, workload.CRSingleObjectName(w), k.cr.FailThreads,
				func(s *spec) {
					s.duration, s.timeline = k.cr.FailDuration, bucket
					s.faults = faults.Schedule{{At: k.cr.FailAt, Crash: "node:" + string(node)}}
				})
			if err != nil {
				return err
			}
			k.fail[zone][mixName(w)] = r
		}
	}
	return nil
}
