// Package history records and reads client operation histories: JSON
// Lines, one completed client operation per line, the input of the causal+
// checker (package check). docs/formats/history.md describes the format
// for users, with examples, and embeds this comment.
//
// A line looks like
//
//	{"session":"c17","dc":"tokyo","op":"put","key":"user42","value":"c17-305","start_ms":1200.5,"end_ms":1201.2}
//
// Writer produces such lines with deterministic bytes; Parse reads them back
// strictly, reporting the first malformed line as a *FormatError.
//
// Loaded records: runs start with the workload's records loaded (YCSB's
// load phase). In a simulated run a loaded value (protocol.IsLoaded) sits
// below every written version, so a read of it is recorded as the key's
// initial state: a null value, exactly as a read of a never-written key.
// In a live run a value from before the run (loaded, or an earlier run's)
// is a real write that may beat the run's writes, so it is recorded by an
// ID of its own ("loaded-<key>" for a loaded value) and the history ends
// with one failed put (a del, for a tombstone) of session "pre-run" per
// such value: a write concurrent with everything in the run. Neither needs
// anything of the format or the checker.
//
// Deletes: a delete (client.Session.Delete, `causeway del`) writes a
// tombstone with an ID of its own (protocol.Tombstone), and is recorded as
// op "del" with that ID as its value:
//
//	{"session":"c3","dc":"a","op":"del","key":"user42","value":"9f2c…e1.1","start_ms":40,"end_ms":41}
//
// A del is a write like a put: its value is unique among all writes of the
// history, and the checker orders and checks it as one. A read that found
// the key deleted records the ID of the tombstone it saw as its value —
// {"op":"get","key":"user42","value":"9f2c…e1.1",…}, and likewise in a
// read_txn's reads — so that the checker knows which delete it saw: a
// read of an older delete, or of a value a delete in its causal past
// replaced, is a stale read, and null after a delete is stale too (null
// is only the initial state). A read's value is a tombstone exactly when
// the history's write of that value is a del.
package history

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Operation kinds, the values of Op.Op.
const (
	Get      = "get"
	Put      = "put"
	ReadTxn  = "read_txn"
	WriteTxn = "write_txn"
	// Del is a delete: a write of a tombstone, whose ID is its Value.
	Del = "del"
)

// Op is one completed (or failed) client operation, one line of a history.
//
// Values are unique write identifiers: no two writes in a history write the
// same value, and nil stands for a key's initial, never-written state.
type Op struct {
	// Session names the client session; a session's operations appear in
	// the history in its program order.
	Session string `json:"session"`
	// DC is the datacenter the session was attached to.
	DC string `json:"dc"`
	// Op is the kind: get, put, del, read_txn or write_txn.
	Op string `json:"op"`
	// Key is the key of a get, put or del.
	Key string `json:"key,omitempty"`
	// Value is, for a get, the value read (nil: the initial state; a del's
	// tombstone ID: the key was deleted by that del), for a put, the value
	// written and, for a del, its tombstone's ID. Transactions leave it
	// nil.
	Value *string `json:"value"`
	// Reads maps each key a read_txn read to the value it returned (nil:
	// the initial state).
	Reads map[string]*string `json:"reads,omitempty"`
	// Writes maps each key a write_txn wrote to the value it wrote.
	Writes map[string]string `json:"writes,omitempty"`
	// StartMs and EndMs are when the operation was invoked and when it
	// completed, in milliseconds.
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
	// OK is false for an operation that failed or timed out; nil means
	// true. A failed write may or may not have taken effect.
	OK *bool `json:"ok,omitempty"`
}

// Failed reports whether the operation failed or timed out (ok:false).
func (o Op) Failed() bool { return o.OK != nil && !*o.OK }

// IsRead reports whether the operation is a get or a read_txn.
func (o Op) IsRead() bool { return o.Op == Get || o.Op == ReadTxn }

// IsWrite reports whether the operation is a put, a del or a write_txn.
func (o Op) IsWrite() bool { return o.Op == Put || o.Op == Del || o.Op == WriteTxn }

// MarshalJSON encodes the operation as one history line (without the
// newline), with the fields in the order session, dc, op, key, value, reads,
// writes, start_ms, end_ms, ok and without the fields that do not apply to
// its kind: get, put and del always carry key and value (a get's value may be
// null), read_txn always carries reads and write_txn writes; ok appears only
// when set. Map keys are sorted, so equal operations give equal bytes.
func (o Op) MarshalJSON() ([]byte, error) {
	return appendOp(nil, &o)
}

