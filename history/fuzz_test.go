package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// encode writes ops with a Writer.
func encode(tb testing.TB, ops []Op) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, op := range ops {
		if err := w.Write(op); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// splitLines splits data as Parse numbers its lines.
func splitLines(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// FuzzParse: any input either parses into operations that are valid, that
// encoding/json reads the same way from each line, and that Writer writes
// back to a history Parse reads unchanged; or it is rejected with a
// *FormatError naming the first bad line, every line before which parses.
func FuzzParse(f *testing.F) {
	f.Add(encode(f, sample()))
	f.Add([]byte("\n" + `{"session":"s","dc":"a","op":"get","key":"x","value":null,"start_ms":0,"end_ms":1}` + "\n\n"))
	f.Add([]byte(`{"session":"c0","dc":"a","op":"put","key":"k","value":"c0-1","start_ms":1e-7,"end_ms":1e21,"ok":false}` + "\r\n" +
		`{"session":"c1","dc":"b","op":"read_txn","reads":{"k":"c0-1","\u00e9\ud83d\ude00":null},"start_ms":-0,"end_ms":0.5}`))
	f.Add([]byte(`{"session":"c0","dc":"a","op":"write_txn","writes":{"a":"v1","b":"v1"},"start_ms":0,"end_ms":1}`))
	f.Add([]byte(`{"session":"s","dc":"a","op":"get","key":"x","value":"\ud800\u0041\udc00\\\/\b\f\n\r\t","start_ms":0,"end_ms":1}`))
	f.Add([]byte(`{"session":"s","dc":"a","op":"delete","key":"x","start_ms":0,"end_ms":1}`))
	f.Add([]byte(`{"session":"s","dc":"a","op":"del","key":"x","value":"t1","start_ms":0,"end_ms":1}` + "\n" + `{"session":"s","dc":"a","op":"get","key":"x","value":"t1","start_ms":1,"end_ms":2}`))
	f.Add([]byte(`{"session":"s","dc":"a","op":"put","key":"x","value":"v","start_ms":1e400,"end_ms":1}`))
	f.Add([]byte("{\"session\":\"s\xff\"}"))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := splitLines(data)
		h, err := Parse(bytes.NewReader(data))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			if fe.Line < 1 || fe.Line > len(lines) || fe.Msg == "" {
				t.Fatalf("error %q: line %d of %d, message %q", err, fe.Line, len(lines), fe.Msg)
			}
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("error %q does not start with the line", err)
			}
			if len(bytes.Trim(lines[fe.Line-1], " \t\r\n")) == 0 {
				t.Fatalf("error %q on a blank line", err)
			}
			// Every line before the bad one is fine.
			if _, err := Parse(bytes.NewReader(bytes.Join(lines[:fe.Line-1], nil))); err != nil {
				t.Fatalf("the lines before %q: %v", fe, err)
			}
			return
		}
		if h.Lines != nil && len(h.Lines) != len(h.Ops) {
			t.Fatalf("%d ops, %d line numbers", len(h.Ops), len(h.Lines))
		}
		nonBlank := 0
		for _, l := range lines {
			if len(bytes.Trim(l, " \t\r\n")) > 0 {
				nonBlank++
			}
		}
		if nonBlank != len(h.Ops) {
			t.Fatalf("%d non-blank lines, %d operations", nonBlank, len(h.Ops))
		}
		for i, op := range h.Ops {
			checkOp(t, op)
			n := h.Line(i)
			if n < 1 || n > len(lines) || (i > 0 && n <= h.Line(i-1)) {
				t.Fatalf("op %d on line %d (previous %d, %d lines)", i, n, h.Line(max(0, i-1)), len(lines))
			}
			var std Op
			if err := json.Unmarshal(lines[n-1], &std); err != nil {
				t.Fatalf("line %d parses, but not with encoding/json: %v", n, err)
			}
			if !reflect.DeepEqual(std, op) {
				t.Fatalf("line %d: Parse reads %+v, encoding/json %+v", n, op, std)
			}
		}
		enc := encode(t, h.Ops)
		again, err := Parse(bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("re-parse of the written history: %v\n%s", err, enc)
		}
		if len(h.Ops) == 0 && len(again.Ops) == 0 {
			return
		}
		if !reflect.DeepEqual(again.Ops, h.Ops) || again.Lines != nil {
			t.Fatalf("round trip changed the history:\n%+v\n%+v", h.Ops, again.Ops)
		}
		if enc2 := encode(t, again.Ops); !bytes.Equal(enc, enc2) {
			t.Fatalf("Writer is not deterministic:\n%s\n%s", enc, enc2)
		}
	})
}

