package bench

import (
	"time"

	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/workload"
)

// HistoryOp turns a completed operation into its history line. Values are
// recorded by their unique ID (workload.ValueID), not their padding; a read
// of a loaded value (protocol.IsLoaded) is recorded as the key's initial
// state, null, as the history package documents. A put of a tombstone
// (protocol.Tombstone) is recorded as a del, and a read of one by the
// tombstone's ID. A reply that names the DC its session migrated to
// (Reply.DC) is recorded with that DC instead of dc.
func HistoryOp(session, dc string, req protocol.Request, rep protocol.Reply, start, end time.Duration) history.Op {
	if rep.DC != "" {
		dc = rep.DC
	}
	op := history.Op{Session: session, DC: dc, Op: req.Op.String(),
		StartMs: durMs(start), EndMs: durMs(end)}
	if rep.Err != protocol.OK {
		f := false
		op.OK = &f
	}
	idOf := func(v []byte) *string {
		if v == nil || protocol.IsLoaded(v) {
			return nil
		}
		if id, ok := protocol.TombstoneID(v); ok {
			return &id
		}
		id := workload.ValueID(v)
		return &id
	}
	switch req.Op {
	case protocol.OpGet:
		op.Key = req.Key
		if rep.Err == protocol.OK {
			op.Value = idOf(rep.Value)
		}
	case protocol.OpPut:
		op.Key = req.Key
		op.Value = idOf(req.Value)
		if protocol.IsTombstone(req.Value) {
			op.Op = history.Del
		}
	case protocol.OpReadTxn:
		op.Reads = map[string]*string{}
		for _, kv := range rep.Reads {
			op.Reads[kv.Key] = idOf(kv.Value)
		}
	case protocol.OpWriteTxn:
		op.Writes = map[string]string{}
		for _, kv := range req.Writes {
			op.Writes[kv.Key] = workload.ValueID(kv.Value)
		}
	}
	return op
}

func durMs(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
