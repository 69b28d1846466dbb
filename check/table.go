package check

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/causeway/causeway/history"
)

// Operation kinds in a table, and the bit that marks a failed operation.
const (
	opGet uint8 = iota
	opPut
	opDel
	opReadTxn
	opWriteTxn
	opFailed uint8 = 0x80
)

// txKV is one key of a transaction with the value it read or wrote (-1:
// null).
type txKV struct{ key, val int32 }

// table is a history in columns: what the checker needs of each
// operation — session, DC, kind, key and value — with sessions, DCs, keys
// and values interned as int32s, so that a history costs a few dozen
// bytes per operation instead of a history.Op with its strings and maps.
// The times are not kept: no rule uses them. CheckReader fills it while
// it reads, so the history itself is never held in memory.
type table struct {
	n    int
	sess []int32
	dc   []int32
	kind []uint8
	// Single-key operations: key and value IDs (value -1: null).
	// Transactions: tx[key[v]:val[v]], sorted by key name.
	key, val []int32
	tx       []txKV
	// lines holds each operation's 1-based line when some line was
	// skipped (nil: operation i is on line i+1).
	lines []int32

	sessNames, dcNames, keyNames []string
	sessID, dcID, keyID          map[string]int32
	values                       *valueSet
	// lastWrite is, per key, the value the latest write to it (in the
	// history's order) wrote: what a read of the key usually returns,
	// recognised without a lookup in values (nor, when it is short, a
	// look at values' bytes, far away in a long history).
	lastWrite []lastValue
	dels      map[string]bool // values (tombstone IDs) written by dels
	// firstWrite, when not nil, is the line of each value's first write
	// (0: none yet), to refuse a value written twice as history.Parse
	// does (scanTable reads without the parser's check).
	firstWrite []int32
}

func newTable() *table {
	return &table{sessID: map[string]int32{}, dcID: map[string]int32{}, keyID: map[string]int32{},
		values: newValueSet(), dels: map[string]bool{}}
}

// tableOf lays out a parsed history.
func tableOf(h *history.History) *table {
	t := newTable()
	t.grow(len(h.Ops))
	for i := range h.Ops {
		_ = t.add(h.Line(i), &h.Ops[i]) // firstWrite is nil: no error
	}
	return t
}

