package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func sp(s string) *string { return &s }

func sample() []Op {
	f := false
	return []Op{
		{Session: "c0", DC: "a", Op: Put, Key: "x", Value: sp("c0-1"), StartMs: 0, EndMs: 0.6},
		{Session: "c1", DC: "b", Op: Get, Key: "x", Value: nil, StartMs: 0.25, EndMs: 1.5},
		{Session: "c1", DC: "b", Op: ReadTxn, Reads: map[string]*string{"y": nil, "x": sp("c0-1")}, StartMs: 2, EndMs: 3},
		{Session: "c0", DC: "a", Op: WriteTxn, Writes: map[string]string{"z": "c0-3", "w": "c0-2"}, StartMs: 1, EndMs: 4, OK: &f},
		{Session: "c2", DC: "c", Op: Put, Key: "quote\"d\n\u00e9", Value: sp("c2-1"), StartMs: 5, EndMs: 5.001},
		{Session: "c2", DC: "c", Op: Del, Key: "x", Value: sp("9f2c.1"), StartMs: 6, EndMs: 7},
		{Session: "c1", DC: "b", Op: Get, Key: "x", Value: sp("9f2c.1"), StartMs: 8, EndMs: 9},
	}
}

// TestRoundTrip: what Writer writes, Parse reads back unchanged, and the
// bytes are also valid JSON that encoding/json agrees with.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, op := range sample() {
		if err := w.Write(op); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	h, err := Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(h.Ops, sample()) {
		t.Errorf("parsed %+v\nwant %+v", h.Ops, sample())
	}
	for i, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var op Op
		if err := json.Unmarshal([]byte(line), &op); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, line)
		}
		if !reflect.DeepEqual(op, sample()[i]) {
			t.Errorf("line %d decodes with encoding/json to %+v", i+1, op)
		}
	}
	// Map fields are written in key order, so the bytes are deterministic.
	if !strings.Contains(buf.String(), `"writes":{"w":"c0-2","z":"c0-3"}`) {
		t.Errorf("writes not in key order:\n%s", buf.String())
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	good := `{"session":"s","dc":"a","op":"put","key":"x","value":"v1","start_ms":0,"end_ms":1}`
	for _, tc := range []struct{ src, want string }{
		{good + "\n\n" + `{"session":"s"`, "line 3: "},
		{`[1,2]`, "line 1: not a JSON object"},
		{strings.Replace(good, `"op":"put"`, `"op":"delete"`, 1), `unknown op "delete"`},
		{strings.Replace(good, `"key":"x",`, ``, 1), "put without a key"},
		{strings.Replace(good, `"value":"v1",`, ``, 1), "put without a value"},
		{strings.Replace(good, `"end_ms":1`, `"end_ms":-1`, 1), "before start_ms"},
		{strings.Replace(good, `"dc":"a"`, `"dc":"a","colour":"red"`, 1), `unknown field "colour"`},
		{strings.Replace(good, `"dc":"a"`, `"dc":"a","dc":"b"`, 1), `duplicate field "dc"`},
		{good + "\n" + strings.Replace(good, `"session":"s"`, `"session":"t"`, 1), `line 2: value "v1" written twice (first on line 1)`},
		{good + " trailing", "unexpected data"},
		{strings.Replace(good, `"op":"put","key":"x","value":"v1",`, `"op":"del","key":"x",`, 1), "del without a value (its tombstone's ID)"},
		{strings.Replace(good, `"op":"put","key":"x","value":"v1",`, `"op":"del","key":"x","value":null,`, 1), "del without a value"},
		{strings.Replace(good, `"op":"put","key":"x",`, `"op":"del",`, 1), "del without a key"},
		{strings.Replace(good, `"op":"put",`, `"op":"del","reads":{},`, 1), "del with reads"},
		{good + "\n" + strings.Replace(good, `"op":"put"`, `"op":"del"`, 1), `line 2: value "v1" written twice (first on line 1)`},
	} {
		_, err := Parse(strings.NewReader(tc.src))
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want a FormatError containing %q", tc.src, err, tc.want)
		}
	}
}

func TestParseSkipsBlankLinesButKeepsLineNumbers(t *testing.T) {
	src := "\n" + `{"session":"s","dc":"a","op":"get","key":"x","value":null,"start_ms":0,"end_ms":1}` + "\n\n"
	h, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 1 || h.Line(0) != 2 {
		t.Fatalf("ops %d, line of op 0 = %d; want 1 op on line 2", len(h.Ops), h.Line(0))
	}
}
