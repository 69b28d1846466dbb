package check

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/causeway/causeway/history"
)

// genSC generates a history of a sequentially consistent single-copy store:
// one operation at a time, from a random session, against one map. It is
// causal+ by construction. A few puts fail (half of them take effect
// anyway) and a few gets fail.
func genSC(n, sessions, keys int, seed uint64) *history.History {
	ops := make([]history.Op, 0, n)
	genSCEach(n, sessions, keys, seed, func(op history.Op) { ops = append(ops, op) })
	return &history.History{Ops: ops}
}

// genSCEach is genSC handing each operation to emit instead of keeping
// it, so that a large history can be streamed to a file.
func genSCEach(n, sessions, keys int, seed uint64, emit func(history.Op)) {
	rng := rand.New(rand.NewPCG(seed, 42))
	store := make([]*string, keys)
	keyNames := make([]string, keys)
	for i := range keyNames {
		keyNames[i] = "k" + strconv.Itoa(i)
	}
	sessNames := make([]string, sessions)
	counter := make([]int, sessions)
	for i := range sessNames {
		sessNames[i] = "c" + strconv.Itoa(i)
	}
	dcs := []string{"dc0", "dc1", "dc2", "dc3"}
	no := false
	t := 0.0
	newVal := func(s int) string {
		counter[s]++
		return sessNames[s] + "-" + strconv.Itoa(counter[s])
	}
	for range n {
		s := rng.IntN(sessions)
		op := history.Op{Session: sessNames[s], DC: dcs[s%len(dcs)], StartMs: t, EndMs: t + 0.5}
		t += 0.01
		k := rng.IntN(keys)
		switch p := rng.IntN(1000); {
		case p < 450:
			op.Op, op.Key, op.Value = history.Get, keyNames[k], store[k]
			if p < 3 {
				op.OK, op.Value = &no, nil
			}
		case p < 850:
			v := newVal(s)
			op.Op, op.Key, op.Value = history.Put, keyNames[k], &v
			if p < 460 {
				op.OK = &no
				if p < 455 {
					store[k] = &v // failed, but took effect
				}
			} else {
				store[k] = &v
			}
		case p < 925:
			op.Op, op.Reads = history.ReadTxn, map[string]*string{}
			for range 3 {
				k := rng.IntN(keys)
				op.Reads[keyNames[k]] = store[k]
			}
		default:
			op.Op, op.Writes = history.WriteTxn, map[string]string{}
			for range 3 {
				k := rng.IntN(keys)
				if _, dup := op.Writes[keyNames[k]]; dup {
					continue
				}
				v := newVal(s)
				op.Writes[keyNames[k]] = v
				store[k] = &v
			}
		}
		emit(op)
	}
}

func TestGeneratedHistory(t *testing.T) {
	n := 200_000
	if raceEnabled || testing.Short() {
		n = 50_000
	}
	gen := genSC(n, 64, 2_000, 1)
	var buf bytes.Buffer
	w := history.NewWriter(&buf)
	for _, op := range gen.Ops {
		if err := w.Write(op); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	h, err := history.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	res := Check(h, Options{})
	if !res.OK {
		var b bytes.Buffer
		Explain(&b, res)
		t.Fatalf("generated causal history fails:\n%s", b.String())
	}
	if res.Operations != n {
		t.Errorf("Operations = %d, want %d", res.Operations, n)
	}

	// Inject a stale read: a get, late in the history, of a key its
	// session wrote before, now returning the initial state.
	wrote := map[[2]string]bool{}
	inject := -1
	for i, op := range h.Ops {
		if op.Failed() {
			continue
		}
		if op.Op == history.Put {
			wrote[[2]string{op.Session, op.Key}] = true
		}
		if op.Op == history.Get && i > n/2 && wrote[[2]string{op.Session, op.Key}] {
			inject = i
			break
		}
	}
	if inject < 0 {
		t.Fatal("no get to inject into")
	}
	h.Ops[inject].Value = nil
	res = Check(h, Options{})
	if res.OK || res.Total != 1 || res.Violations[0].Rule != RuleStaleRead {
		t.Fatalf("injected stale read: got %+v", res)
	}
	v := res.Violations[0]
	if v.Ops[len(v.Ops)-1] != inject+1 {
		t.Errorf("violation lines %v do not end at the injected line %d", v.Ops, inject+1)
	}
	t.Logf("%s", v.Explanation)
}

// BenchmarkCheck1M checks a 1,000,000-operation history over 64 sessions
// and 10,000 keys.
func BenchmarkCheck1M(b *testing.B) {
	const n = 1_000_000
	h := genSC(n, 64, 10_000, 7)
	b.ResetTimer()
	for b.Loop() {
		if res := Check(h, Options{}); !res.OK {
			b.Fatalf("not OK: %s", Summary(res))
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
