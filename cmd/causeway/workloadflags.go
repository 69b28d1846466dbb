package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/workload"
)

// workloadFlags are the workload knobs shared by sim, demo, bench and load.
type workloadFlags struct {
	zipf           float64
	txnKeys        int
	localKeys      bool
	remoteFraction float64
	noLoad         bool
}

// register adds the flags to cmd.
func (f *workloadFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.Float64Var(&f.zipf, "zipf", 0, "zipf constant (theta) of the zipfian and latest distributions, >= 0.5, e.g. 1.2 (default: the workload's, 0.99)")
	fl.IntVar(&f.txnKeys, "txn-keys", 0, "distinct keys per read_txn / write_txn (default: the workload's, 4)")
	fl.BoolVar(&f.localKeys, "local-keys", false, "restrict each client to keys stored in its DC (C3's local mode), except --remote-fraction of operations")
	fl.Float64Var(&f.remoteFraction, "remote-fraction", 0, "with --local-keys, the share of operations whose keys are all stored outside the client's DC")
}

// apply returns w with the flags applied and validated; a changed zipf
// constant or transaction size shows in the workload's name.
func (f *workloadFlags) apply(w workload.Workload) (workload.Workload, error) {
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
	w.LocalKeys, w.RemoteFraction = f.localKeys, f.remoteFraction
	if f.localKeys {
		w.Name += "@local"
		if f.remoteFraction > 0 {
			w.Name += "+remote" + strconv.FormatFloat(f.remoteFraction, 'g', -1, 64)
		}
	}
	return w, w.Validate()
}