// appendOp appends the JSON encoding of o to b.
func appendOp(b []byte, o *Op) ([]byte, error) {
	if math.IsNaN(o.StartMs) || math.IsInf(o.StartMs, 0) || math.IsNaN(o.EndMs) || math.IsInf(o.EndMs, 0) {
		return b, fmt.Errorf("history: operation of session %q has a non-finite time", o.Session)
	}
	var key, value, reads, writes bool
	switch o.Op {
	case Get, Put, Del:
		key, value = true, true
	case ReadTxn:
		reads = true
	case WriteTxn:
		writes = true
	default:
		key, value = o.Key != "", o.Value != nil
		reads, writes = o.Reads != nil, o.Writes != nil
	}
	b = append(b, `{"session":`...)
	b = appendString(b, o.Session)
	b = append(b, `,"dc":`...)
	b = appendString(b, o.DC)
	b = append(b, `,"op":`...)
	b = appendString(b, o.Op)
	if key {
		b = append(b, `,"key":`...)
		b = appendString(b, o.Key)
	}
	if value {
		b = append(b, `,"value":`...)
		b = appendValue(b, o.Value)
	}
	if reads {
		b = append(b, `,"reads":{`...)
		for i, k := range slices.Sorted(maps.Keys(o.Reads)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendValue(b, o.Reads[k])
		}
		b = append(b, '}')
	}
	if writes {
		b = append(b, `,"writes":{`...)
		for i, k := range slices.Sorted(maps.Keys(o.Writes)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendString(b, o.Writes[k])
		}
		b = append(b, '}')
	}
	b = append(b, `,"start_ms":`...)
	b = appendFloat(b, o.StartMs)
	b = append(b, `,"end_ms":`...)
	b = appendFloat(b, o.EndMs)
	if o.OK != nil {
		b = append(b, `,"ok":`...)
		b = strconv.AppendBool(b, *o.OK)
	}
	return append(b, '}'), nil
}

func appendValue(b []byte, v *string) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return appendString(b, *v)
}

// appendFloat formats f as encoding/json does.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Turn e-09 into e-9, as encoding/json does.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. It escapes what JSON requires
// plus U+2028 and U+2029, and replaces invalid UTF-8 with U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// History is a parsed history.
type History struct {
	// Ops are the operations in file order; each session's operations are
	// in its program order.
	Ops []Op
	// Lines, when not nil, holds the 1-based file line of each operation
	// (Parse skips empty lines, so it may differ from index+1).
	Lines []int
}

// Line returns the 1-based line number of operation i: Lines[i] when Lines
// is set, i+1 otherwise.
func (h *History) Line(i int) int {
	if i < len(h.Lines) {
		return h.Lines[i]
	}
	return i + 1
}

