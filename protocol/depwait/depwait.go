package depwait

import (
	"slices"
	"strings"
	"time"

	"github.com/causeway/causeway/protocol"
)

type dependency[K comparable, D any] struct {
	dep     D
	waiting []*waiter[K, D] // in the order they started waiting
	retry   protocol.Retry
}

// waiter is a waiting write and the dependencies it still misses, by
// pointer: Satisfied walks every waiter of a dependency, and pointer keys
// spare that loop hashing and comparing the names (long strings in
// karma's MMs, where a backlog makes the lists long).
type waiter[K comparable, D any] struct {
	name    K
	missing map[*dependency[K, D]]struct{}
}

// Keyed is the set of waiting writes and the dependencies they wait for,
// writes and dependencies named by values of K (a struct key saves the
// hot path building and hashing "key@version" strings). The zero value is
// not usable; call NewKeyed.
type Keyed[K comparable, D any] struct {
	deps   map[K]*dependency[K, D]
	writes map[K]*waiter[K, D] // writes still missing a dependency
	// name spells a dependency's name; Resend goes in the order of names.
	name func(K) string
}

// Table is a Keyed whose names are strings.
type Table[D any] = Keyed[string, D]

// New returns an empty Table.
func New[D any]() *Table[D] {
	return NewKeyed[string, D](func(s string) string { return s })
}

// NewKeyed returns an empty Keyed whose Resend goes in the order of the
// dependencies' names as spelled by name.
func NewKeyed[K comparable, D any](name func(K) string) *Keyed[K, D] {
	return &Keyed[K, D]{deps: map[K]*dependency[K, D]{}, writes: map[K]*waiter[K, D]{}, name: name}
}

// Wait records that write needs dependency depName (dep) and reports
// whether nobody was waiting for it yet: the caller then sends the first
// check (sent at now).
func (t *Keyed[K, D]) Wait(write, depName K, dep D, now time.Duration) (first bool) {
	d := t.deps[depName]
	if d == nil {
		d = &dependency[K, D]{dep: dep, retry: protocol.SentAt(now)}
		t.deps[depName] = d
		first = true
	}
	w := t.writes[write]
	if w == nil {
		w = &waiter[K, D]{name: write, missing: map[*dependency[K, D]]struct{}{}}
		t.writes[write] = w
	}
	if _, ok := w.missing[d]; ok {
		return false
	}
	w.missing[d] = struct{}{}
	d.waiting = append(d.waiting, w)
	return first
}

// Waiting reports whether write is waiting for a dependency.
func (t *Keyed[K, D]) Waiting(write K) bool { return t.writes[write] != nil }

// Awaited reports whether some write waits for dependency depName.
func (t *Keyed[K, D]) Awaited(depName K) bool { return t.deps[depName] != nil }

// Satisfied records that dependency depName is met and returns, in the
// order they started waiting, the writes that now miss nothing.
func (t *Keyed[K, D]) Satisfied(depName K) (ready []K) {
	d := t.deps[depName]
	if d == nil {
		return nil // a duplicate answer
	}
	delete(t.deps, depName)
	for _, w := range d.waiting {
		delete(w.missing, d)
		if len(w.missing) == 0 {
			delete(t.writes, w.name)
			ready = append(ready, w.name)
		}
	}
	return ready
}

// Resend calls check for every dependency whose retransmission is due at
// now (after first, doubling up to limit), in name order.
func (t *Keyed[K, D]) Resend(now, first, limit time.Duration, check func(dep D)) {
	type named struct {
		name string
		d    *dependency[K, D]
	}
	// Only the due ones are named and sorted: Due is asked of each
	// dependency once, as before, and the checks go in the same order.
	var due []named
	for k, d := range t.deps {
		if d.retry.Due(now, first, limit) {
			due = append(due, named{t.name(k), d})
		}
	}
	slices.SortFunc(due, func(a, b named) int { return strings.Compare(a.name, b.name) })
	for _, n := range due {
		check(n.d.dep)
	}
}

// Len is the number of dependencies being waited for.
func (t *Keyed[K, D]) Len() int { return len(t.deps) }
