package storage

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Mem is an in-memory Engine with simulated durability, used by the
// simulator. It is safe for concurrent use.
//
// Writes applied with sync=false are "unsynced": they are visible to readers
// at once, but Crash may discard them. An Apply with sync=true makes itself
// and everything applied before it durable. Crash keeps all durable state
// plus a random prefix of the unsynced batches (whole batches only, since
// every Apply is atomic), like a disk that wrote back some of its cache in
// order before power was lost.
//
// The zero value is not usable; call NewMem.
type Mem struct {
	mu     sync.Mutex
	closed bool
	// data maps a key to its versions, sorted by ascending Version. A key
	// with no versions is absent from the map. The Value slices of stored
	// versions are owned by Mem and never mutated, so version slices can be
	// copied shallowly.
	data map[string][]memVersion
	// keys is data's key set in ascending order; valid only when !keysDirty.
	keys      []string
	keysDirty bool
	// undo holds, for each unsynced batch in Apply order, what is needed to
	// roll it back.
	undo [][]memUndo
}

type memVersion struct {
	v     Version
	value []byte
}

// memUndo restores one key to its state before one write of a batch.
type memUndo struct {
	key  string
	prev []memVersion // nil when the key was absent
}

var _ Engine = (*Mem)(nil)

// NewMem returns an empty, open Mem.
func NewMem() *Mem {
	return &Mem{data: make(map[string][]memVersion)}
}

// Get implements Reader.
func (m *Mem) Get(key string) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Record{}, false, ErrClosed
	}
	vs := m.data[key]
	if len(vs) == 0 {
		return Record{}, false, nil
	}
	return vs[len(vs)-1].record(key), true, nil
}

// GetAt implements Reader.
func (m *Mem) GetAt(key string, v Version) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Record{}, false, ErrClosed
	}
	vs := m.data[key]
	// i is the number of versions <= v.
	i := sort.Search(len(vs), func(i int) bool { return vs[i].v > v })
	if i == 0 {
		return Record{}, false, nil
	}
	return vs[i-1].record(key), true, nil
}

// Scan implements Reader. The matching records are copied out under the lock
// and fn is called without it, so fn may use m.
func (m *Mem) Scan(prefix string, fn func(Record) error) error {
	recs, err := m.scan(prefix)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func (m *Mem) scan(prefix string) ([]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if m.keysDirty {
		m.keys = m.keys[:0]
		for k := range m.data {
			m.keys = append(m.keys, k)
		}
		slices.Sort(m.keys)
		m.keysDirty = false
	}
	var recs []Record
	i, _ := slices.BinarySearch(m.keys, prefix)
	for _, k := range m.keys[i:] {
		if !strings.HasPrefix(k, prefix) {
			break
		}
		vs := m.data[k]
		recs = append(recs, vs[len(vs)-1].record(k))
	}
	return recs, nil
}

// Apply implements Engine. The values of writes are copied, so callers may
// reuse their buffers once Apply returns. A batch with an unknown WriteKind
// is rejected as a whole.
func (m *Mem) Apply(writes []Write, sync bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for _, w := range writes {
		if w.Kind > DeleteVersion {
			return fmt.Errorf("storage: unknown write kind %d", w.Kind)
		}
	}
	var undo []memUndo
	if !sync {
		undo = make([]memUndo, 0, len(writes))
	}
	// Consecutive writes to one key (a put and the DeleteBelow after it)
	// look the key up and store it once: vs holds key cur's versions
	// between its writes, present says whether they are in data now (as
	// a lookup would), curExisted whether they were before its first write.
	var (
		cur                 string
		vs                  []memVersion
		open                bool
		present, curExisted bool
	)
	for _, w := range writes {
		if !open || w.Key != cur {
			if open {
				m.set(cur, vs, curExisted)
			}
			cur, open = w.Key, true
			vs, present = m.data[w.Key]
			curExisted = present
		}
		old, existed := vs, present
		if !sync {
			// Each write saves the key's previous state; rolling a batch
			// back in reverse order therefore restores the state before
			// its first write to the key.
			u := memUndo{key: w.Key}
			if existed {
				u.prev = slices.Clone(old)
			}
			undo = append(undo, u)
		}
		switch w.Kind {
		case Put:
			nv := memVersion{v: w.Version, value: append([]byte{}, w.Value...)}
			i, found := slices.BinarySearchFunc(vs, w.Version, func(e memVersion, v Version) int {
				switch {
				case e.v < v:
					return -1
				case e.v > v:
					return 1
				}
				return 0
			})
			if found {
				vs[i] = nv
			} else {
				vs = slices.Insert(vs, i, nv)
			}
		case DeleteBelow:
			i := sort.Search(len(vs), func(i int) bool { return vs[i].v >= w.Version })
			// Shift rather than reslice so the dropped values can be
			// garbage-collected.
			n := copy(vs, vs[i:])
			clear(vs[n:])
			vs = vs[:n]
		case Delete:
			vs = nil
		case DeleteVersion:
			vs = slices.DeleteFunc(vs, func(e memVersion) bool { return e.v == w.Version })
		}
		present = len(vs) > 0
	}
	if open {
		m.set(cur, vs, curExisted)
	}
	if sync {
		// Everything before this batch, and the batch itself, is durable.
		clear(m.undo)
		m.undo = m.undo[:0]
	} else {
		m.undo = append(m.undo, undo)
	}
	return nil
}

// set stores vs as key's versions, keeping keysDirty up to date.
func (m *Mem) set(key string, vs []memVersion, existed bool) {
	if len(vs) == 0 {
		delete(m.data, key)
		if existed {
			m.keysDirty = true
		}
		return
	}
	m.data[key] = vs
	if !existed {
		m.keysDirty = true
	}
}

// Close implements Engine. A closed Mem keeps its contents (unsynced writes
// included); every method but Crash then returns ErrClosed.
func (m *Mem) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.closed = true
	return nil
}

// Crash simulates a power loss followed by a restart. It keeps every synced
// write and a prefix of the unsynced batches whose length is chosen
// uniformly by rng (from none to all of them), discards the rest, and leaves
// m open, even if it had been closed, so that the restarted node can reuse
// it. All writes left in m are durable afterwards.
func (m *Mem) Crash(rng *rand.Rand) {
	m.mu.Lock()
	defer m.mu.Unlock()
	keep := rng.IntN(len(m.undo) + 1)
	for b := len(m.undo) - 1; b >= keep; b-- {
		batch := m.undo[b]
		for i := len(batch) - 1; i >= 0; i-- {
			u := batch[i]
			_, existed := m.data[u.key]
			m.set(u.key, u.prev, existed)
		}
	}
	clear(m.undo)
	m.undo = m.undo[:0]
	m.closed = false
}

// Unsynced returns the number of batches applied since the last synced
// Apply, i.e. those a Crash may lose.
func (m *Mem) Unsynced() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.undo)
}

func (v memVersion) record(key string) Record {
	return Record{Key: key, Version: v.v, Value: append([]byte{}, v.value...)}
}