// Writer writes operations as JSON Lines. It buffers: call Flush at the end.
// The bytes depend only on the operations written.
type Writer struct {
	w   *bufio.Writer
	buf []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write appends op as one line.
func (w *Writer) Write(op Op) error {
	b, err := appendOp(w.buf[:0], &op)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	w.buf = b
	_, err = w.w.Write(b)
	return err
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

// FormatError reports a malformed history line.
type FormatError struct {
	// Line is the 1-based line number.
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error returns e.g. "line 12: put without a value".
func (e *FormatError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse reads a history. It is strict: an unknown field, a duplicate field,
// an unknown op, a get, put or del without a key, a put or del without a
// value, a
// read_txn without reads, a write_txn without writes, a field that does not
// belong to the op, end_ms before start_ms, or a value written twice (by any
// two writes, puts, dels or write_txns, failed or not) is a *FormatError naming
// the line. Empty lines are skipped; lines may be several megabytes long.
func Parse(r io.Reader) (*History, error) {
	h := &History{}
	gaps := false
	err := Scan(r, func(lineNo int, op *Op) error {
		if !gaps && lineNo != len(h.Ops)+1 {
			gaps = true
			h.Lines = make([]int, len(h.Ops), cap(h.Ops))
			for i := range h.Lines {
				h.Lines[i] = i + 1
			}
		}
		h.Ops = append(h.Ops, *op)
		if gaps {
			h.Lines = append(h.Lines, lineNo)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Scan reads a history as Parse does, strictly, but hands each operation
// to fn with its 1-based line instead of keeping it, so that a reader
// that keeps less (the checker's columns) holds no operation in memory.
// op is only valid during the call. An error from fn stops the scan and
// is returned as it is.
func Scan(r io.Reader, fn func(line int, op *Op) error) error {
	return scan(r, fn, true)
}

// ScanValuesUnchecked is Scan without the check that no value is written
// twice, for a caller that keeps its own table of values and checks it
// there (the checker does, with ErrValueWrittenTwice's words), so that a
// large history is not held in two maps of values.
func ScanValuesUnchecked(r io.Reader, fn func(line int, op *Op) error) error {
	return scan(r, fn, false)
}

// ErrValueWrittenTwice is the FormatError message of a value written by
// two writes, first on line first (the same line: twice in one
// write_txn).
func ErrValueWrittenTwice(value string, first, line int) string {
	if first == line {
		return fmt.Sprintf("value %q written twice in one write_txn", value)
	}
	return fmt.Sprintf("value %q written twice (first on line %d)", value, first)
}

func scan(r io.Reader, fn func(line int, op *Op) error, unique bool) error {
	br := bufio.NewReaderSize(r, 256<<10)
	p := &parser{intern: map[string]string{}}
	if unique {
		p.written = map[string]int{}
	}
	var long []byte
	lineNo := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("history: reading line %d: %w", lineNo+1, err)
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		lineNo++
		if !isBlank(line) {
			op, perr := p.parseLine(line, lineNo)
			if perr != nil {
				return &FormatError{Line: lineNo, Msg: perr.Error()}
			}
			if ferr := fn(lineNo, &op); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			break
		}
	}
	return nil
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// parser holds the state shared by the lines of one history.
type parser struct {
	b       []byte
	pos     int
	intern  map[string]string // sessions, DCs, ops and keys
	written map[string]int    // value -> line that wrote it; nil: not checked
}

// Field bits, to detect duplicates and missing fields.
const (
	fSession = 1 << iota
	fDC
	fOp
	fKey
	fValue
	fReads
	fWrites
	fStart
	fEnd
	fOK
)

func (p *parser) parseLine(line []byte, lineNo int) (Op, error) {
	p.b, p.pos = line, 0
	var op Op
	var seen int
	p.ws()
	if !p.eat('{') {
		return op, errors.New("not a JSON object")
	}
	p.ws()
	if !p.eat('}') {
		for {
			p.ws()
			name, err := p.str(false)
			if err != nil {
				return op, fmt.Errorf("field name: %v", err)
			}
			p.ws()
			if !p.eat(':') {
				return op, fmt.Errorf("missing ':' after %q", name)
			}
			p.ws()
			bit, err := p.field(&op, name)
			if err != nil {
				return op, err
			}
			if seen&bit != 0 {
				return op, fmt.Errorf("duplicate field %q", name)
			}
			seen |= bit
			p.ws()
			if p.eat(',') {
				continue
			}
			if p.eat('}') {
				break
			}
			return op, fmt.Errorf("expected ',' or '}' after field %q", name)
		}
	}
	p.ws()
	if p.pos != len(p.b) {
		return op, errors.New("unexpected data after the JSON object")
	}
	return op, p.validate(&op, seen, lineNo)
}

// field parses the value of the field called name into op and returns the
// field's bit.
func (p *parser) field(op *Op, name string) (int, error) {
	var err error
	switch name {
	case "session":
		op.Session, err = p.internedStr(name)
		return fSession, err
	case "dc":
		op.DC, err = p.internedStr(name)
		return fDC, err
	case "op":
		op.Op, err = p.internedStr(name)
		return fOp, err
	case "key":
		op.Key, err = p.internedStr(name)
		return fKey, err
	case "value":
		op.Value, err = p.nullableStr(name)
		return fValue, err
	case "reads":
		op.Reads, err = p.readsObject()
		return fReads, err
	case "writes":
		op.Writes, err = p.writesObject()
		return fWrites, err
	case "start_ms":
		op.StartMs, err = p.number(name)
		return fStart, err
	case "end_ms":
		op.EndMs, err = p.number(name)
		return fEnd, err
	case "ok":
		var v bool
		v, err = p.boolean(name)
		op.OK = &v
		return fOK, err
	}
	return 0, fmt.Errorf("unknown field %q", name)
}

// Validate checks op as Parse checks one line (every rule but unique
// values, which spans lines), as if op had been written by a Writer and
// read back: a producer that hands operations to a checker without the
// round trip (check.Stream) catches what the parser would.
func (o *Op) Validate() error {
	if math.IsNaN(o.StartMs) || math.IsInf(o.StartMs, 0) || math.IsNaN(o.EndMs) || math.IsInf(o.EndMs, 0) {
		return fmt.Errorf("operation of session %q has a non-finite time", o.Session)
	}
	seen := fSession | fDC | fOp | fStart | fEnd
	switch o.Op {
	case Get, Put, Del:
		seen |= fKey | fValue
	case ReadTxn:
		seen |= fReads
	case WriteTxn:
		seen |= fWrites
	}
	if o.OK != nil {
		seen |= fOK
	}
	return validateFields(o, seen)
}

// validate checks the rules that span fields and lines.
func (p *parser) validate(op *Op, seen, lineNo int) error {
	if err := validateFields(op, seen); err != nil {
		return err
	}
	// Unique write values, across puts, dels and write_txns.
	if p.written == nil {
		return nil // the caller checks unique values (ScanValuesUnchecked)
	}
	claim := func(v string) error {
		if first, ok := p.written[v]; ok {
			return errors.New(ErrValueWrittenTwice(v, first, lineNo))
		}
		p.written[v] = lineNo
		return nil
	}
	switch op.Op {
	case Put, Del:
		return claim(*op.Value)
	case WriteTxn:
		for _, k := range slices.Sorted(maps.Keys(op.Writes)) {
			if err := claim(op.Writes[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateFields checks the rules that span the fields of one line, seen
// being the fields it had.
func validateFields(op *Op, seen int) error {
	if seen&fSession == 0 || op.Session == "" {
		return errors.New("missing session")
	}
	if seen&fOp == 0 {
		return errors.New("missing op")
	}
	not := func(bit int, what string) error {
		if seen&bit != 0 {
			return fmt.Errorf("%s with %s", op.Op, what)
		}
		return nil
	}
	var err error
	switch op.Op {
	case Get, Put, Del:
		if seen&fKey == 0 || op.Key == "" {
			return fmt.Errorf("%s without a key", op.Op)
		}
		if op.Op == Put && op.Value == nil {
			return errors.New("put without a value")
		}
		if op.Op == Del && op.Value == nil {
			return errors.New("del without a value (its tombstone's ID)")
		}
		if op.Op == Get && seen&fValue == 0 && !op.Failed() {
			return errors.New("get without a value (null means the initial state)")
		}
		if err = not(fReads, "reads"); err == nil {
			err = not(fWrites, "writes")
		}
	case ReadTxn:
		if seen&fReads == 0 {
			return errors.New("read_txn without reads")
		}
		if err = not(fKey, "a key"); err == nil {
			if err = not(fValue, "a value"); err == nil {
				err = not(fWrites, "writes")
			}
		}
	case WriteTxn:
		if seen&fWrites == 0 {
			return errors.New("write_txn without writes")
		}
		if err = not(fKey, "a key"); err == nil {
			if err = not(fValue, "a value"); err == nil {
				err = not(fReads, "reads")
			}
		}
	default:
		return fmt.Errorf("unknown op %q (want get, put, del, read_txn or write_txn)", op.Op)
	}
	if err != nil {
		return err
	}
	if seen&fStart == 0 {
		return errors.New("missing start_ms")
	}
	if seen&fEnd == 0 {
		return errors.New("missing end_ms")
	}
	if op.EndMs < op.StartMs {
		return fmt.Errorf("end_ms %s before start_ms %s",
			strconv.FormatFloat(op.EndMs, 'g', -1, 64), strconv.FormatFloat(op.StartMs, 'g', -1, 64))
	}
	return nil
}

// --- a small strict JSON scanner for one line ---

func (p *parser) ws() {
	for p.pos < len(p.b) {
		switch p.b[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) eat(c byte) bool {
	if p.pos < len(p.b) && p.b[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *parser) literal(word string) bool {
	if len(p.b)-p.pos >= len(word) && string(p.b[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return true
	}
	return false
}

// rawStr scans a JSON string and returns its bytes without quotes when it
// has no escapes (esc false), or its decoded form (esc true).
func (p *parser) rawStr() (raw []byte, err error) {
	if !p.eat('"') {
		return nil, errors.New("want a string")
	}
	start := p.pos
	for p.pos < len(p.b) {
		c := p.b[p.pos]
		switch {
		case c == '"':
			raw = p.b[start:p.pos]
			p.pos++
			if !utf8.Valid(raw) {
				return nil, errors.New("invalid UTF-8 in a string")
			}
			return raw, nil
		case c == '\\':
			return p.escapedStr(start)
		case c < 0x20:
			return nil, errors.New("control character in a string")
		}
		p.pos++
	}
	return nil, errors.New("unterminated string")
}

// escapedStr decodes a string with escapes; p.pos is at the first
// backslash, start just after the opening quote.
func (p *parser) escapedStr(start int) ([]byte, error) {
	out := append([]byte(nil), p.b[start:p.pos]...)
	for p.pos < len(p.b) {
		c := p.b[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !utf8.Valid(out) {
				return nil, errors.New("invalid UTF-8 in a string")
			}
			return out, nil
		case c < 0x20:
			return nil, errors.New("control character in a string")
		case c != '\\':
			out = append(out, c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.b) {
			break
		}
		e := p.b[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, errors.New(`bad \u escape in a string`)
			}
			if r >= 0xD800 && r < 0xDC00 {
				// A high surrogate must be followed by a low one.
				save := p.pos
				if p.literal(`\u`) {
					if r2, ok := p.hex4(); ok && r2 >= 0xDC00 && r2 < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
						out = utf8.AppendRune(out, r)
						continue
					}
				}
				p.pos = save
				r = utf8.RuneError
			} else if r >= 0xDC00 && r < 0xE000 {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, fmt.Errorf(`bad escape \%c in a string`, e)
		}
	}
	return nil, errors.New("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if len(p.b)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// str parses a string; interned strings are shared between lines.
func (p *parser) str(interned bool) (string, error) {
	raw, err := p.rawStr()
	if err != nil {
		return "", err
	}
	if !interned {
		return string(raw), nil
	}
	if s, ok := p.intern[string(raw)]; ok {
		return s, nil
	}
	s := string(raw)
	if len(p.intern) < 1<<20 {
		p.intern[s] = s
	}
	return s, nil
}

func (p *parser) internedStr(name string) (string, error) {
	s, err := p.str(true)
	if err != nil {
		return "", fmt.Errorf("%s: %v", name, err)
	}
	return s, nil
}

func (p *parser) nullableStr(name string) (*string, error) {
	if p.literal("null") {
		return nil, nil
	}
	s, err := p.str(false)
	if err != nil {
		return nil, fmt.Errorf("%s: want a string or null", name)
	}
	return &s, nil
}

func (p *parser) number(name string) (float64, error) {
	start := p.pos
	p.eat('-')
	digits := func() int {
		n := 0
		for p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	bad := func() error { return fmt.Errorf("%s: want a number", name) }
	if p.pos < len(p.b) && p.b[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return 0, bad()
	}
	if p.eat('.') && digits() == 0 {
		return 0, bad()
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if digits() == 0 {
			return 0, bad()
		}
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.pos]), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: number out of range", name)
	}
	return f, nil
}

func (p *parser) boolean(name string) (bool, error) {
	if p.literal("true") {
		return true, nil
	}
	if p.literal("false") {
		return false, nil
	}
	return false, fmt.Errorf("%s: want true or false", name)
}

// object parses {"k": v, ...}, calling member for each value.
func (p *parser) object(name string, member func(k string) error) error {
	if !p.eat('{') {
		return fmt.Errorf("%s: want an object", name)
	}
	p.ws()
	if p.eat('}') {
		return nil
	}
	for {
		p.ws()
		k, err := p.str(true)
		if err != nil {
			return fmt.Errorf("%s: key: %v", name, err)
		}
		p.ws()
		if !p.eat(':') {
			return fmt.Errorf("%s: missing ':' after %q", name, k)
		}
		p.ws()
		if err := member(k); err != nil {
			return err
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return nil
		}
		return fmt.Errorf("%s: expected ',' or '}' after %q", name, k)
	}
}

func (p *parser) readsObject() (map[string]*string, error) {
	m := map[string]*string{}
	err := p.object("reads", func(k string) error {
		if _, dup := m[k]; dup {
			return fmt.Errorf("reads: duplicate key %q", k)
		}
		v, err := p.nullableStr("reads." + k)
		m[k] = v
		return err
	})
	return m, err
}

func (p *parser) writesObject() (map[string]string, error) {
	m := map[string]string{}
	err := p.object("writes", func(k string) error {
		if _, dup := m[k]; dup {
			return fmt.Errorf("writes: duplicate key %q", k)
		}
		if p.literal("null") {
			return fmt.Errorf("writes: key %q without a value", k)
		}
		v, err := p.str(false)
		if err != nil {
			return fmt.Errorf("writes.%s: want a string", k)
		}
		m[k] = v
		return nil
	})
	return m, err
}
