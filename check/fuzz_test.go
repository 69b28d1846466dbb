package check

import (
	"bytes"
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/causeway/causeway/history"
)

// FuzzCheck is `causeway check` on arbitrary bytes: whatever history.Parse
// accepts, Check judges without panicking, deterministically, and with a
// consistent verdict whose violations name known rules and real lines.
func FuzzCheck(f *testing.F) {
	for _, seed := range []uint64{1, 2} {
		var buf bytes.Buffer
		w := history.NewWriter(&buf)
		for _, op := range genSC(12, 3, 3, seed).Ops {
			if err := w.Write(op); err != nil {
				f.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	for _, s := range []string{
		"",
		// thin air, then a read of a write to another key
		`{"session":"a","dc":"d","op":"put","key":"y","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"get","key":"x","value":"zz-9","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":1,"end_ms":2}`,
		// cyclic causality across sessions
		`{"session":"a","dc":"d","op":"get","key":"y","value":"b-1","start_ms":0,"end_ms":1}
{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":1,"end_ms":2}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"put","key":"y","value":"b-1","start_ms":1,"end_ms":2}`,
		// a stale read across keys, after a blank line
		`{"session":"w","dc":"d","op":"put","key":"X","value":"w-1","start_ms":0,"end_ms":1}

{"session":"w","dc":"d","op":"put","key":"Y","value":"w-2","start_ms":1,"end_ms":2}
{"session":"r","dc":"d","op":"get","key":"Y","value":"w-2","start_ms":3,"end_ms":4}
{"session":"r","dc":"d","op":"get","key":"X","value":null,"start_ms":4,"end_ms":5}`,
		// transactions, a failed write read back, a failed read
		`{"session":"a","dc":"d","op":"write_txn","writes":{"x":"a-1","y":"a-2"},"start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"read_txn","reads":{"x":"a-1","y":null},"start_ms":1,"end_ms":2}
{"session":"c","dc":"d","op":"put","key":"x","value":"c-1","start_ms":0,"end_ms":1,"ok":false}
{"session":"b","dc":"d","op":"get","key":"x","value":"c-1","start_ms":2,"end_ms":3}
{"session":"b","dc":"d","op":"get","key":"z","start_ms":3,"end_ms":4,"ok":false}`,
		// order disagreement
		`{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"put","key":"x","value":"b-1","start_ms":0,"end_ms":1}
{"session":"c","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
{"session":"c","dc":"d","op":"get","key":"x","value":"b-1","start_ms":3,"end_ms":4}
{"session":"e","dc":"d","op":"get","key":"x","value":"b-1","start_ms":2,"end_ms":3}
{"session":"e","dc":"d","op":"get","key":"x","value":"a-1","start_ms":3,"end_ms":4}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := history.Parse(bytes.NewReader(data))
		if err != nil {
			return // FuzzParse in package history checks the errors
		}
		checkResult(t, h)
	})
}

// checkResult checks h and the consistency of the verdict.
func checkResult(t *testing.T, h *history.History) {
	t.Helper()
	rules := map[string]bool{RuleThinAir: true, RuleCyclicCausality: true, RuleStaleRead: true,
		RuleOrderDisagreement: true, RuleFracturedTransaction: true}
	res := Check(h, Options{MaxViolations: 3})
	if res.Operations != len(h.Ops) || res.OK != (res.Total == 0) || res.OK != (len(res.Violations) == 0) ||
		len(res.Violations) > min(3, res.Total) {
		t.Fatalf("inconsistent result %+v for %d operations", res, len(h.Ops))
	}
	lines := map[int]bool{}
	for i := range h.Ops {
		lines[h.Line(i)] = true
	}
	sum := 0
	for rule, n := range res.Counts {
		if !rules[rule] || n <= 0 {
			t.Fatalf("count %d of rule %q", n, rule)
		}
		sum += n
	}
	if sum != res.Total {
		t.Fatalf("counts %v add up to %d, not %d", res.Counts, sum, res.Total)
	}
	for _, v := range res.Violations {
		if !rules[v.Rule] || v.Explanation == "" || len(v.Ops) == 0 || !slices.IsSorted(v.Ops) {
			t.Fatalf("violation %+v", v)
		}
		for _, l := range v.Ops {
			if !lines[l] {
				t.Fatalf("violation %+v names line %d, which holds no operation", v, l)
			}
		}
	}
	if Summary(res) == "" {
		t.Fatal("empty summary")
	}
	Explain(io.Discard, res)
	if again := Check(h, Options{MaxViolations: 3}); !reflect.DeepEqual(res, again) {
		t.Fatalf("two checks of one history differ:\n%+v\n%+v", res, again)
	}
}

// FuzzCheckOps builds a history from the fuzzer's bytes, four per
// operation (session, kind, key, which value to read or whether a write
// fails), so that reads return values written before, after, to other
// keys, never, or null; writes it with history.Writer, parses it back, and
// checks it as FuzzCheck does. Random bytes rarely make a valid JSON Lines
// history; these always do, and they break every rule.
func FuzzCheckOps(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 3, 0, 1, 1, 0, 0, 1, 1, 3, 1, 2, 2, 0, 1, 1, 2, 0, 0, 0})
	f.Add([]byte{0, 6, 0, 1, 1, 5, 0, 1, 2, 0, 1, 5, 3, 4, 2, 7, 3, 7, 1, 0, 0, 2, 1, 3})
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice: the quick brown fox"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4*500 {
			b = b[:4*500]
		}
		ops := opsFromBytes(b, 4)
		var buf bytes.Buffer
		w := history.NewWriter(&buf)
		for _, op := range ops {
			if err := w.Write(op); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		h, err := history.Parse(&buf)
		if err != nil {
			t.Fatalf("a generated history does not parse: %v", err)
		}
		if len(ops) > 0 && !reflect.DeepEqual(h.Ops, ops) {
			t.Fatal("the history changed through Writer and Parse")
		}
		checkResult(t, h)
	})
}

// opsFromBytes is FuzzCheckOps's history of b: four bytes per operation
// (session among the first sessions letters, kind, key, which value to
// read or whether a write fails).
func opsFromBytes(b []byte, sessions int) []history.Op {
	keys := []string{"x", "y", "z"}
	var written []string
	counter := map[string]int{}
	no := false
	newVal := func(s string) string {
		counter[s]++
		v := s + "-" + string(rune('0'+counter[s]%10)) + string(rune('a'+counter[s]/10%26)) + string(rune('a'+counter[s]/260))
		written = append(written, v)
		return v
	}
	pick := func(c byte) *string {
		switch {
		case c%5 == 0:
			return nil
		case c%11 == 1 || len(written) == 0:
			v := "thin-air"
			return &v
		}
		v := written[int(c)%len(written)]
		return &v
	}
	var ops []history.Op
	for i := 0; i+3 < len(b); i += 4 {
		s := string(rune('a' + int(b[i])%sessions))
		k := keys[b[i+2]%3]
		op := history.Op{Session: s, DC: "d" + s, StartMs: float64(i), EndMs: float64(i) + 1.5}
		switch b[i+1] % 8 {
		case 0, 1, 2:
			op.Op, op.Key, op.Value = history.Get, k, pick(b[i+3])
		case 3, 4:
			v := newVal(s)
			op.Op, op.Key, op.Value = history.Put, k, &v
			if b[i+3]%7 == 0 {
				op.OK = &no
			}
		case 5:
			op.Op = history.ReadTxn
			op.Reads = map[string]*string{k: pick(b[i+3]), keys[(b[i+2]+1)%3]: pick(b[i+3] / 3)}
		case 6:
			op.Op, op.Writes = history.WriteTxn, map[string]string{k: newVal(s)}
			if k2 := keys[(b[i+2]+1+b[i+3]%2)%3]; k2 != k {
				op.Writes[k2] = newVal(s)
			}
		case 7:
			op.Op, op.Key, op.OK = history.Get, k, &no
		}
		ops = append(ops, op)
	}
	return ops
}