// checkOp checks what Parse promises about an accepted operation.
func checkOp(t *testing.T, op Op) {
	t.Helper()
	if op.Session == "" || math.IsNaN(op.StartMs) || math.IsInf(op.StartMs, 0) || math.IsInf(op.EndMs, 0) || op.EndMs < op.StartMs {
		t.Fatalf("accepted %+v", op)
	}
	switch op.Op {
	case Get, Put, Del:
		if op.Key == "" || op.Reads != nil || op.Writes != nil || (op.Op != Get && op.Value == nil) {
			t.Fatalf("accepted %+v", op)
		}
	case ReadTxn:
		if op.Reads == nil || op.Key != "" || op.Value != nil || op.Writes != nil {
			t.Fatalf("accepted %+v", op)
		}
	case WriteTxn:
		if op.Writes == nil || op.Key != "" || op.Value != nil || op.Reads != nil {
			t.Fatalf("accepted %+v", op)
		}
	default:
		t.Fatalf("accepted op %q", op.Op)
	}
}

// TestParseGarbage: each kind of bad line is a *FormatError naming the
// line and the problem.
func TestParseGarbage(t *testing.T) {
	good := `{"session":"s","dc":"a","op":"put","key":"x","value":"v1","start_ms":0,"end_ms":1}`
	for _, tc := range []struct{ name, src, want string }{
		{"truncated", good[:40], `line 1: `},
		{"truncated string", `{"session":"s`, `line 1: session: unterminated string`},
		{"truncated after a field", good + "\n" + good[:len(good)-1], `line 2: expected ',' or '}' after field "end_ms"`},
		{"truncated number", strings.Replace(good, `"end_ms":1}`, `"end_ms":1.`, 1), "line 1: end_ms: want a number"},
		{"unknown op", strings.Replace(good, `"op":"put"`, `"op":"increment"`, 1), `line 1: unknown op "increment"`},
		{"op of the wrong type", strings.Replace(good, `"op":"put"`, `"op":7`, 1), "line 1: op: want a string"},
		{"session of the wrong type", strings.Replace(good, `"session":"s"`, `"session":null`, 1), "line 1: session: want a string"},
		{"time of the wrong type", strings.Replace(good, `"start_ms":0`, `"start_ms":"0"`, 1), "line 1: start_ms: want a number"},
		{"ok of the wrong type", strings.Replace(good, `}`, `,"ok":1}`, 1), "ok: want true or false"},
		{"reads of the wrong type", `{"session":"s","dc":"a","op":"read_txn","reads":[],"start_ms":0,"end_ms":1}`, "reads: want an object"},
		{"writes with null", `{"session":"s","dc":"a","op":"write_txn","writes":{"k":null},"start_ms":0,"end_ms":1}`, `writes: key "k" without a value`},
		{"unknown field", strings.Replace(good, `"dc":"a"`, `"dc":"a","region":"eu"`, 1), `unknown field "region"`},
		{"enormous number", strings.Replace(good, `"end_ms":1`, `"end_ms":1e999`, 1), "end_ms: number out of range"},
		{"enormous negative number", strings.Replace(good, `"start_ms":0`, `"start_ms":-1e999`, 1), "start_ms: number out of range"},
		{"NaN", strings.Replace(good, `"end_ms":1`, `"end_ms":NaN`, 1), "end_ms: want a number"},
		{"leading zeros", strings.Replace(good, `"end_ms":1`, `"end_ms":01`, 1), "expected ',' or '}' after field \"end_ms\""},
		{"invalid UTF-8 in a value", strings.Replace(good, `"v1"`, "\"v\xff\"", 1), "line 1: value: want a string or null"},
		{"invalid UTF-8 in a key", strings.Replace(good, `"x"`, "\"\xc3\"", 1), "line 1: key: invalid UTF-8 in a string"},
		{"invalid UTF-8 after an escape", strings.Replace(good, `"x"`, "\"\\n\xe2\x82\"", 1), "line 1: key: invalid UTF-8 in a string"},
		{"invalid UTF-8 outside strings", good + "\xff", "line 1: unexpected data after the JSON object"},
		{"control character", strings.Replace(good, `"x"`, "\"a\x01\"", 1), "key: control character in a string"},
		{"bad escape", strings.Replace(good, `"x"`, `"\q"`, 1), `key: bad escape \q`},
		{"bad unicode escape", strings.Replace(good, `"x"`, `"\u12"`, 1), `key: bad \u escape`},
		{"binary garbage", "\x00\x01\x02\xfe\xff", "line 1: not a JSON object"},
		{"garbage after good lines", good + "\n\n" + "}{", "line 3: not a JSON object"},
		{"an array", `[` + good + `]`, "line 1: not a JSON object"},
		{"two objects on a line", good + good, "line 1: unexpected data after the JSON object"},
		{"nested object", strings.Replace(good, `"value":"v1"`, `"value":{"a":1}`, 1), "value: want a string or null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.src))
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse(%q) = %v, want a *FormatError containing %q", tc.src, err, tc.want)
			}
		})
	}
}
