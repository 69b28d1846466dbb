package workload

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
)

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

func mustLookup(t testing.TB, name string) Workload {
	t.Helper()
	w, err := Lookup(name)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", name, err)
	}
	return w
}

// TestProportions checks each preset's request mix over 20k requests.
func TestProportions(t *testing.T) {
	const n = 20000
	tests := []struct {
		name    string
		wantPut float64 // share of requests that are puts
	}{
		{"ycsb-a", 0.5},
		{"ycsb-b", 0.05},
		{"ycsb-c", 0},
		{"ycsb-d", 0.05},
		// Half the operations are RMWs, each a get and a put: 1/3 puts.
		{"ycsb-f", 1.0 / 3},
		{"ycsb-95-5", 0.05},
		{"ycsb-80-20", 0.2},
		{"ycsb-50-50", 0.5},
		{"ycsb-0-100", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := mustLookup(t, tt.name)
			c := w.NewClient("c1", newRand(1))
			puts, inserts := 0, 0
			for range n {
				req := c.Next()
				switch req.Op {
				case protocol.OpPut:
					puts++
					if idx := keyIndex(t, req.Key); idx >= int64(w.RecordCount) {
						inserts++
					}
				case protocol.OpGet:
				default:
					t.Fatalf("unexpected op %v", req.Op)
				}
			}
			if got := float64(puts) / n; got < tt.wantPut-0.02 || got > tt.wantPut+0.02 {
				t.Errorf("put share = %.4f, want %.4f ± 0.02", got, tt.wantPut)
			}
			if w.InsertProportion > 0 {
				if inserts != puts {
					t.Errorf("%d of %d puts went to new keys, want all", inserts, puts)
				}
			} else if inserts != 0 {
				t.Errorf("%d puts went beyond RecordCount", inserts)
			}
		})
	}
}

// TestTxnProportions checks a custom mix that includes transactions.
func TestTxnProportions(t *testing.T) {
	const n = 20000
	w := Workload{
		Name: "txn", RecordCount: 50, ValueSize: 16, TxnKeys: 5, Distribution: DistZipfian,
		ReadProportion: 0.4, UpdateProportion: 0.2, ReadTxnProportion: 0.3, WriteTxnProportion: 0.1,
	}
	c := w.NewClient("t", newRand(7))
	counts := map[protocol.Op]int{}
	seen := map[string]bool{}
	for range n {
		req := c.Next()
		counts[req.Op]++
		switch req.Op {
		case protocol.OpReadTxn:
			if len(req.Keys) != w.TxnKeys || hasDup(req.Keys) {
				t.Fatalf("read txn keys %v: want %d distinct", req.Keys, w.TxnKeys)
			}
		case protocol.OpWriteTxn:
			keys := make([]string, len(req.Writes))
			for i, kv := range req.Writes {
				keys[i] = kv.Key
				id := ValueID(kv.Value)
				if seen[id] {
					t.Fatalf("duplicate value ID %q", id)
				}
				seen[id] = true
			}
			if len(keys) != w.TxnKeys || hasDup(keys) {
				t.Fatalf("write txn keys %v: want %d distinct", keys, w.TxnKeys)
			}
		}
	}
	want := map[protocol.Op]float64{
		protocol.OpGet: 0.4, protocol.OpPut: 0.2, protocol.OpReadTxn: 0.3, protocol.OpWriteTxn: 0.1,
	}
	for op, p := range want {
		if got := float64(counts[op]) / n; got < p-0.02 || got > p+0.02 {
			t.Errorf("%v share = %.4f, want %.2f ± 0.02", op, got, p)
		}
	}
}

// TestTinyKeySpace runs every distribution over one and two keys.
func TestTinyKeySpace(t *testing.T) {
	for _, records := range []int{1, 2} {
		for _, dist := range []string{DistZipfian, DistZipf, DistUniform, DistLatest} {
			w := Workload{RecordCount: records, ValueSize: 4, Distribution: dist, ReadProportion: 0.5,
				UpdateProportion: 0.2, InsertProportion: 0.1, ReadModifyWriteProportion: 0.2}
			c := w.NewClient("t", newRand(uint64(records)))
			inserted := int64(records - 1)
			for range 2000 {
				req := c.Next()
				idx := keyIndex(t, req.Key)
				if idx > inserted+1 || (req.Op == protocol.OpGet && idx > inserted) {
					t.Fatalf("%s/%d: %v of index %d, inserted up to %d", dist, records, req.Op, idx, inserted)
				}
				inserted = max(inserted, idx)
			}
		}
	}
}

