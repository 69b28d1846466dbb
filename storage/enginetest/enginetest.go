// Package enginetest is a conformance suite for storage.Engine
// implementations. Every engine must pass Run.
package enginetest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/causeway/causeway/storage"
)

// Run runs the conformance suite as subtests of t. open must return a new,
// empty engine each time it is called; Run closes the engines it opens,
// except those it has already closed itself.
func Run(t *testing.T, open func(t *testing.T) storage.Engine) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := open(t)
			closed := false
			defer func() {
				if !closed {
					if err := e.Close(); err != nil {
						t.Errorf("Close: %v", err)
					}
				}
			}()
			tc.run(t, e, &closed)
		})
	}
}

type testCase struct {
	name string
	// run exercises e; it sets *closed when it closes e itself.
	run func(t *testing.T, e storage.Engine, closed *bool)
}

var cases = []testCase{
	{"LatestVersion", func(t *testing.T, e storage.Engine, _ *bool) {
		wantMissing(t, e, "k")
		apply(t, e, put("k", 1, "v1"), put("k", 3, "v3"))
		apply(t, e, put("k", 2, "v2"))
		wantGet(t, e, "k", 3, "v3")
		apply(t, e, put("k", 7, "v7"))
		wantGet(t, e, "k", 7, "v7")
	}},
	{"GetAt", func(t *testing.T, e storage.Engine, _ *bool) {
		apply(t, e, put("k", 20, "v20"), put("k", 10, "v10"), put("k", 30, "v30"), put("j", 15, "j15"))
		for _, c := range []struct {
			at   storage.Version
			want storage.Version // 0: missing
		}{
			{0, 0}, {5, 0}, {9, 0},
			{10, 10}, {11, 10}, {19, 10},
			{20, 20}, {25, 20},
			{30, 30}, {31, 30}, {math.MaxUint64, 30},
		} {
			if c.want == 0 {
				wantMissingAt(t, e, "k", c.at)
			} else {
				wantGetAt(t, e, "k", c.at, c.want, fmt.Sprintf("v%d", c.want))
			}
		}
	}},
	{"ExtremeVersions", func(t *testing.T, e storage.Engine, _ *bool) {
		apply(t, e, put("k", 0, "zero"), put("k", math.MaxUint64, "max"), put("k", 1<<63, "mid"))
		wantGet(t, e, "k", math.MaxUint64, "max")
		wantGetAt(t, e, "k", 0, 0, "zero")
		wantGetAt(t, e, "k", 1, 0, "zero")
		wantGetAt(t, e, "k", 1<<63-1, 0, "zero")
		wantGetAt(t, e, "k", 1<<63, 1<<63, "mid")
		wantGetAt(t, e, "k", math.MaxUint64-1, 1<<63, "mid")
		wantGetAt(t, e, "k", math.MaxUint64, math.MaxUint64, "max")
		apply(t, e, delBelow("k", math.MaxUint64))
		wantMissingAt(t, e, "k", math.MaxUint64-1)
		wantGet(t, e, "k", math.MaxUint64, "max")
	}},
	{"OverwriteSameVersion", func(t *testing.T, e storage.Engine, _ *bool) {
		apply(t, e, put("k", 5, "a"))
		apply(t, e, put("k", 5, "b"))
		wantGet(t, e, "k", 5, "b")
		apply(t, e, put("k", 5, "c"), put("k", 5, "d"))
		wantGet(t, e, "k", 5, "d")
		wantScan(t, e, "", rec("k", 5, "d"))
	}},
	{"DeleteBelow", func(t *testing.T, e storage.Engine, _ *bool) {
		for v := storage.Version(1); v <= 5; v++ {
			apply(t, e, put("k", v, fmt.Sprint("v", v)))
		}
		apply(t, e, put("j", 1, "j1"), put("k\x00", 1, "x"), put("kk", 1, "y"))
		apply(t, e, delBelow("k", 3))
		wantMissingAt(t, e, "k", 1)
		wantMissingAt(t, e, "k", 2)
		wantGetAt(t, e, "k", 3, 3, "v3")
		wantGetAt(t, e, "k", 4, 4, "v4")
		wantGet(t, e, "k", 5, "v5")
		apply(t, e, delBelow("k", 0))
		wantGetAt(t, e, "k", 3, 3, "v3")
		// DeleteBelow the latest version keeps it.
		apply(t, e, delBelow("k", 5))
		wantMissingAt(t, e, "k", 4)
		wantGet(t, e, "k", 5, "v5")
		// DeleteBelow above every version removes the key.
		apply(t, e, delBelow("k", 100))
		wantMissing(t, e, "k")
		wantScan(t, e, "", rec("j", 1, "j1"), rec("k\x00", 1, "x"), rec("kk", 1, "y"))
		// The key can be written again, even below the old versions.
		apply(t, e, put("k", 2, "again"))
		wantGet(t, e, "k", 2, "again")
		// DeleteBelow on a missing key is a no-op.
		apply(t, e, delBelow("nope", 10))
		wantMissing(t, e, "nope")
		// A DeleteBelow removes versions the same batch put before it.
		apply(t, e, put("m", 1, "m1"), put("m", 2, "m2"), delBelow("m", 2))
		wantMissingAt(t, e, "m", 1)
		wantGet(t, e, "m", 2, "m2")
	}},
	{"Delete", func(t *testing.T, e storage.Engine, _ *bool) {
		apply(t, e, put("k", 1, "a"), put("k", 2, "b"), put("k", 3, "c"),
			put("k\x00", 1, "x"), put("kk", 1, "y"), put("", 1, "empty"), put("j", 1, "j"))
		apply(t, e, del("k"))
		wantMissing(t, e, "k")
		wantMissingAt(t, e, "k", 2)
		wantGet(t, e, "k\x00", 1, "x")
		wantGet(t, e, "kk", 1, "y")
		wantGet(t, e, "", 1, "empty")
		wantGet(t, e, "j", 1, "j")
		wantScan(t, e, "k", rec("k\x00", 1, "x"), rec("kk", 1, "y"))
		apply(t, e, del("missing"))
		apply(t, e, put("k", 1, "new"))
		wantGet(t, e, "k", 1, "new")
		apply(t, e, del(""))
		wantMissing(t, e, "")
		wantGet(t, e, "j", 1, "j")
	}},
	{"ScanPrefixOrderLatestOnly", func(t *testing.T, e storage.Engine, _ *bool) {
		apply(t, e,
			put("b", 1, "b1"), put("a", 1, "a1"), put("c/2", 1, "c2"), put("c/1", 4, "c1@4"),
			put("c/1", 2, "c1@2"), put("c", 1, "c"), put("c/10", 1, "c10"), put("d", 1, "d"),
			put("a", 2, "a2"), put("ab", 1, "ab"))
		wantScan(t, e, "",
			rec("a", 2, "a2"), rec("ab", 1, "ab"), rec("b", 1, "b1"), rec("c", 1, "c"),
			rec("c/1", 4, "c1@4"), rec("c/10", 1, "c10"), rec("c/2", 1, "c2"), rec("d", 1, "d"))
		wantScan(t, e, "c/", rec("c/1", 4, "c1@4"), rec("c/10", 1, "c10"), rec("c/2", 1, "c2"))
		wantScan(t, e, "c/1", rec("c/1", 4, "c1@4"), rec("c/10", 1, "c10"))
		wantScan(t, e, "c", rec("c", 1, "c"), rec("c/1", 4, "c1@4"), rec("c/10", 1, "c10"), rec("c/2", 1, "c2"))
		wantScan(t, e, "a", rec("a", 2, "a2"), rec("ab", 1, "ab"))
		wantScan(t, e, "ab", rec("ab", 1, "ab"))
		wantScan(t, e, "abc")
		wantScan(t, e, "e")
		wantScan(t, e, "0")
	}},
	{"BinaryKeys", func(t *testing.T, e storage.Engine, _ *bool) {
		// Sorted order, with prefix relations and 0x00 / 0xFF bytes.
		keys := []string{
			"", "\x00", "\x00\x00", "\x00\x01", "\x00\xff", "\x01",
			"a", "a\x00", "a\x00\x00", "a\x00b", "a\x01", "ab", "a\xff", "a\xff\xff",
			"b", "\xff", "\xff\x00", "\xff\xff", "\xff\xff\xff",
		}
		perm := rand.New(rand.NewPCG(1, 2)).Perm(len(keys))
		var ws []storage.Write
		for _, i := range perm {
			ws = append(ws, put(keys[i], 1, "old"+keys[i]), put(keys[i], 2, "val"+keys[i]))
		}
		apply(t, e, ws...)
		for _, k := range keys {
			wantGet(t, e, k, 2, "val"+k)
			wantGetAt(t, e, k, 1, 1, "old"+k)
		}
		for _, prefix := range []string{"", "\x00", "\x00\x00", "a", "a\x00", "a\xff", "\xff", "\xff\xff", "\x02", "a\x02"} {
			var want []storage.Record
			for _, k := range keys {
				if strings.HasPrefix(k, prefix) {
					want = append(want, rec(k, 2, "val"+k))
				}
			}
			wantScan(t, e, prefix, want...)
		}
		apply(t, e, del("a"), delBelow("a\x00", 3))
		wantMissing(t, e, "a")
		wantMissing(t, e, "a\x00")
		wantGet(t, e, "a\x00\x00", 2, "val"+"a\x00\x00")
		wantGet(t, e, "ab", 2, "val"+"ab")
	}},
	{"EmptyValue", func(t *testing.T, e storage.Engine, _ *bool) {
		apply(t, e, put("nil", 1, ""), storage.Write{Kind: storage.Put, Key: "empty", Version: 1, Value: []byte{}})
		for _, k := range []string{"nil", "empty"} {
			r, found, err := e.Get(k)
			if err != nil || !found || len(r.Value) != 0 || r.Version != 1 {
				t.Errorf("Get(%q) = %v, %v, %v; want empty value at version 1", k, r, found, err)
			}
		}
		wantMissing(t, e, "missing")
		apply(t, e, put("nil", 2, "x"), put("nil", 3, ""))
		wantGet(t, e, "nil", 3, "")
		wantGetAt(t, e, "nil", 2, 2, "x")
		wantScan(t, e, "", rec("empty", 1, ""), rec("nil", 3, ""))
	}},
	{"AtomicOrderedBatch", func(t *testing.T, e storage.Engine, _ *bool) {
		apply(t, e,
			put("k", 1, "a"), put("k", 2, "b"), delBelow("k", 2), put("k", 1, "c"),
			put("j", 1, "x"), del("j"), put("j", 3, "y"),
			put("gone", 1, "z"), del("gone"),
			put("i", 4, "p"), put("i", 4, "q"))
		wantGet(t, e, "k", 2, "b")
		wantGetAt(t, e, "k", 1, 1, "c")
		wantGet(t, e, "j", 3, "y")
		wantMissingAt(t, e, "j", 2)
		wantMissing(t, e, "gone")
		wantGet(t, e, "i", 4, "q")
		apply(t, e)
		apply(t, e, nil...)
		wantScan(t, e, "", rec("i", 4, "q"), rec("j", 3, "y"), rec("k", 2, "b"))
	}},
	{"SyncAndNoSync", func(t *testing.T, e storage.Engine, _ *bool) {
		if err := e.Apply([]storage.Write{put("a", 1, "x")}, false); err != nil {
			t.Fatal(err)
		}
		if err := e.Apply([]storage.Write{put("b", 1, "y")}, true); err != nil {
			t.Fatal(err)
		}
		wantGet(t, e, "a", 1, "x")
		wantGet(t, e, "b", 1, "y")
	}},
	{"ValuesCopied", func(t *testing.T, e storage.Engine, _ *bool) {
		buf := []byte("hello")
		apply(t, e, storage.Write{Kind: storage.Put, Key: "k", Version: 1, Value: buf})
		copy(buf, "XXXXX")
		wantGet(t, e, "k", 1, "hello")

		r, _, err := e.Get("k")
		if err != nil {
			t.Fatal(err)
		}
		copy(r.Value, "YYYYY")
		wantGet(t, e, "k", 1, "hello")

		r, _, err = e.GetAt("k", 1)
		if err != nil {
			t.Fatal(err)
		}
		copy(r.Value, "ZZZZZ")
		wantGet(t, e, "k", 1, "hello")

		var got [][]byte
		if err := e.Scan("", func(r storage.Record) error {
			got = append(got, r.Value)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, v := range got {
			copy(v, "WWWWW")
		}
		wantGet(t, e, "k", 1, "hello")
		if len(got) != 1 || string(got[0]) != "WWWWW" {
			t.Errorf("Scan values are not independent copies: %q", got)
		}
	}},
	{"ScanStopsOnError", func(t *testing.T, e storage.Engine, _ *bool) {
		apply(t, e, put("a", 1, ""), put("b", 1, ""), put("c", 1, ""))
		stop := errors.New("stop")
		var seen []string
		err := e.Scan("", func(r storage.Record) error {
			seen = append(seen, r.Key)
			if len(seen) == 2 {
				return stop
			}
			return nil
		})
		if err != stop {
			t.Errorf("Scan returned %v, want the callback's error", err)
		}
		if !slices.Equal(seen, []string{"a", "b"}) {
			t.Errorf("Scan visited %q, want [a b]", seen)
		}
	}},
	{"ScanCallbackUsesEngine", func(t *testing.T, e storage.Engine, _ *bool) {
		apply(t, e, put("a", 1, "1"), put("b", 1, "2"))
		n := 0
		if err := e.Scan("", func(r storage.Record) error {
			n++
			got, found, err := e.Get(r.Key)
			if err != nil || !found || got.Version != r.Version {
				return fmt.Errorf("Get(%q) inside Scan = %v, %v, %v", r.Key, got, found, err)
			}
			return e.Apply([]storage.Write{put("z/"+r.Key, 1, "")}, false)
		}); err != nil {
			t.Fatal(err)
		}
		if n < 2 {
			t.Errorf("Scan visited %d keys, want at least 2", n)
		}
		wantGet(t, e, "z/a", 1, "")
		wantGet(t, e, "z/b", 1, "")
	}},
	{"UnknownKindRejected", func(t *testing.T, e storage.Engine, _ *bool) {
		err := e.Apply([]storage.Write{put("k", 1, "v"), {Kind: storage.DeleteVersion + 1, Key: "k"}}, false)
		if err == nil {
			t.Error("Apply with an unknown WriteKind succeeded")
		}
		wantMissing(t, e, "k")
	}},
	{"ErrClosed", func(t *testing.T, e storage.Engine, closed *bool) {
		apply(t, e, put("k", 1, "v"))
		*closed = true
		if err := e.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if _, _, err := e.Get("k"); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Get after Close: %v, want ErrClosed", err)
		}
		if _, _, err := e.GetAt("k", 1); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("GetAt after Close: %v, want ErrClosed", err)
		}
		if err := e.Scan("", func(storage.Record) error { return nil }); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Scan after Close: %v, want ErrClosed", err)
		}
		for _, sync := range []bool{false, true} {
			if err := e.Apply([]storage.Write{put("k", 2, "w")}, sync); !errors.Is(err, storage.ErrClosed) {
				t.Errorf("Apply(sync=%v) after Close: %v, want ErrClosed", sync, err)
			}
		}
		if err := e.Close(); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("second Close: %v, want ErrClosed", err)
		}
	}},
	{"RandomAgainstModel", func(t *testing.T, e storage.Engine, _ *bool) {
		rng := rand.New(rand.NewPCG(42, 7))
		m := Model{}
		keys := []string{"", "a", "a\x00", "a\x00\x00", "a\xff", "ab", "b", "\x00", "\xff", "b/1", "b/2"}
		for step := 0; step < 300; step++ {
			var ws []storage.Write
			for n := rng.IntN(4); n >= 0; n-- {
				w := storage.Write{Key: keys[rng.IntN(len(keys))], Version: storage.Version(rng.IntN(12))}
				switch r := rng.IntN(10); {
				case r < 7:
					w.Kind = storage.Put
					w.Value = []byte(fmt.Sprint(step))
				case r < 8:
					w.Kind = storage.DeleteBelow
				case r < 9:
					w.Kind = storage.DeleteVersion
				default:
					w.Kind = storage.Delete
				}
				ws = append(ws, w)
			}
			if err := e.Apply(ws, rng.IntN(2) == 0); err != nil {
				t.Fatal(err)
			}
			m.Apply(ws)
			k := keys[rng.IntN(len(keys))]
			v := storage.Version(rng.IntN(13))
			if want, ok := m.GetAt(k, v); ok {
				wantGetAt(t, e, k, v, want.Version, string(want.Value))
			} else {
				wantMissingAt(t, e, k, v)
			}
			if want, ok := m.GetAt(k, math.MaxUint64); ok {
				wantGet(t, e, k, want.Version, string(want.Value))
			} else {
				wantMissing(t, e, k)
			}
			if step%10 == 0 {
				prefix := keys[rng.IntN(len(keys))]
				wantScan(t, e, prefix, m.Scan(prefix)...)
			}
			if t.Failed() {
				t.Fatalf("failed at step %d", step)
			}
		}
		wantScan(t, e, "", m.Scan("")...)
	}},
}

