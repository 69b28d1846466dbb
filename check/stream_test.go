package check

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/causeway/causeway/history"
)

// TestStreamIsCheckReader checks that a Stream fed a history's operations
// gives CheckReader's result on the history's file, violations and their
// explanations included.
func TestStreamIsCheckReader(t *testing.T) {
	for _, name := range []string{"testdata/every-rule.jsonl", "testdata/violations.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		h, err := history.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if h.Lines != nil {
			t.Fatalf("%s skips lines: a Stream numbers operations from 1", name)
		}
		// The file as a Writer writes it: the bytes CheckReader reads.
		var buf bytes.Buffer
		w := history.NewWriter(&buf)
		s := NewStream()
		for i := range h.Ops {
			if err := w.Write(h.Ops[i]); err != nil {
				t.Fatal(err)
			}
			if err := s.Add(&h.Ops[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		want, err := CheckReader(&buf, Options{MaxViolations: 100})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Check(Options{MaxViolations: 100})
		if err != nil {
			t.Fatal(err)
		}
		if want.OK || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Stream gives %+v, CheckReader %+v", name, got, want)
		}
	}
}

// TestStreamRefusesWhatWouldNotParse checks that Add refuses an operation
// the parser would refuse, and a value written twice, with the line the
// parser would name.
func TestStreamRefusesWhatWouldNotParse(t *testing.T) {
	v := "1"
	for _, bad := range []history.Op{
		{Session: "a", DC: "d", Op: history.Put, Key: "x", StartMs: 0, EndMs: 1},            // no value
		{Session: "a", DC: "d", Op: history.Get, StartMs: 0, EndMs: 1, Value: &v},           // no key
		{Session: "a", DC: "d", Op: "frob", Key: "x", StartMs: 0, EndMs: 1},                 // unknown op
		{Session: "a", DC: "d", Op: history.Put, Key: "x", Value: &v, StartMs: 2, EndMs: 1}, // ends before it starts
		{Session: "a", DC: "d", Op: history.Put, Key: "y", Value: &v, StartMs: 0, EndMs: 1}, // value written twice
	} {
		s := NewStream()
		first := history.Op{Session: "a", DC: "d", Op: history.Put, Key: "x", Value: &v, StartMs: 0, EndMs: 1}
		if err := s.Add(&first); err != nil {
			t.Fatal(err)
		}
		err := s.Add(&bad)
		var fe *history.FormatError
		if !errors.As(err, &fe) || fe.Line != 2 {
			t.Fatalf("%+v: Add gives %v, want a FormatError on line 2", bad, err)
		}
		if _, err := s.Check(Options{}); err == nil {
			t.Fatalf("%+v: Check after a refused Add succeeds", bad)
		}
	}
}