// TestTxnAllKeys asks for transactions over the whole key space, which
// must still terminate with distinct keys under zipfian skew.
func TestTxnAllKeys(t *testing.T) {
	w := Workload{RecordCount: 10, TxnKeys: 10, Distribution: DistZipfian, ReadTxnProportion: 1}
	c := w.NewClient("t", newRand(3))
	for range 100 {
		req := c.Next()
		if len(req.Keys) != 10 || hasDup(req.Keys) {
			t.Fatalf("keys %v: want 10 distinct", req.Keys)
		}
	}
}

func hasDup(keys []string) bool {
	s := slices.Clone(keys)
	slices.Sort(s)
	return len(slices.Compact(s)) != len(keys)
}

func keyIndex(t testing.TB, key string) int64 {
	t.Helper()
	digits, ok := strings.CutPrefix(key, KeyPrefix)
	if !ok || len(digits) < keyDigits {
		t.Fatalf("malformed key %q", key)
	}
	var v int64
	for _, ch := range digits {
		if ch < '0' || ch > '9' {
			t.Fatalf("malformed key %q", key)
		}
		v = v*10 + int64(ch-'0')
	}
	return v
}

// topShare returns the share of samples that fell on the most frequent
// frac of the n possible items.
func topShare(counts map[int64]int, n int, frac float64, total int) float64 {
	vals := make([]int, 0, len(counts))
	for _, c := range counts {
		vals = append(vals, c)
	}
	slices.Sort(vals)
	slices.Reverse(vals)
	top := int(float64(n) * frac)
	sum := 0
	for i := 0; i < top && i < len(vals); i++ {
		sum += vals[i]
	}
	return float64(sum) / float64(total)
}

// TestDistributions checks skew and range of the key generators, directly
// and through a client.
func TestDistributions(t *testing.T) {
	const items, samples = 10000, 100000
	tests := []struct {
		name     string
		gen      func() Generator
		min, max int64
		// bounds on the share of samples on the top 1% of items
		topLo, topHi float64
	}{
		{"zipfian", func() Generator { return NewZipfian(0, items-1) }, 0, items - 1, 0.4, 1},
		{"zipfian-offset", func() Generator { return NewZipfian(500, 500+items-1) }, 500, 500 + items - 1, 0.4, 1},
		// The scrambled zipfian draws from 1e10 items before hashing them
		// down, so its head is lighter: about zeta(100)/zeta(1e10) ≈ 0.2.
		{"scrambled", func() Generator { return NewScrambledZipfian(0, items-1) }, 0, items - 1, 0.15, 0.3},
		{"scrambled-small", func() Generator { return NewScrambledZipfian(3, 12) }, 3, 12, 0, 1},
		{"uniform", func() Generator { return NewUniform(0, items-1) }, 0, items - 1, 0, 0.02},
		{"latest", func() Generator { return NewLatest(NewCounter(items)) }, 0, items - 1, 0.4, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.gen()
			r := newRand(42)
			counts := map[int64]int{}
			for range samples {
				v := g.Next(r)
				if v < tt.min || v > tt.max {
					t.Fatalf("value %d outside [%d, %d]", v, tt.min, tt.max)
				}
				counts[v]++
			}
			share := topShare(counts, int(tt.max-tt.min+1), 0.01, samples)
			if share < tt.topLo || share > tt.topHi {
				t.Errorf("top 1%% share = %.3f, want in [%.2f, %.2f]", share, tt.topLo, tt.topHi)
			}
		})
	}
}

