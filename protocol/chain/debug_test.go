package chain_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/chainpb"
	"github.com/causeway/causeway/workload"
)

func TestDebugSeed(t *testing.T) {
	name, topo, key := os.Getenv("DBG_PROTO"), os.Getenv("DBG_TOPO"), os.Getenv("DBG_KEY")
	if name == "" {
		t.Skip()
	}
	var seed uint64
	fmt.Sscan(os.Getenv("DBG_SEED"), &seed)
	chain.SetDebugHook(func(now time.Duration, id protocol.NodeID, m protocol.Message) {
		s := sim.FormatMessage(m.Body)
		switch m.Body.(type) {
		case *pb.View, *pb.Synced, *pb.Suspect, *pb.Ping, *pb.Join, *pb.JoinDone:
			fmt.Println(now, id, m.From, s)
			return
		}
		if strings.Contains(s, `"`+key+`"`) {
			fmt.Println(now, id, m.From, s)
		}
	})
	defer chain.SetDebugHook(nil)
	p, _ := protocol.Lookup(name)
	tp, _ := topology.Lookup(topo)
	w, _ := workload.Lookup("ycsb-80-20")
	w.RecordCount = 30
	w.ValueSize = 16
	f, _ := os.Create("/tmp/dbg_hist.jsonl")
	defer f.Close()
	spec := bench.SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: seed, Duration: 3 * time.Second,
		Clients: 4, ServiceTime: 200 * time.Microsecond, Jitter: 10 * time.Millisecond, OpTimeout: 2 * time.Second, History: f}
	spec.Faults = faults.Random(sim.NewRand(seed, "fault-schedule"), tp, p.Nodes(tp), spec.Duration)
	res, err := bench.RunSim(spec)
	fmt.Println(err, res.Check.FirstViolation())
}
