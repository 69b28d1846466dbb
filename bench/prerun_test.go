package bench

import (
	"bytes"
	"testing"
	"time"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/workload"
)

// preRunHistory builds the history of a live run from (session, request,
// reply) triples as RunLive does, with pre-run values recorded as writes
// (asWrites) or as null.
func preRunHistory(t *testing.T, asWrites bool, ops []struct {
	s   string
	req protocol.Request
	rep protocol.Reply
}) *history.History {
	t.Helper()
	const run = "r1-"
	pre := newPreRun(run)
	var buf bytes.Buffer
	hw := history.NewWriter(&buf)
	for i, o := range ops {
		rep := o.rep
		if asWrites {
			rep = pre.note(o.req, rep)
		}
		at := time.Duration(i) * time.Millisecond
		if err := hw.Write(HistoryOp(o.s, "a", o.req, rep, at, at+time.Microsecond)); err != nil {
			t.Fatal(err)
		}
	}
	for _, op := range pre.writes() {
		if err := hw.Write(op); err != nil {
			t.Fatal(err)
		}
	}
	if err := hw.Flush(); err != nil {
		t.Fatal(err)
	}
	h, err := history.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestPreRunValues checks how a live history records values from before
// the run. A loaded value whose version beats this run's write w (another
// coordinator's Lamport clock) may be read after w is in the reader's
// causal past: recorded as null that is a stale read of the initial
// state, recorded as a pre-run write concurrent with the run it passes;
// and reads that order w and the loaded value both ways are still an
// order disagreement.
func TestPreRunValues(t *testing.T) {
	const k, k2 = "user00000001", "user00000002"
	loaded := (&protocol.Dataset{Records: 10, KeyPrefix: "user", KeyDigits: 8, ValueSize: 30}).Value(k)
	w := workload.MakeValue("r1-c0-1", 20)
	x := workload.MakeValue("r1-c0-2", 20)
	earlier := workload.MakeValue("r0-c3-9", 20) // an earlier run's write of k2
	get := func(key string) protocol.Request { return protocol.Request{Op: protocol.OpGet, Key: key} }
	put := func(key string, v []byte) protocol.Request {
		return protocol.Request{Op: protocol.OpPut, Key: key, Value: v}
	}
	got := func(v []byte) protocol.Reply { return protocol.Reply{Op: protocol.OpGet, Value: v} }
	type step = struct {
		s   string
		req protocol.Request
		rep protocol.Reply
	}
	lostWrite := []step{
		{"c1", get(k2), got(earlier)},
		{"c0", put(k, w), protocol.Reply{Op: protocol.OpPut}},
		{"c0", put(k2, x), protocol.Reply{Op: protocol.OpPut}},
		{"c1", get(k2), got(x)},
		{"c1", get(k), got(loaded)}, // the loaded version won over w
	}
	if r := check.Check(preRunHistory(t, false, lostWrite), check.Options{}); r.OK {
		t.Errorf("recorded as null, the loaded value read after w passes: the test cannot fail")
	}
	if r := check.Check(preRunHistory(t, true, lostWrite), check.Options{}); !r.OK {
		t.Errorf("recorded as a pre-run write: %+v", r.Violations)
	}
	bothWays := []step{
		{"c0", put(k, w), protocol.Reply{Op: protocol.OpPut}},
		{"c1", get(k), got(loaded)},
		{"c1", get(k), got(w)},
		{"c2", get(k), got(w)},
		{"c2", get(k), got(loaded)},
	}
	if r := check.Check(preRunHistory(t, true, bothWays), check.Options{}); r.OK {
		t.Errorf("w and the loaded value read in both orders passes")
	}
}

// TestPreRunDeletes: tombstones a live run reads that it did not write
// (causeway del before the run) become pre-run dels, named by their IDs,
// so a read of one passes and the reads still order it against the run's
// writes; this run's own deletes are recorded as dels of their sessions.
func TestPreRunDeletes(t *testing.T) {
	const k = "user00000001"
	tomb := protocol.Tombstone("9f2c.1")
	w := workload.MakeValue("r1-c0-1", 20)
	get := protocol.Request{Op: protocol.OpGet, Key: k}
	got := func(v []byte) protocol.Reply { return protocol.Reply{Op: protocol.OpGet, Value: v} }
	type step = struct {
		s   string
		req protocol.Request
		rep protocol.Reply
	}
	steps := []step{
		{"c1", get, got(tomb)},
		{"c0", protocol.Request{Op: protocol.OpPut, Key: k, Value: w}, protocol.Reply{Op: protocol.OpPut}},
		{"c0", protocol.Request{Op: protocol.OpPut, Key: k, Value: protocol.Tombstone("r1-c0-2")}, protocol.Reply{Op: protocol.OpPut}},
		{"c1", get, got(protocol.Tombstone("r1-c0-2"))},
	}
	h := preRunHistory(t, true, steps)
	if r := check.Check(h, check.Options{}); !r.OK {
		t.Fatalf("violations: %+v", r.Violations)
	}
	var dels []string
	for _, op := range h.Ops {
		if op.Op == history.Del {
			dels = append(dels, op.Session+":"+*op.Value)
		}
	}
	if len(dels) != 2 || dels[0] != "c0:r1-c0-2" || dels[1] != PreRunSession+":9f2c.1" {
		t.Errorf("dels %v, want c0's r1-c0-2 and the pre-run 9f2c.1", dels)
	}
	if v := h.Ops[0].Value; v == nil || *v != "9f2c.1" {
		t.Errorf("the read of the pre-run tombstone recorded %v", v)
	}
	// c1 read the pre-run delete, then this run's; c2 reads them in the
	// other order: no one order of the two deletes explains both.
	steps = append(steps, step{"c2", get, got(protocol.Tombstone("r1-c0-2"))}, step{"c2", get, got(tomb)})
	if r := check.Check(preRunHistory(t, true, steps), check.Options{}); r.OK {
		t.Errorf("the two deletes read in both orders passes")
	}
}