// TestZipfianOrder checks that the plain zipfian favours small items and
// latest favours recent ones.
func TestZipfianOrder(t *testing.T) {
	r := newRand(5)
	z := NewZipfian(0, 999)
	counter := NewCounter(1000)
	l := NewLatest(counter)
	zc, lc := map[int64]int{}, map[int64]int{}
	for range 50000 {
		zc[z.Next(r)]++
		lc[l.Next(r)]++
	}
	if !(zc[0] > zc[1] && zc[1] > zc[10] && zc[10] > zc[500]) {
		t.Errorf("zipfian counts not decreasing: 0:%d 1:%d 10:%d 500:%d", zc[0], zc[1], zc[10], zc[500])
	}
	if !(lc[999] > lc[998] && lc[998] > lc[989] && lc[989] > lc[500]) {
		t.Errorf("latest counts not skewed to 999: 999:%d 998:%d 989:%d 500:%d", lc[999], lc[998], lc[989], lc[500])
	}
	// After inserts, the newest item becomes the most popular.
	for range 100 {
		counter.Next(r)
	}
	lc = map[int64]int{}
	for range 50000 {
		v := l.Next(r)
		if v < 0 || v > 1099 {
			t.Fatalf("latest value %d outside [0, 1099]", v)
		}
		lc[v]++
	}
	if lc[1099] < lc[999] || lc[1099] < 5000 {
		t.Errorf("after inserts, newest count %d, old newest %d", lc[1099], lc[999])
	}
}

// TestUniformSpread checks the uniform generator fills buckets evenly.
func TestUniformSpread(t *testing.T) {
	const buckets, samples = 100, 200000
	g := NewUniform(0, buckets-1)
	r := newRand(9)
	var counts [buckets]int
	for range samples {
		counts[g.Next(r)]++
	}
	want := samples / buckets
	for i, c := range counts {
		if c < want*85/100 || c > want*115/100 {
			t.Errorf("bucket %d: %d samples, want %d ± 15%%", i, c, want)
		}
	}
}

// TestClientSkew checks key popularity as seen through clients.
func TestClientSkew(t *testing.T) {
	const n = 20000
	tests := []struct {
		dist         string
		topLo, topHi float64
	}{
		{DistZipfian, 0.15, 1}, // scrambled: see TestDistributions
		{DistZipf, 0.4, 1},
		{DistUniform, 0, 0.05},
		{DistLatest, 0.3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.dist, func(t *testing.T) {
			w := mustLookup(t, "ycsb-c")
			w.Distribution = tt.dist
			c := w.NewClient("c", newRand(11))
			counts := map[int64]int{}
			for range n {
				idx := keyIndex(t, c.Next().Key)
				if idx < 0 || idx >= int64(w.RecordCount) {
					t.Fatalf("key index %d outside [0, %d)", idx, w.RecordCount)
				}
				counts[idx]++
			}
			share := topShare(counts, w.RecordCount, 0.01, n)
			if share < tt.topLo || share > tt.topHi {
				t.Errorf("top 1%% share = %.3f, want in [%.2f, %.2f]", share, tt.topLo, tt.topHi)
			}
		})
	}
}

// TestLatestReadsFollowInserts checks that ycsb-d reads favour the client's
// own recent inserts.
func TestLatestReadsFollowInserts(t *testing.T) {
	w := mustLookup(t, "ycsb-d")
	c := w.NewClient("d", newRand(13))
	maxInserted := int64(w.RecordCount - 1)
	recent := 0
	reads := 0
	for range 20000 {
		req := c.Next()
		idx := keyIndex(t, req.Key)
		switch req.Op {
		case protocol.OpPut:
			if idx != maxInserted+1 {
				t.Fatalf("insert of index %d, want %d", idx, maxInserted+1)
			}
			maxInserted = idx
		case protocol.OpGet:
			reads++
			if idx > maxInserted {
				t.Fatalf("read of index %d beyond last insert %d", idx, maxInserted)
			}
			if idx > maxInserted-10 {
				recent++
			}
		}
	}
	if maxInserted < int64(w.RecordCount)+500 {
		t.Errorf("only inserted up to %d", maxInserted)
	}
	// zeta(10)/zeta(10500) ≈ 0.3 for theta 0.99.
	if share := float64(recent) / float64(reads); share < 0.2 {
		t.Errorf("share of reads on the 10 latest keys = %.3f, want >= 0.2", share)
	}
}