// Model is a trivially correct engine, key -> version -> value, for
// tests that check an engine's contents against what it was given.
type Model map[string]map[storage.Version]string

// Clone returns a deep copy of m.
func (m Model) Clone() Model {
	c := Model{}
	for k, vs := range m {
		c[k] = map[storage.Version]string{}
		for v, val := range vs {
			c[k][v] = val
		}
	}
	return c
}

// Apply applies ws as an engine would.
func (m Model) Apply(ws []storage.Write) {
	for _, w := range ws {
		switch w.Kind {
		case storage.Put:
			if m[w.Key] == nil {
				m[w.Key] = map[storage.Version]string{}
			}
			m[w.Key][w.Version] = string(w.Value)
		case storage.DeleteBelow:
			for v := range m[w.Key] {
				if v < w.Version {
					delete(m[w.Key], v)
				}
			}
		case storage.Delete:
			delete(m, w.Key)
		case storage.DeleteVersion:
			delete(m[w.Key], w.Version)
		}
		if len(m[w.Key]) == 0 {
			delete(m, w.Key)
		}
	}
}

// GetAt returns key's newest version at or below at.
func (m Model) GetAt(key string, at storage.Version) (storage.Record, bool) {
	var best storage.Record
	found := false
	for v, val := range m[key] {
		if v <= at && (!found || v > best.Version) {
			best, found = rec(key, v, val), true
		}
	}
	return best, found
}

