package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// loadSpec is a short ycsb-95-5 run of proto on local3.
func loadSpec(t *testing.T, proto string) SimSpec {
	t.Helper()
	p, err := protocol.Lookup(proto)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("ycsb-95-5")
	if err != nil {
		t.Fatal(err)
	}
	return SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: 3, Duration: time.Second,
		Clients: 6, ServiceTime: 100 * time.Microsecond, OpTimeout: 2 * time.Second}
}

// TestLoadedRecords checks the simulator's load phase: with it, nearly
// every get of ycsb-95-5 returns data (a loaded value or a written one),
// the loaded values travel on the wire, the history records them as null
// and the run passes the checker; without it, most gets find nothing.
func TestLoadedRecords(t *testing.T) {
	for _, proto := range []string{"cops", "karma"} {
		t.Run(proto, func(t *testing.T) {
			spec := loadSpec(t, proto)
			var hist bytes.Buffer
			spec.History = &hist
			res, err := RunSim(spec)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Check.OK {
				t.Fatalf("checker: %+v", res.Check.Violations)
			}
			if res.GetDataFraction == nil || *res.GetDataFraction < 0.95 {
				t.Fatalf("get_data_fraction = %v, want >= 0.95", res.GetDataFraction)
			}
			// Reads of loaded values are recorded as the initial state.
			if strings.Contains(hist.String(), protocol.LoadedPrefix) {
				t.Errorf("the history names a loaded value")
			}
			h, err := history.Parse(bytes.NewReader(hist.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			nulls := 0
			for _, op := range h.Ops {
				if op.Op == "get" && op.Value == nil && (op.OK == nil || *op.OK) {
					nulls++
				}
			}
			if nulls == 0 {
				t.Errorf("no get recorded the initial state (null)")
			}

			spec.NoLoad, spec.History = true, nil
			cold, err := RunSim(spec)
			if err != nil {
				t.Fatal(err)
			}
			if !cold.Check.OK {
				t.Fatalf("checker without load: %+v", cold.Check.Violations)
			}
			if cold.GetDataFraction == nil || *cold.GetDataFraction > 0.5 {
				t.Errorf("without load, get_data_fraction = %v, want most gets empty", cold.GetDataFraction)
			}
			// Loaded values cross the wide area in replies (karma reads
			// remote rings; cops replicates writes of the same size, and
			// its gets are local, so only karma must grow).
			if proto == "karma" && *res.WANBytes <= *cold.WANBytes {
				t.Errorf("wan_bytes %d with load, %d without: loaded values are not on the wire", *res.WANBytes, *cold.WANBytes)
			}
			t.Logf("get_data_fraction %v (without load %v), wan_bytes %d (%d)",
				*res.GetDataFraction, *cold.GetDataFraction, *res.WANBytes, *cold.WANBytes)
		})
	}
}

// TestHistoryOpLoaded checks that a read of a loaded value is recorded as
// null, in a get and in a read_txn, and a written value by its ID.
func TestHistoryOpLoaded(t *testing.T) {
	w, err := workload.Lookup("ycsb-a")
	if err != nil {
		t.Fatal(err)
	}
	d := w.Dataset()
	loaded := d.Value(workload.Key(7))
	written := workload.MakeValue("c1-3", 20)
	op := HistoryOp("c1", "a", protocol.Request{Op: protocol.OpGet, Key: workload.Key(7)},
		protocol.Reply{Op: protocol.OpGet, Value: loaded}, 0, time.Millisecond)
	if op.Value != nil {
		t.Errorf("get of a loaded value recorded as %q", *op.Value)
	}
	op = HistoryOp("c1", "a", protocol.Request{Op: protocol.OpReadTxn, Keys: []string{"k1", "k2"}},
		protocol.Reply{Op: protocol.OpReadTxn, Reads: []protocol.KV{{Key: "k1", Value: loaded}, {Key: "k2", Value: written}}}, 0, time.Millisecond)
	if op.Reads["k1"] != nil || op.Reads["k2"] == nil || *op.Reads["k2"] != "c1-3" {
		t.Errorf("read_txn recorded as %v", op.Reads)
	}
	op = HistoryOp("c1", "a", protocol.Request{Op: protocol.OpGet, Key: "k1"},
		protocol.Reply{Op: protocol.OpGet, DC: "b"}, 0, time.Millisecond)
	if op.DC != "b" {
		t.Errorf("a reply from a session that migrated to b recorded in DC %q", op.DC)
	}
}

// TestYCSBDAndF checks the two YCSB workloads whose operations are not
// plain gets and puts, run through the simulator: F's read-modify-write is
// recorded as a get then a put of the same key by the same session; D
// inserts keys beyond the loaded records and reads mostly the latest keys,
// which hold data (loaded or inserted).
func TestYCSBDAndF(t *testing.T) {
	for _, name := range []string{"ycsb-f", "ycsb-d"} {
		t.Run(name, func(t *testing.T) {
			spec := loadSpec(t, "cops")
			w, err := workload.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			spec.Workload = w
			var hist bytes.Buffer
			spec.History = &hist
			res, err := RunSim(spec)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Check.OK || res.GetDataFraction == nil || *res.GetDataFraction < 0.95 {
				t.Fatalf("check ok %v, get_data_fraction %v", res.Check.OK, res.GetDataFraction)
			}
			h, err := history.Parse(bytes.NewReader(hist.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			last := map[string]history.Op{}
			puts, inserts := 0, 0
			for _, op := range h.Ops {
				if op.Op == "put" {
					puts++
					prev, ok := last[op.Session]
					if name == "ycsb-f" && (!ok || prev.Op != "get" || prev.Key != op.Key) {
						t.Fatalf("session %s: put %s not right after a get of it (previous %+v)", op.Session, op.Key, prev)
					}
					if op.Key >= workload.Key(int64(w.RecordCount)) {
						inserts++
					}
				}
				last[op.Session] = op
			}
			if puts == 0 {
				t.Fatal("no puts")
			}
			if name == "ycsb-d" && inserts != puts {
				t.Errorf("ycsb-d: %d of %d puts insert beyond the loaded records", inserts, puts)
			}
			if name == "ycsb-f" && inserts != 0 {
				t.Errorf("ycsb-f: %d puts beyond the loaded records", inserts)
			}
		})
	}
}