// TestDeterminism checks that equal seeds give equal sequences and
// different seeds differ.
func TestDeterminism(t *testing.T) {
	for _, name := range append(Names(), "ycsb-70-30") {
		t.Run(name, func(t *testing.T) {
			w := mustLookup(t, name)
			if w.ReadProportion >= 0.05 { // K2's workloads read by read_txn only
				w.ReadTxnProportion, w.ReadProportion = w.ReadTxnProportion+0.05, w.ReadProportion-0.05
			}
			a := w.NewClient("s", newRand(99))
			b := w.NewClient("s", newRand(99))
			c := w.NewClient("s", newRand(100))
			same := true
			for i := range 2000 {
				ra, rb, rc := a.Next(), b.Next(), c.Next()
				if !reflect.DeepEqual(ra, rb) {
					t.Fatalf("request %d differs: %+v vs %+v", i, ra, rb)
				}
				same = same && reflect.DeepEqual(ra, rc)
			}
			if same {
				t.Errorf("different seeds gave the same 2000 requests")
			}
		})
	}
	r1, r2 := newRand(1), newRand(1)
	for _, g := range [][2]Generator{
		{NewZipfian(0, 99), NewZipfian(0, 99)},
		{NewScrambledZipfian(0, 99), NewScrambledZipfian(0, 99)},
		{NewUniform(0, 99), NewUniform(0, 99)},
		{NewLatest(NewCounter(100)), NewLatest(NewCounter(100))},
	} {
		for range 1000 {
			if x, y := g[0].Next(r1), g[1].Next(r2); x != y {
				t.Fatalf("%T: %d != %d", g[0], x, y)
			}
		}
	}
}

