package workload

import "fmt"

// ChainReaction's evaluation (chainreaction.txt §7): YCSB's core
// workloads as go-ycsb defines them on 1M records of 1 KB (ten 100-byte
// fields), the single-object write/read mixes of Fig. 2b, 5b and 10, and
// §7.3's get-transaction mixes.
const (
	// CRRecords is §7.1's key count (1,000,000 objects).
	CRRecords = 1_000_000
	// CRValueSize is §7.1's object size (1 KB: go-ycsb's 10 fields of
	// 100 bytes).
	CRValueSize = 1024
	// CRTxnRecords is §7.3's key count (10,000 objects).
	CRTxnRecords = 10_000
	// CRTxnKeysMin and CRTxnKeysMax bound the keys of a §7.3
	// get-transaction ("2 to 5 keys (chosen randomly)").
	CRTxnKeysMin, CRTxnKeysMax = 2, 5
)

// CRSingleObjectMixes are the write/read percentages of the single-object
// workloads (Fig. 2b).
var CRSingleObjectMixes = [][2]int{{50, 50}, {25, 75}, {15, 85}, {10, 90}, {5, 95}, {0, 100}}

// CRTxnMixes are §7.3's write/read/get-transaction percentages.
var CRTxnMixes = [][3]int{{10, 85, 5}, {5, 90, 5}, {0, 95, 5}}

// crYCSB is go-ycsb's workload name (a, b, c, d or f) on §7.1's records.
func crYCSB(name string) Workload {
	w := presets["ycsb-"+name]
	w.Name = "cr-ycsb-" + name
	w.Summary = fmt.Sprintf("%s; chainreaction.txt §7.1's 1M × 1 KB records", w.Summary)
	w.RecordCount, w.ValueSize = CRRecords, CRValueSize
	return w
}

// CRSingleObjectName names the single-object workload of write% w.
func CRSingleObjectName(w int) string { return fmt.Sprintf("cr-1obj-%d-%d", w, 100-w) }

// crSingleObject is a single-object mix: every operation on one 1 KB key.
func crSingleObject(write int) Workload {
	w := preset(CRSingleObjectName(write),
		fmt.Sprintf("chainreaction.txt Fig. 2b single object: %d%% puts / %d%% gets, all on one 1 KB key", write, 100-write),
		float64(100-write)/100, float64(write)/100, 0, 0, DistUniform)
	w.RecordCount, w.ValueSize = 1, CRValueSize
	w.TxnKeys = 1 // the only key (should a variant add transactions)
	return w
}

// CRTxnName names the get-transaction mix of write% w, read% r and
// get-transaction% t.
func CRTxnName(w, r, t int) string { return fmt.Sprintf("cr-txn-%d-%d-%d", w, r, t) }

// crTxn is a §7.3 mix: puts, gets and get-transactions of 2–5 keys over
// 10,000 1 KB objects, zipfian as YCSB's default request distribution.
func crTxn(write, read, txn int) Workload {
	w := preset(CRTxnName(write, read, txn),
		fmt.Sprintf("chainreaction.txt §7.3: %d%% puts / %d%% gets / %d%% get-transactions of 2–5 keys, 10k × 1 KB objects, zipfian", write, read, txn),
		float64(read)/100, float64(write)/100, 0, 0, DistZipfian)
	w.RecordCount, w.ValueSize = CRTxnRecords, CRValueSize
	w.ReadTxnProportion = float64(txn) / 100
	w.TxnKeys, w.TxnKeysMax = CRTxnKeysMin, CRTxnKeysMax
	return w
}

func init() {
	for _, n := range []string{"a", "b", "c", "d", "f"} {
		w := crYCSB(n)
		presets[w.Name] = w
	}
	for _, m := range CRSingleObjectMixes {
		w := crSingleObject(m[0])
		presets[w.Name] = w
	}
	for _, m := range CRTxnMixes {
		w := crTxn(m[0], m[1], m[2])
		presets[w.Name] = w
	}
}
