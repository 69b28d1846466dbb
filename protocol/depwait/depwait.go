package depwait

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
)

type dependency[D any] struct {
	dep     D
	waiting []string // write names
	retry   protocol.Retry
}

// Table is the set of waiting writes and the dependencies they wait for.
// The zero value is not usable; call New.
type Table[D any] struct {
	deps    map[string]*dependency[D]
	missing map[string]map[string]bool // write -> dependencies still missing
}

// New returns an empty Table.
func New[D any]() *Table[D] {
	return &Table[D]{deps: map[string]*dependency[D]{}, missing: map[string]map[string]bool{}}
}

// Wait records that write needs dependency depName (dep) and reports
// whether nobody was waiting for it yet: the caller then sends the first
// check (sent at now).
func (t *Table[D]) Wait(write, depName string, dep D, now time.Duration) (first bool) {
	m := t.missing[write]
	if m == nil {
		m = map[string]bool{}
		t.missing[write] = m
	}
	if m[depName] {
		return false
	}
	m[depName] = true
	d := t.deps[depName]
	if d == nil {
		d = &dependency[D]{dep: dep, retry: protocol.SentAt(now)}
		t.deps[depName] = d
		first = true
	}
	d.waiting = append(d.waiting, write)
	return first
}

// Waiting reports whether write is waiting for a dependency.
func (t *Table[D]) Waiting(write string) bool { return t.missing[write] != nil }

// Satisfied records that dependency depName is met and returns, in the
// order they started waiting, the writes that now miss nothing.
func (t *Table[D]) Satisfied(depName string) (ready []string) {
	d := t.deps[depName]
	if d == nil {
		return nil // a duplicate answer
	}
	delete(t.deps, depName)
	for _, w := range d.waiting {
		m := t.missing[w]
		if m == nil || !m[depName] {
			continue
		}
		delete(m, depName)
		if len(m) == 0 {
			delete(t.missing, w)
			ready = append(ready, w)
		}
	}
	return ready
}

// Resend calls check for every dependency whose retransmission is due at
// now (after first, doubling up to limit), in name order.
func (t *Table[D]) Resend(now, first, limit time.Duration, check func(dep D)) {
	for _, name := range slices.Sorted(maps.Keys(t.deps)) {
		if d := t.deps[name]; d.retry.Due(now, first, limit) {
			check(d.dep)
		}
	}
}

// Len is the number of dependencies being waited for.
func (t *Table[D]) Len() int { return len(t.deps) }