// TestUniqueValues checks that two clients of a run never write the same
// value ID, and that IDs count each client's writes from 1.
func TestUniqueValues(t *testing.T) {
	for _, name := range []string{"ycsb-a", "ycsb-d", "ycsb-f"} {
		t.Run(name, func(t *testing.T) {
			w := mustLookup(t, name)
			seen := map[string]string{}
			for _, session := range []string{"c1", "c2"} {
				// Same seed on purpose: only the session separates them.
				c := w.NewClient(session, newRand(1))
				seq := 0
				for range 5000 {
					req := c.Next()
					if req.Op != protocol.OpPut {
						continue
					}
					seq++
					if len(req.Value) != w.ValueSize {
						t.Fatalf("value size %d, want %d", len(req.Value), w.ValueSize)
					}
					id := ValueID(req.Value)
					if want := session + "-" + itoa(seq); id != want {
						t.Fatalf("value ID %q, want %q", id, want)
					}
					if prev, dup := seen[id]; dup {
						t.Fatalf("value ID %q written by %s and %s", id, prev, session)
					}
					seen[id] = session
				}
				if seq == 0 {
					t.Fatalf("%s wrote nothing", session)
				}
			}
		})
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

// TestRMW checks that a read-modify-write is a get then a put of the same
// key.
func TestRMW(t *testing.T) {
	w := mustLookup(t, "ycsb-f")
	w.ReadProportion, w.ReadModifyWriteProportion = 0, 1
	c := w.NewClient("f", newRand(17))
	for i := range 1000 {
		get, put := c.Next(), c.Next()
		if get.Op != protocol.OpGet || put.Op != protocol.OpPut || get.Key != put.Key {
			t.Fatalf("pair %d: %v %q then %v %q, want get then put of one key", i, get.Op, get.Key, put.Op, put.Key)
		}
	}
	// In the preset mix, every put directly follows a get of its key.
	c = mustLookup(t, "ycsb-f").NewClient("f", newRand(18))
	var prev protocol.Request
	for i := range 20000 {
		req := c.Next()
		if req.Op == protocol.OpPut && (prev.Op != protocol.OpGet || prev.Key != req.Key) {
			t.Fatalf("request %d: put %q after %v %q", i, req.Key, prev.Op, prev.Key)
		}
		prev = req
	}
}

// TestValues checks MakeValue and ValueID.
func TestValues(t *testing.T) {
	tests := []struct {
		id      string
		size    int
		wantLen int
	}{
		{"c3-7", 200, 200},
		{"c3-7", 0, 5},
		{"c3-7", 5, 5},
		{"c3-7", 6, 6},
		{"", 0, 1},
		{"a-very-long-session-name-12345", 8, 31},
	}
	for _, tt := range tests {
		v := MakeValue(tt.id, tt.size)
		if len(v) != tt.wantLen {
			t.Errorf("len(MakeValue(%q, %d)) = %d, want %d", tt.id, tt.size, len(v), tt.wantLen)
		}
		if got := ValueID(v); got != tt.id {
			t.Errorf("ValueID(MakeValue(%q, %d)) = %q", tt.id, tt.size, got)
		}
		if !bytes.HasPrefix(v, []byte(tt.id+"#")) {
			t.Errorf("MakeValue(%q, %d) = %q lacks prefix", tt.id, tt.size, v)
		}
	}
	if got := ValueID([]byte("plain")); got != "plain" {
		t.Errorf("ValueID(plain) = %q", got)
	}
	if got := ValueID(nil); got != "" {
		t.Errorf("ValueID(nil) = %q", got)
	}
	if got := ValueID([]byte("a#b#c")); got != "a" {
		t.Errorf("ValueID(a#b#c) = %q", got)
	}
}

// TestKey checks key formatting.
func TestKey(t *testing.T) {
	for i, want := range map[int64]string{
		0: "user00000000", 42: "user00000042", 10000: "user00010000", 123456789: "user123456789",
	} {
		if got := Key(i); got != want {
			t.Errorf("Key(%d) = %q, want %q", i, got, want)
		}
	}
}

// TestLookup checks presets, ycsb-R-W parsing and errors.
func TestLookup(t *testing.T) {
	tests := []struct {
		name           string
		ok             bool
		read, update   float64
		insert, rmw    float64
		dist, wantName string
	}{
		{name: "ycsb-a", ok: true, read: 0.5, update: 0.5, dist: DistZipfian},
		{name: "ycsb-b", ok: true, read: 0.95, update: 0.05, dist: DistZipfian},
		{name: "ycsb-c", ok: true, read: 1, dist: DistZipfian},
		{name: "ycsb-d", ok: true, read: 0.95, insert: 0.05, dist: DistLatest},
		{name: "ycsb-f", ok: true, read: 0.5, rmw: 0.5, dist: DistZipfian},
		{name: "ycsb-95-5", ok: true, read: 0.95, update: 0.05, dist: DistZipfian},
		{name: "ycsb-80-20", ok: true, read: 0.8, update: 0.2, dist: DistZipfian},
		{name: "ycsb-50-50", ok: true, read: 0.5, update: 0.5, dist: DistZipfian},
		{name: "ycsb-100-0", ok: true, read: 1, dist: DistZipfian},
		{name: "ycsb-0-100", ok: true, update: 1, dist: DistZipfian},
		{name: "ycsb-099-1", ok: true, read: 0.99, update: 0.01, dist: DistZipfian, wantName: "ycsb-99-1"},
		{name: "ycsb-90-20"},
		{name: "ycsb-x-y"},
		{name: "ycsb-90"},
		{name: "ycsb-90-10-0"},
		{name: "ycsb--10-110"},
		{name: "ycsb-+90-10"},
		{name: "ycsb-90-"},
		{name: "ycsb-e"},
		{name: "YCSB-A"},
		{name: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Lookup(tt.name)
			if !tt.ok {
				if err == nil {
					t.Fatalf("Lookup(%q) succeeded: %+v", tt.name, w)
				}
				for _, n := range Names() {
					if !strings.Contains(err.Error(), n) {
						t.Errorf("error %q does not list %q", err, n)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantName := tt.wantName
			if wantName == "" {
				wantName = tt.name
			}
			if w.Name != wantName || w.Summary == "" || w.RecordCount != DefaultRecordCount ||
				w.ValueSize != DefaultValueSize || w.Distribution != tt.dist ||
				w.ReadProportion != tt.read || w.UpdateProportion != tt.update ||
				w.InsertProportion != tt.insert || w.ReadModifyWriteProportion != tt.rmw ||
				w.ReadTxnProportion != 0 || w.WriteTxnProportion != 0 {
				t.Errorf("Lookup(%q) = %+v", tt.name, w)
			}
			if err := w.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
	names := Names()
	if !slices.IsSorted(names) || len(names) != 13+5+len(CRSingleObjectMixes)+len(CRTxnMixes) { // + chainreaction.go's
		t.Errorf("Names() = %v", names)
	}
	for _, n := range names {
		if w := mustLookup(t, n); w.Name != n {
			t.Errorf("preset %q has Name %q", n, w.Name)
		}
	}
}

// TestValidate checks that Validate rejects broken workloads.
func TestValidate(t *testing.T) {
	base := mustLookup(t, "ycsb-a")
	tests := []struct {
		name   string
		modify func(*Workload)
	}{
		{"no records", func(w *Workload) { w.RecordCount = 0 }},
		{"negative size", func(w *Workload) { w.ValueSize = -1 }},
		{"sum low", func(w *Workload) { w.UpdateProportion = 0.4 }},
		{"sum high", func(w *Workload) { w.InsertProportion = 0.1 }},
		{"negative", func(w *Workload) { w.ReadProportion, w.UpdateProportion = 1.5, -0.5 }},
		{"no distribution", func(w *Workload) { w.Distribution = "" }},
		{"bad distribution", func(w *Workload) { w.Distribution = "hotspot" }},
		{"txn no keys", func(w *Workload) { w.ReadProportion, w.ReadTxnProportion, w.TxnKeys = 0.4, 0.1, 0 }},
		{"txn too many keys", func(w *Workload) {
			w.ReadProportion, w.WriteTxnProportion, w.TxnKeys = 0.4, 0.1, w.RecordCount+1
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := base
			tt.modify(&w)
			if err := w.Validate(); err == nil {
				t.Errorf("Validate accepted %+v", w)
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Errorf("NewClient accepted a session containing '#'")
		}
	}()
	base.NewClient("bad#session", newRand(1))
}

// TestHash64 checks the inlined FNV-1a against hash/fnv.
func TestHash64(t *testing.T) {
	r := newRand(21)
	for i := range 1000 {
		n := int64(i)
		if i >= 500 {
			n = int64(r.Uint64())
		}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(n))
		h := fnv.New64a()
		h.Write(b[:])
		want := int64(h.Sum64())
		if want < 0 {
			want = -want
		}
		if got := hash64(n); got != want {
			t.Fatalf("hash64(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestCounter checks the counter's sequence and Last.
func TestCounter(t *testing.T) {
	c := NewCounter(5)
	if c.Last() != 4 {
		t.Errorf("Last before Next = %d, want 4", c.Last())
	}
	for want := int64(5); want < 10; want++ {
		if got := c.Next(nil); got != want {
			t.Errorf("Next = %d, want %d", got, want)
		}
		if c.Last() != want {
			t.Errorf("Last = %d, want %d", c.Last(), want)
		}
	}
}

// TestZeta checks the zeta sum against known values.
func TestZeta(t *testing.T) {
	if got := zetaStatic(0, 1, ZipfianConstant, 0); got != 1 {
		t.Errorf("zeta(1) = %v", got)
	}
	full := zetaStatic(0, 1000, ZipfianConstant, 0)
	incr := zetaStatic(500, 1000, ZipfianConstant, zetaStatic(0, 500, ZipfianConstant, 0))
	if d := full - incr; d > 1e-9 || d < -1e-9 {
		t.Errorf("incremental zeta %v != %v", incr, full)
	}
	// Growing a zipfian's item count must match building it at that size.
	r1, r2 := newRand(3), newRand(3)
	grown := NewZipfian(0, 99)
	fresh := NewZipfian(0, 199)
	for range 1000 {
		if a, b := grown.next(r1, 200), fresh.Next(r2); a != b {
			t.Fatalf("grown zipfian gave %d, fresh %d", a, b)
		}
	}
}

// BenchmarkClientNext measures request generation.
func BenchmarkClientNext(b *testing.B) {
	for _, name := range []string{"ycsb-a", "ycsb-c", "ycsb-d", "ycsb-f"} {
		b.Run(name, func(b *testing.B) {
			w := mustLookup(b, name)
			c := w.NewClient("bench", newRand(1))
			b.ReportAllocs()
			for b.Loop() {
				_ = c.Next()
			}
		})
	}
}

// TestScrambledZipfianPopularityMatchesDraws checks the law Popularity
// states against the generator: the probabilities sum to one, and the
// most popular keys are drawn about as often as it says.
func TestScrambledZipfianPopularityMatchesDraws(t *testing.T) {
	const records, draws = 1000, 400000
	g := NewScrambledZipfian(0, records-1)
	p, tail := g.Popularity(1 << 16)
	sum := tail
	for _, v := range p {
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("probabilities sum to %v", sum)
	}
	r := newRand(3)
	counts := map[int64]int{}
	for range draws {
		counts[g.Next(r)]++
	}
	// The three most popular keys by the law (tail spread evenly).
	keys := make([]int64, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b int64) int { return cmp.Compare(p[b], p[a]) })
	for _, k := range keys[:3] {
		want := p[k] + tail/records
		got := float64(counts[k]) / draws
		if math.Abs(got-want) > 0.1*want {
			t.Errorf("key %d drawn %.4f of the time, law says %.4f", k, got, want)
		}
	}
}

// TestK2Workloads checks K2's presets against k2.txt §VII-B: 1M keys,
// 128 B values, 5 keys per operation, zipf 1.2, reads as read_txn, and
// the write mixes (k2-default: 1%, half write_txn; k2-tao: 0.2%, no
// write_txn).
func TestK2Workloads(t *testing.T) {
	for _, tt := range []struct {
		name       string
		puts, wtxn float64
		updateKeys int
	}{{"k2-default", 0.005, 0.005, 5}, {"k2-tao", 0.002, 0, 1}} {
		w := mustLookup(t, tt.name)
		if w.RecordCount != 1_000_000 || w.ValueSize != 128 || w.TxnKeys != 5 || w.ZipfConstant != 1.2 ||
			w.UpdateKeys != tt.updateKeys ||
			w.ReadProportion != 0 || w.UpdateProportion != tt.puts || w.WriteTxnProportion != tt.wtxn ||
			math.Abs(w.ReadTxnProportion+tt.puts+tt.wtxn-1) > 1e-12 {
			t.Errorf("%s = %+v", tt.name, w)
		}
		if err := w.Validate(); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// TestUpdateBatches: with UpdateKeys 5 every update is five consecutive
// single-key puts of distinct keys, each with its own fresh value, in
// the order of their value IDs, and reads are never interleaved into a
// batch.
func TestUpdateBatches(t *testing.T) {
	w := Workload{Name: "b", RecordCount: 20, ValueSize: 16, Distribution: DistZipf, ZipfConstant: 1.2,
		UpdateProportion: 0.3, ReadProportion: 0.7, UpdateKeys: 5}
	c := w.NewClient("s", newRand(3))
	batches, seq := 0, uint64(0)
	for i := 0; i < 2000; i++ {
		r := c.Next()
		if r.Op != protocol.OpPut {
			continue
		}
		batches++
		keys := map[string]bool{}
		for j := 0; ; j++ {
			id, _, _ := strings.Cut(string(r.Value), "#")
			n, err := strconv.ParseUint(strings.TrimPrefix(id, "s-"), 10, 64)
			if err != nil || n != seq+1 {
				t.Fatalf("put %d of batch %d has value ID %q, want s-%d", j, batches, id, seq+1)
			}
			seq = n
			if keys[r.Key] {
				t.Fatalf("batch %d writes %s twice", batches, r.Key)
			}
			keys[r.Key] = true
			if j == 4 {
				break
			}
			r = c.Next()
			if r.Op != protocol.OpPut {
				t.Fatalf("batch %d: request %d is %v, want the batch's next put", batches, j+1, r.Op)
			}
		}
	}
	if batches < 400 {
		t.Errorf("%d batches in 2000 requests, want about 30%% of the operations", batches)
	}
	w.UpdateKeys = 21
	if err := w.Validate(); err == nil {
		t.Error("UpdateKeys above RecordCount validated")
	}
}

// TestZipfKeepsItsSkewBelowOne: K2's zipf 0.9 (k2.txt Fig. 8e) over
// 100,000 keys puts about 63% of the draws on the hottest 5% of the keys
// (H(5000, 0.9) / H(100000, 0.9); DistZipf's hottest are Key(0) up),
// where YCSB's scrambled zipfian over ten billion ranks leaves most draws
// spread evenly: its 5% most drawn keys take well under half.
func TestZipfKeepsItsSkewBelowOne(t *testing.T) {
	const n, records = 40000, 100_000
	draw := func(dist string) map[int64]int {
		w := Workload{Name: "z", RecordCount: records, ValueSize: 4, Distribution: dist, ZipfConstant: 0.9, ReadProportion: 1}
		c := w.NewClient("c", newRand(5))
		counts := map[int64]int{}
		for range n {
			counts[keyIndex(t, c.Next().Key)]++
		}
		return counts
	}
	head := 0
	for k, c := range draw(DistZipf) {
		if k < records/20 {
			head += c
		}
	}
	if share := float64(head) / n; share < 0.60 || share > 0.66 {
		t.Errorf("zipf: keys 0..4999 take %.3f of the draws, want 0.63 ± 0.03", share)
	}
	if share := topShare(draw(DistZipfian), records, 0.05, n); share > 0.4 {
		t.Errorf("zipfian: its top 5%% take %.3f of the draws, want under 0.4 (scrambled)", share)
	}
}
