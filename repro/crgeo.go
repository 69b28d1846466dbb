package repro

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// The geo-replicated part of ChainReaction's reproduction
// (chainreaction.txt §7.2, §7.3 and §7.5): Figs. 5–7 (YCSB and
// single-object throughput and latency on two DCs against Cassandra-E,
// CR-COPS and FAWN-KV 4), Figs. 8–9's get-transactions on two DCs, and
// Fig. 11 (metadata per put and on the wide area against COPS as a put's
// dependencies grow).

// The geo systems' labels and Fig. 11's baseline.
const (
	fawn4    = "fawn-kv-4"
	copsName = "cops"
)

// CRFigureGroups are the groups of figures `repro chainreaction` can run
// (CROptions.Figures): the single site's Figs. 2–4, the get-transactions
// of Figs. 8–9, the failures of Fig. 10, the geo Figs. 5–7 and the
// metadata of Fig. 11.
var CRFigureGroups = []string{"site", "txn", "fail", "geo", "meta"}

// crMetaMixes are Fig. 11's YCSB mixes (read%, write%): a put depends on
// the gets since the session's last put, 1, 9 and 49 on average.
var crMetaMixes = [][2]int{{50, 50}, {90, 10}, {98, 2}}

// crMetaThreads is Fig. 11's client threads (§7.5: 10 YCSB threads).
const crMetaThreads = 10

// crMetaSystems are Fig. 11's protocols: ChainReaction, cr-cops (the same
// code with COPS-style explicit dependencies) and COPS itself.
var crMetaSystems = []string{crName, crCOPS, copsName}

// crGeo holds the geo figures' systems and runs.
type crGeo struct {
	// systems are §7.2's on chainreaction-2dc.
	systems []system
	// ycsb and single hold Figs. 5a and 5b's runs by label and workload.
	ycsb, single map[string]map[string]*run
	// meta holds Fig. 11's runs by protocol and mix.
	meta map[string]map[string]*run
	// txn holds Figs. 8–9's geo runs by workload.
	txn map[string]*run
}

// geoSystems are §7.2's deployments: ChainReaction (R 4, k 2 per DC),
// Cassandra-E (RF 4 per DC, W TWO, R ONE), CR-COPS, and FAWN-KV 4 (one
// chain of 4 spanning the two DCs, 2 servers in each).
func geoSystems() ([]system, error) {
	t2, err := topology.Preset("chainreaction-2dc")
	if err != nil {
		return nil, err
	}
	f4, err := withChainLength("chainreaction-2dc", 2)
	if err != nil {
		return nil, err
	}
	return []system{{crName, crName, t2}, {cassE, cassE, t2}, {crCOPS, crCOPS, t2}, {fawn4, fawnProto, f4}}, nil
}

// parseFigures checks a comma-separated list of CRFigureGroups ("" or
// "all": every group).
func parseFigures(s string) (map[string]bool, error) {
	out := map[string]bool{}
	if s == "" || s == "all" {
		for _, g := range CRFigureGroups {
			out[g] = true
		}
		return out, nil
	}
	for _, g := range strings.Split(s, ",") {
		g = strings.TrimSpace(g)
		if !slices.Contains(CRFigureGroups, g) {
			return nil, fmt.Errorf("repro chainreaction: unknown figure group %q (want all or some of %s)", g, strings.Join(CRFigureGroups, ","))
		}
		out[g] = true
	}
	return out, nil
}

// geoRuns is how many runs the geo groups selected take.
func (k *crRunner) geoRuns() int {
	n := 0
	if k.figs["geo"] {
		n += len(k.g.systems) * (len(crYCSB) + len(workload.CRSingleObjectMixes))
	}
	if k.figs["meta"] {
		n += len(crMetaSystems) * len(crMetaMixes)
	}
	if k.figs["txn"] {
		n += len(workload.CRTxnMixes)
	}
	return n
}

// runGeo runs Figs. 5a and 5b (and with them Figs. 6 and 7): every geo
// system on YCSB A, B, C, D, F and on the single-object mixes.
func (k *crRunner) runGeo() error {
	for _, s := range k.g.systems {
		k.g.ycsb[s.label], k.g.single[s.label] = map[string]*run{}, map[string]*run{}
		for _, y := range crYCSB {
			r, err := k.simSystem(s, "cr-ycsb-"+y, k.cr.Clients, nil)
			if err != nil {
				return err
			}
			k.g.ycsb[s.label][y] = r
		}
	}
	for _, s := range k.g.systems {
		for _, m := range workload.CRSingleObjectMixes {
			r, err := k.simSystem(s, workload.CRSingleObjectName(m[0]), k.cr.Clients, nil)
			if err != nil {
				return err
			}
			k.g.single[s.label][mixName(m[0])] = r
		}
	}
	return nil
}

// metaName is Fig. 11's workload of mix m.
func metaName(m [2]int) string { return fmt.Sprintf("ycsb-%d-%d", m[0], m[1]) }

// runMeta runs Fig. 11: ChainReaction, cr-cops and COPS on two DCs with
// 10 threads, on YCSB mixes whose puts depend on more and more gets.
func (k *crRunner) runMeta() error {
	t2 := k.g.systems[0].topo
	for _, p := range crMetaSystems {
		k.g.meta[p] = map[string]*run{}
		for _, m := range crMetaMixes {
			r, err := k.simSystem(system{p, p, t2}, metaName(m), crMetaThreads, func(s *spec) { s.collect = true })
			if err != nil {
				return err
			}
			k.g.meta[p][metaName(m)] = r
		}
	}
	return nil
}

// runGeoTxn runs Figs. 8 and 9 on two DCs, as §7.3 did.
func (k *crRunner) runGeoTxn() error {
	for _, m := range workload.CRTxnMixes {
		name := workload.CRTxnName(m[0], m[1], m[2])
		r, err := k.simSystem(k.g.systems[0], name, k.cr.Clients, nil)
		if err != nil {
			return err
		}
		k.g.txn[name] = r
	}
	return nil
}

// wanPerPut is a run's wide-area payload bytes per completed put (NaN
// without puts).
func wanPerPut(r *run) float64 {
	puts := 0
	if r.ops != nil {
		puts = len(r.ops.lat[protocol.OpPut])
	}
	if r.res.WANBytes == nil || puts == 0 {
		return math.NaN()
	}
	return float64(*r.res.WANBytes) / float64(puts)
}
