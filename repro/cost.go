package repro

import (
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// The cost analysis of karma.txt §6.4. The paper's model is in its Fig. 13,
// which the text we have does not reproduce; costModel follows the
// prose of §6.4:
//
//   - A server's cost is α storage and 1−α compute; storage and compute
//     scale separately with demand (CAPEX).
//   - Compute demand is the number of local operations: a get is one, a
//     put one per replica (COPS-Ideal: every DC; Karma: one per ring), and
//     a Karma cache miss adds two (the cache lookup and the demand fill)
//     to the storage read. Cache storage is assumed to scale like compute,
//     so caches are counted in the compute term.
//   - Storage demand is the degree of replication.
//   - Inter-DC bytes (OPEX) are the value shipped to every non-local
//     replica on a put, and the value fetched across the WAN on a get
//     that a DC could not serve.
//
// Savings are of Karma over COPS-Ideal, as in Fig. 14.
type costModel struct {
	// dcs is COPS-Ideal's replication (every DC), rings Karma's.
	dcs, rings float64
	// remoteReplicas is the mean number of Karma replicas of a key that are
	// not in the DC of the client that writes it.
	remoteReplicas float64
}

// twitterMissRatio is the Karma cache miss ratio §6.4 derives from a day
// of Twitter traces (every user reads each tweet of a friend once).
const twitterMissRatio = 0.035

// paperMissRatio95 is the miss ratio the paper saw with its 95/5 YCSB
// workload (§6.4).
const paperMissRatio95 = 0.31

// alphas are the storage shares of a server's cost shown in the report.
var alphas = []float64{0.25, 0.5, 0.75}

// newCostModel measures t's replication: every DC for COPS-Ideal, one
// replica per ring for Karma, and how many of a key's ring replicas are
// remote from a writer in a random DC, over the workload's key space.
func newCostModel(t *topology.Topology, records int) costModel {
	m := costModel{dcs: float64(len(t.DCNames())), rings: float64(len(t.Rings()))}
	remote, n := 0, 0
	for i := range records {
		key := workload.Key(int64(i))
		for _, dc := range t.DCNames() {
			for ring := range t.Rings() {
				if r, _ := t.RingReplica(ring, key); r != dc {
					remote++
				}
			}
			n++
		}
	}
	m.remoteReplicas = float64(remote) / float64(n)
	return m
}

// capexSavings is Karma's compute-and-storage saving over COPS-Ideal
// (Fig. 14(a)) for storage share alpha, put fraction put and cache miss
// ratio miss.
func (m costModel) capexSavings(alpha, put, miss float64) float64 {
	copsOps := (1 - put) + put*m.dcs
	karmaOps := (1-put)*(1+2*miss) + put*m.rings
	return 1 - (alpha*m.rings/m.dcs + (1-alpha)*karmaOps/copsOps)
}

// copsWANBytes is COPS-Ideal's inter-DC bytes per operation: each put
// ships the value to every other DC; gets are local.
func (m costModel) copsWANBytes(put, size float64) float64 { return put * (m.dcs - 1) * size }

// karmaWANBytes is Karma's inter-DC bytes per operation: each put ships
// the value to its remote ring replicas, and each get answered across the
// WAN (a share wanGets of all operations) fetches it.
func (m costModel) karmaWANBytes(put, wanGets, size float64) float64 {
	return put*m.remoteReplicas*size + wanGets*size
}

// missRatio is the share of a Karma run's gets that no DC cache answered.
func missRatio(r *run, readShare float64) float64 {
	if readShare <= 0 {
		return 0
	}
	return min(1, max(0, 1-metric(r, "cache_hit_fraction")/readShare))
}

// wanBytesPerOp is a run's measured inter-DC bytes per completed
// operation (every message, metadata and control messages included).
func wanBytesPerOp(r *run) float64 {
	if r.res.WANBytes == nil || r.res.Ops == 0 {
		return 0
	}
	return float64(*r.res.WANBytes) / float64(r.res.Ops)
}

// costRow is one mix of the cost tables, with our measurements.
type costRow struct {
	mix               string
	put, miss, wanGet float64
	// measured bytes per op of COPS-Ideal, Karma and COPS-PR (0: not run).
	cops, karma, copsPR float64
}

// costRows gathers the cost inputs of each Fig. 10 mix from its runs.
func (k *karmaRunner) costRows() []costRow {
	var rows []costRow
	for _, m := range k.mixes {
		w, err := workload.Lookup(m)
		if err != nil {
			continue // the mixes are valid names
		}
		kr := k.mix["karma"][m]
		row := costRow{mix: m, put: 1 - w.ReadProportion, miss: missRatio(kr, w.ReadProportion),
			wanGet: 1 - deref(kr.res.LocalFraction),
			cops:   wanBytesPerOp(k.mix["cops"][m]), karma: wanBytesPerOp(kr)}
		if r := k.mix["cops-pr"][m]; r != nil {
			row.copsPR = wanBytesPerOp(r)
		}
		rows = append(rows, row)
	}
	return rows
}