// Scan returns the newest version of every key with prefix, in key order.
func (m Model) Scan(prefix string) []storage.Record {
	var out []storage.Record
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			r, _ := m.GetAt(k, math.MaxUint64)
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b storage.Record) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func put(key string, v storage.Version, value string) storage.Write {
	return storage.Write{Kind: storage.Put, Key: key, Version: v, Value: []byte(value)}
}

func delBelow(key string, v storage.Version) storage.Write {
	return storage.Write{Kind: storage.DeleteBelow, Key: key, Version: v}
}

func del(key string) storage.Write {
	return storage.Write{Kind: storage.Delete, Key: key}
}

func rec(key string, v storage.Version, value string) storage.Record {
	return storage.Record{Key: key, Version: v, Value: []byte(value)}
}

func apply(t *testing.T, e storage.Engine, ws ...storage.Write) {
	t.Helper()
	if err := e.Apply(ws, false); err != nil {
		t.Fatalf("Apply: %v", err)
	}
}

func wantGet(t *testing.T, e storage.Engine, key string, v storage.Version, value string) {
	t.Helper()
	r, found, err := e.Get(key)
	if err != nil || !found || !sameRecord(r, rec(key, v, value)) {
		t.Errorf("Get(%q) = %s, %v, %v; want %s", key, fmtRecord(r), found, err, fmtRecord(rec(key, v, value)))
	}
}

