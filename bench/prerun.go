package bench

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/workload"
)

// PreRunSession is the session of the history lines a live run adds for
// the values it read that were written before it (preRun).
const PreRunSession = "pre-run"

// preRun collects the values a live run read that it did not write: loaded
// values (causeway load) and values of earlier runs on the same cluster.
//
// They cannot be recorded as the initial state (null), as the simulator's
// loaded values are: in the simulator a loaded value has version 0 and
// every write wins over it, but on a live cluster it is a real write whose
// version (a Lamport clock of another coordinator, say) may win over a
// write of this run, and a later read of it would look like a stale read
// of the initial state. So each becomes a write of its own in the history,
// appended at the end as a failed put of session PreRunSession: a failed
// write that some read returned counts as a write that happened, and it
// has no session order after it (package check), so these writes are
// concurrent with every operation of the run and with each other, as they
// are in fact. A read of one after a write of this run to the same key is
// fine (the pre-run write won); reads that order them both ways are an
// order disagreement.
type preRun struct {
	run string
	mu  sync.Mutex
	ids map[string]map[string]bool // key -> value IDs read
	// dels are the IDs of ids that are tombstones: recorded as dels.
	dels map[string]bool
}

func newPreRun(run string) *preRun {
	return &preRun{run: run, ids: map[string]map[string]bool{}, dels: map[string]bool{}}
}

// loadedID names the loaded value of key in a live history.
func loadedID(key string) string { return "loaded-" + key }

// note records the pre-run values rep read and returns rep with each
// loaded value replaced by its loadedID, so that HistoryOp records it by
// that name rather than as null.
func (p *preRun) note(req protocol.Request, rep protocol.Reply) protocol.Reply {
	if rep.Err != protocol.OK {
		return rep
	}
	switch req.Op {
	case protocol.OpGet:
		rep.Value = p.see(req.Key, rep.Value)
	case protocol.OpReadTxn:
		reads := make([]protocol.KV, len(rep.Reads))
		for i, kv := range rep.Reads {
			reads[i] = protocol.KV{Key: kv.Key, Value: p.see(kv.Key, kv.Value)}
		}
		rep.Reads = reads
	}
	return rep
}

// see records value of key if it is from before the run and returns the
// value to record.
func (p *preRun) see(key string, value []byte) []byte {
	if value == nil {
		return nil
	}
	var id string
	if tid, ok := protocol.TombstoneID(value); ok {
		// A delete made before the run (causeway del), or one of the run's.
		if id = tid; strings.HasPrefix(id, p.run) {
			return value
		}
	} else if protocol.IsLoaded(value) {
		id = loadedID(key)
		value = []byte(id)
	} else if id = workload.ValueID(value); strings.HasPrefix(id, p.run) {
		return value
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids[key] == nil {
		p.ids[key] = map[string]bool{}
	}
	p.ids[key][id] = true
	if protocol.IsTombstone(value) {
		p.dels[id] = true
	}
	return value
}

// writes returns the history lines of the pre-run values read, sorted by
// key and value.
func (p *preRun) writes() []history.Op {
	p.mu.Lock()
	defer p.mu.Unlock()
	failed := false
	var out []history.Op
	for _, k := range slices.Sorted(maps.Keys(p.ids)) {
		for _, id := range slices.Sorted(maps.Keys(p.ids[k])) {
			kind := history.Put
			if p.dels[id] {
				kind = history.Del
			}
			out = append(out, history.Op{Session: PreRunSession, DC: "", Op: kind, Key: k, Value: &id, OK: &failed})
		}
	}
	return out
}
