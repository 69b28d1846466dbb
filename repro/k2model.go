package repro

import (
	"container/list"

	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/workload"
)

// lruModel is what an exact LRU cache would give k2's all-local share in
// steady state, without the protocol: one DC's cache of frac × records
// keys, fed by read-only transactions of keys distinct keys drawn with
// the zipf law theta over records keys (workload.DistZipf), each key
// stored in the DC with probability f/dcs (its value elsewhere, then,
// cached once read). A transaction is all-local when every key it reads
// that the DC does not store is cached. No writes, versions or timing:
// an upper bound of what the cache allows, to tell the cache's and the
// run's length's share of a gap from the protocol's. It returns the
// all-local share of the transactions after warm ones, over measure more.
func lruModel(records int, theta, frac float64, f, dcs, keys, warm, measure int) float64 {
	rng := sim.NewRand(1, "k2-lru-model")
	z := workload.NewZipfianTheta(0, int64(records)-1, theta)
	stored := make([]bool, records)
	for i := range stored {
		stored[i] = rng.IntN(dcs) < f
	}
	capacity := int(frac * float64(records))
	order := list.New()
	at := map[int64]*list.Element{}
	local := 0
	for n := 0; n < warm+measure; n++ {
		seen := map[int64]bool{}
		all := true
		for len(seen) < keys {
			k := z.Next(rng)
			if seen[k] {
				continue
			}
			seen[k] = true
			if stored[k] {
				continue
			}
			if el, ok := at[k]; ok {
				order.MoveToFront(el)
				continue
			}
			all = false
			at[k] = order.PushFront(k)
			if order.Len() > capacity {
				delete(at, order.Remove(order.Back()).(int64))
			}
		}
		if all && n >= warm {
			local++
		}
	}
	return float64(local) / float64(measure)
}

// k2ModelROTs is how many read-only transactions per 100,000 keys the
// model runs before it measures (its cache then turns over many times)
// and how many it measures.
const k2ModelWarm, k2ModelMeasure = 40_000, 20_000

// steadyAllLocal is lruModel's steady state for setting s with records
// keys and the setting's cache (5% unless it says otherwise) on
// k2-emulab6's 6 DCs with 5 keys per transaction.
func (s k2Setting) steadyAllLocal(records int) float64 {
	theta := s.zipf
	if theta == 0 {
		theta = workload.K2Zipf
	}
	frac := s.cacheFraction
	if frac == 0 {
		frac = 0.05
	}
	scale := max(1, records/100_000)
	return lruModel(records, theta, frac, s.f, 6, workload.K2TxnKeys, k2ModelWarm*scale, k2ModelMeasure)
}