func wantGetAt(t *testing.T, e storage.Engine, key string, at, v storage.Version, value string) {
	t.Helper()
	r, found, err := e.GetAt(key, at)
	if err != nil || !found || !sameRecord(r, rec(key, v, value)) {
		t.Errorf("GetAt(%q, %d) = %s, %v, %v; want %s", key, at, fmtRecord(r), found, err, fmtRecord(rec(key, v, value)))
	}
}

func wantMissing(t *testing.T, e storage.Engine, key string) {
	t.Helper()
	if r, found, err := e.Get(key); err != nil || found {
		t.Errorf("Get(%q) = %s, %v, %v; want not found", key, fmtRecord(r), found, err)
	}
}

func wantMissingAt(t *testing.T, e storage.Engine, key string, at storage.Version) {
	t.Helper()
	if r, found, err := e.GetAt(key, at); err != nil || found {
		t.Errorf("GetAt(%q, %d) = %s, %v, %v; want not found", key, at, fmtRecord(r), found, err)
	}
}

func wantScan(t *testing.T, e storage.Engine, prefix string, want ...storage.Record) {
	t.Helper()
	var got []storage.Record
	if err := e.Scan(prefix, func(r storage.Record) error {
		got = append(got, r)
		return nil
	}); err != nil {
		t.Errorf("Scan(%q): %v", prefix, err)
		return
	}
	if !slices.EqualFunc(got, want, sameRecord) {
		t.Errorf("Scan(%q) =\n\t%s\nwant\n\t%s", prefix, fmtRecords(got), fmtRecords(want))
	}
}

func sameRecord(a, b storage.Record) bool {
	return a.Key == b.Key && a.Version == b.Version && bytes.Equal(a.Value, b.Value)
}

func fmtRecord(r storage.Record) string {
	return fmt.Sprintf("{%q@%d=%q}", r.Key, r.Version, r.Value)
}

func fmtRecords(rs []storage.Record) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = fmtRecord(r)
	}
	return "[" + strings.Join(s, " ") + "]"
}