// scanTable reads a history (history.Scan) straight into a table.
func scanTable(r io.Reader) (*table, error) {
	t := newTable()
	t.firstWrite = []int32{}
	err := history.ScanValuesUnchecked(r, func(line int, op *history.Op) error {
		return t.add(line, op)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (t *table) grow(n int) {
	t.sess = slices.Grow(t.sess, n)
	t.dc = slices.Grow(t.dc, n)
	t.kind = slices.Grow(t.kind, n)
	t.key = slices.Grow(t.key, n)
	t.val = slices.Grow(t.val, n)
}

func intern(m map[string]int32, names *[]string, s string) int32 {
	id, ok := m[s]
	if !ok {
		id = int32(len(*names))
		m[s] = id
		*names = append(*names, s)
	}
	return id
}

// lastValue is a value's ID (-1: none) and, when it has at most
// len(text) bytes, its text.
type lastValue struct {
	id   int32
	n    uint8 // bytes in text; 0xff: longer than text
	text [11]byte
}

// is reports whether the value is s (t holds the values).
func (l *lastValue) is(t *table, s string) bool {
	if l.id < 0 {
		return false
	}
	if l.n != 0xff {
		return int(l.n) == len(s) && string(l.text[:l.n]) == s
	}
	return string(t.values.bytes(l.id)) == s
}

func (t *table) keyOf(s string) int32 {
	id := intern(t.keyID, &t.keyNames, s)
	if int(id) == len(t.lastWrite) {
		t.lastWrite = append(t.lastWrite, lastValue{id: -1})
	}
	return id
}

// valOf interns the value *p (nil: null, -1) that an operation read
// from or wrote to key.
func (t *table) valOf(key int32, p *string, write bool) int32 {
	if p == nil {
		return -1
	}
	l := &t.lastWrite[key]
	if write {
		l.id = t.values.intern(*p)
		l.n = 0xff
		if len(*p) <= len(l.text) {
			l.n = uint8(copy(l.text[:], *p))
		}
		return l.id
	}
	if l.is(t, *p) {
		return l.id
	}
	return t.values.intern(*p)
}

// claim records that line writes value ID id; with firstWrite kept it
// refuses a value written before.
func (t *table) claim(line int, id int32) error {
	if t.firstWrite == nil {
		return nil
	}
	for int(id) >= len(t.firstWrite) {
		t.firstWrite = append(t.firstWrite, 0)
	}
	if first := t.firstWrite[id]; first != 0 {
		return &history.FormatError{Line: line, Msg: history.ErrValueWrittenTwice(t.values.text(id), int(first), line)}
	}
	t.firstWrite[id] = int32(line)
	return nil
}

// add appends the operation on line line; with firstWrite kept, a value
// written twice is a *history.FormatError.
func (t *table) add(line int, op *history.Op) error {
	i := t.n
	t.n++
	if t.lines == nil && line != i+1 {
		t.lines = make([]int32, i, max(cap(t.sess), i+1))
		for j := range t.lines {
			t.lines[j] = int32(j + 1)
		}
	}
	if t.lines != nil {
		t.lines = append(t.lines, int32(line))
	}
	t.sess = append(t.sess, intern(t.sessID, &t.sessNames, op.Session))
	t.dc = append(t.dc, intern(t.dcID, &t.dcNames, op.DC))
	var k uint8
	key, val := int32(-1), int32(-1)
	switch op.Op {
	case history.Get, history.Put, history.Del:
		switch op.Op {
		case history.Get:
			k = opGet
		case history.Put:
			k = opPut
		default:
			k = opDel
		}
		key = t.keyOf(op.Key)
		val = t.valOf(key, op.Value, op.Op != history.Get)
		if op.Op == history.Del && op.Value != nil {
			t.dels[*op.Value] = true
		}
		if op.Op != history.Get && val >= 0 {
			if err := t.claim(line, val); err != nil {
				return err
			}
		}
	case history.ReadTxn, history.WriteTxn:
		k = opReadTxn
		names := make([]string, 0, max(len(op.Reads), len(op.Writes)))
		for n := range op.Reads {
			names = append(names, n)
		}
		if op.Op == history.WriteTxn {
			k = opWriteTxn
			for n := range op.Writes {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		key = int32(len(t.tx))
		for _, n := range names {
			e := txKV{key: t.keyOf(n)}
			if k == opReadTxn {
				e.val = t.valOf(e.key, op.Reads[n], false)
			} else {
				w := op.Writes[n]
				e.val = t.valOf(e.key, &w, true)
				if err := t.claim(line, e.val); err != nil {
					return err
				}
			}
			t.tx = append(t.tx, e)
		}
		val = int32(len(t.tx))
	}
	if op.Failed() {
		k |= opFailed
	}
	t.kind = append(t.kind, k)
	t.key = append(t.key, key)
	t.val = append(t.val, val)
	return nil
}

// line returns the 1-based line of operation v.
func (t *table) line(v int32) int {
	if t.lines != nil {
		return int(t.lines[v])
	}
	return int(v) + 1
}

func (t *table) op(v int32) uint8     { return t.kind[v] &^ opFailed }
func (t *table) failed(v int32) bool  { return t.kind[v]&opFailed != 0 }
func (t *table) isRead(v int32) bool  { o := t.op(v); return o == opGet || o == opReadTxn }
func (t *table) isWrite(v int32) bool { return !t.isRead(v) }
func (t *table) isTxn(v int32) bool   { o := t.op(v); return o == opReadTxn || o == opWriteTxn }

// txOf returns the keys of transaction v, sorted by name.
func (t *table) txOf(v int32) []txKV { return t.tx[t.key[v]:t.val[v]] }

// value returns the text of value ID id, nil for -1 (null).
func (t *table) value(id int32) *string {
	if id < 0 {
		return nil
	}
	v := t.values.text(id)
	return &v
}

// txText renders transaction v's keys as {k=v, …} (at most 6, then "…
// N more"), each value through f.
func (t *table) txText(v int32, f func(*string) string) string {
	es := t.txOf(v)
	const most = 6
	parts := make([]string, 0, min(len(es), most+1))
	for i, e := range es {
		if i == most {
			parts = append(parts, "… "+strconv.Itoa(len(es)-most)+" more")
			break
		}
		parts = append(parts, t.keyNames[e.key]+"="+f(t.value(e.val)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
