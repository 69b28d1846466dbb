package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/workload"
)

// workloadFlags are the workload knobs shared by sim, demo and bench.
type workloadFlags struct {
	records        int
	valueSize      int
	distribution   string
	target         float64
	zipf           float64
	txnKeys        int
	localKeys      bool
	remoteFraction float64
	noLoad         bool
}

// register adds the flags to cmd.
func (f *workloadFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.records, "records", 0, "number of keys (0: the workload's default; on a live cluster, as given to 'causeway load')")
	fl.StringVar(&f.distribution, "distribution", "", "key popularity: zipfian, zipf (over exactly the keys, K2's), uniform or latest (default: the workload's)")
	fl.IntVar(&f.valueSize, "value-size", 0, "size in bytes of each written value (0: the workload's default)")
	fl.Float64Var(&f.target, "target", 0, "offered operations per second over all clients (an open loop, as YCSB's -target): each of N clients has an operation due every N/target seconds, catches up when behind, and latencies count from when each was due (0: closed loop, as fast as replies come)")
	fl.Float64Var(&f.zipf, "zipf", 0, "zipf constant (theta) of the zipfian, zipf and latest distributions, >= 0.5, e.g. 1.2 (default: the workload's, 0.99)")
	fl.IntVar(&f.txnKeys, "txn-keys", 0, "distinct keys per read_txn / write_txn (default: the workload's, 4)")
	fl.BoolVar(&f.localKeys, "local-keys", false, "restrict each client to keys stored in its DC (C3's local mode), except --remote-fraction of operations")
	fl.Float64Var(&f.remoteFraction, "remote-fraction", 0, "with --local-keys, the share of operations whose keys are all stored outside the client's DC")
}

// apply returns w with the flags applied and validated; a changed zipf
// constant or transaction size shows in the workload's name.
func (f *workloadFlags) apply(w workload.Workload) (workload.Workload, error) {
	switch {
	case f.records < 0:
		return w, fmt.Errorf("--records %d: must be positive (0: the workload's default)", f.records)
	case f.valueSize < 0:
		return w, fmt.Errorf("--value-size %d: must be positive (0: the workload's default)", f.valueSize)
	case f.target < 0 || math.IsNaN(f.target) || math.IsInf(f.target, 0):
		return w, fmt.Errorf("--target %v: must be a positive rate in operations per second (0: closed loop)", f.target)
	}
	if f.records > 0 {
		w.RecordCount = f.records
	}
	if f.valueSize > 0 {
		w.ValueSize = f.valueSize
	}
	if f.distribution != "" {
		w.Distribution = f.distribution
	}
	if f.zipf != 0 {
		w.ZipfConstant = f.zipf
		w.Name += "@zipf" + strconv.FormatFloat(f.zipf, 'g', -1, 64)
	}
	if f.txnKeys != 0 {
		w.TxnKeys = f.txnKeys
		w.Name += fmt.Sprintf("@%dkeys", f.txnKeys)
	}
	if f.remoteFraction != 0 && !f.localKeys {
		return w, fmt.Errorf("--remote-fraction needs --local-keys")
	}
	// A workload that restricts keys itself (c3-local, c3-remote) keeps
	// its placement when the flags are left out.
	if f.localKeys {
		w.LocalKeys, w.RemoteFraction = true, f.remoteFraction
		w.Name += "@local"
		if f.remoteFraction > 0 {
			w.Name += "+remote" + strconv.FormatFloat(f.remoteFraction, 'g', -1, 64)
		}
	}
	return w, w.Validate()
}

// clientRate is each of clients sessions' share of --target (0: closed
// loop).
func (f *workloadFlags) clientRate(clients int) float64 {
	if f.target <= 0 || clients <= 0 {
		return 0
	}
	return f.target / float64(clients)
}
