package check

import (
	"strings"
	"testing"

	"github.com/causeway/causeway/history"
)

// TestCheckReaderRefusesWhatParseRefuses: CheckReader reads without the
// parser's map of written values and checks unique values in its own
// table; a malformed history gets Parse's error, word for word.
func TestCheckReaderRefusesWhatParseRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"put twice": `{"session":"a","dc":"x","op":"put","key":"k","value":"1","start_ms":0,"end_ms":1}
{"session":"b","dc":"x","op":"get","key":"k","value":"1","start_ms":0,"end_ms":1}
{"session":"b","dc":"x","op":"put","key":"j","value":"1","start_ms":0,"end_ms":1,"ok":false}
`,
		"del of a put's value": `{"session":"a","dc":"x","op":"put","key":"k","value":"1","start_ms":0,"end_ms":1}

{"session":"a","dc":"x","op":"del","key":"k","value":"1","start_ms":0,"end_ms":1}
`,
		"twice in one write_txn": `{"session":"a","dc":"x","op":"write_txn","writes":{"k":"1","j":"1"},"start_ms":0,"end_ms":1}
`,
		"write_txn after a put": `{"session":"a","dc":"x","op":"put","key":"k","value":"2","start_ms":0,"end_ms":1}
{"session":"a","dc":"x","op":"write_txn","writes":{"k":"1","j":"2"},"start_ms":0,"end_ms":1}
`,
		"other error": `{"session":"a","dc":"x","op":"put","key":"k","start_ms":0,"end_ms":1}
`,
	} {
		_, perr := history.Parse(strings.NewReader(text))
		_, cerr := CheckReader(strings.NewReader(text), Options{})
		if perr == nil || cerr == nil {
			t.Errorf("%s: Parse error %v, CheckReader error %v; want both", name, perr, cerr)
			continue
		}
		if perr.Error() != cerr.Error() {
			t.Errorf("%s: CheckReader error %q, Parse error %q", name, cerr, perr)
		}
	}
}

// TestCheckReaderAgreesWithCheck: on the generated history with a stale
// read injected, both entry points give the same result.
func TestCheckReaderAgreesWithCheck(t *testing.T) {
	h := genSC(20_000, 16, 300, 3)
	h.Ops[15_000].Op, h.Ops[15_000].Key, h.Ops[15_000].Value = history.Get, "k1", nil
	h.Ops[15_000].Reads, h.Ops[15_000].Writes, h.Ops[15_000].OK = nil, nil, nil
	var b strings.Builder
	w := history.NewWriter(&b)
	for _, op := range h.Ops {
		if err := w.Write(op); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := Check(h, Options{})
	got, err := CheckReader(strings.NewReader(b.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ew, eg strings.Builder
	Explain(&ew, want)
	Explain(&eg, got)
	if ew.String() != eg.String() {
		t.Errorf("CheckReader:\n%s\nCheck:\n%s", eg.String(), ew.String())
	}
	if want.OK {
		t.Error("the injected read was not caught")
	}
}

// TestReadsFindTheirValues: a read's value ID is the ID of the value it
// returned, whether it is its key's latest write (recognised from the
// key's lastWrite, its text inline when short) or not, short or long,
// written to that key or another, or never written.
func TestReadsFindTheirValues(t *testing.T) {
	long := strings.Repeat("v", 30)
	vals := []string{"", "a", "b", "ab", "abcdefghijk", "abcdefghijz", "abcdefghijkl", long, long + "1", "a" + long}
	var ops []history.Op
	s := func(v string) *string { return &v }
	for i, v := range vals {
		k := []string{"x", "y"}[i%2]
		ops = append(ops, history.Op{Session: "w", DC: "d", Op: history.Put, Key: k, Value: s(v)})
		for _, r := range vals[:i+1] {
			ops = append(ops,
				history.Op{Session: "r", DC: "d", Op: history.Get, Key: k, Value: s(r)},
				history.Op{Session: "r", DC: "d", Op: history.Get, Key: "z", Value: s(r)},
				history.Op{Session: "r", DC: "d", Op: history.ReadTxn, Reads: map[string]*string{k: s(r), "z": s(r + "?")}})
		}
	}
	tb := tableOf(&history.History{Ops: ops})
	for i := range int32(tb.n) {
		check := func(id int32, want *string) {
			if want == nil {
				return
			}
			if got, ok := tb.values.lookup(*want); !ok || got != id || tb.values.text(id) != *want {
				t.Fatalf("op %d: value ID %d (%q), want %d for %q", i, id, tb.values.text(id), got, *want)
			}
		}
		if op := ops[i]; op.Op == history.ReadTxn {
			for _, e := range tb.txOf(i) {
				check(e.val, op.Reads[tb.keyNames[e.key]])
			}
		} else {
			check(tb.val[i], op.Value)
		}
	}
}
