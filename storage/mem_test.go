package storage_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/storage/enginetest"
)

func TestMemConformance(t *testing.T) {
	enginetest.Run(t, func(t *testing.T) storage.Engine { return storage.NewMem() })
}

var (
	crashKeys     = []string{"a", "b", "c", "d", "a\x00", "ab"}
	crashVersions = storage.Version(8)
)

// matches reports whether r holds exactly s, checking every version of every
// key in crashKeys.
func matches(r storage.Reader, s enginetest.Model) (bool, error) {
	for _, k := range crashKeys {
		for v := storage.Version(0); v <= crashVersions; v++ {
			rec, found, err := r.GetAt(k, v)
			if err != nil {
				return false, err
			}
			// The newest version <= v in s.
			want, wantV, wantVal := false, storage.Version(0), ""
			for sv, val := range s[k] {
				if sv <= v && (!want || sv > wantV) {
					want, wantV, wantVal = true, sv, val
				}
			}
			if found != want {
				return false, nil
			}
			if found && (rec.Version != wantV || string(rec.Value) != wantVal) {
				return false, nil
			}
		}
	}
	var keys []string
	if err := r.Scan("", func(rec storage.Record) error {
		keys = append(keys, rec.Key)
		return nil
	}); err != nil {
		return false, err
	}
	var want []string
	for k := range s {
		want = append(want, k)
	}
	slices.Sort(want)
	return slices.Equal(keys, want), nil
}

func randomBatch(rng *rand.Rand, tag int) []storage.Write {
	var ws []storage.Write
	for n := 1 + rng.IntN(3); n > 0; n-- {
		w := storage.Write{Key: crashKeys[rng.IntN(len(crashKeys))], Version: storage.Version(rng.IntN(int(crashVersions) + 1))}
		switch r := rng.IntN(10); {
		case r < 7:
			w.Kind = storage.Put
			w.Value = []byte(fmt.Sprint("v", tag))
		case r < 8:
			w.Kind = storage.DeleteBelow
		case r < 9:
			w.Kind = storage.DeleteVersion
		default:
			w.Kind = storage.Delete
		}
		ws = append(ws, w)
	}
	return ws
}

// TestMemCrash checks that Crash keeps every synced write and exactly a
// prefix of the unsynced batches, and that the Mem stays usable.
func TestMemCrash(t *testing.T) {
	var crashes, someLost, someKept, allKept, noneKept int
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		m := storage.NewMem()
		durable := enginetest.Model{}
		var unsynced [][]storage.Write
		tag := 0
		for round := 0; round < 5; round++ {
			for n := rng.IntN(12); n > 0; n-- {
				tag++
				ws := randomBatch(rng, tag)
				sync := rng.IntN(4) == 0
				if err := m.Apply(ws, sync); err != nil {
					t.Fatal(err)
				}
				unsynced = append(unsynced, ws)
				if sync {
					for _, b := range unsynced {
						durable.Apply(b)
					}
					unsynced = nil
				}
			}
			if got := m.Unsynced(); got != len(unsynced) {
				t.Fatalf("seed %d: Unsynced() = %d, want %d", seed, got, len(unsynced))
			}
			if rng.IntN(3) == 0 {
				// The simulator may close the node before crashing it.
				if err := m.Close(); err != nil {
					t.Fatal(err)
				}
			}
			m.Crash(rng)
			crashes++
			// Find the prefix of unsynced batches that survived.
			s := durable.Clone()
			kept := -1
			for i := 0; i <= len(unsynced); i++ {
				if i > 0 {
					s.Apply(unsynced[i-1])
				}
				ok, err := matches(m, s)
				if err != nil {
					t.Fatalf("seed %d: after Crash: %v", seed, err)
				}
				if ok {
					kept = i
					durable = s
					break
				}
			}
			if kept < 0 {
				t.Fatalf("seed %d round %d: state after Crash is not the synced state plus a prefix of the %d unsynced batches",
					seed, round, len(unsynced))
			}
			if len(unsynced) > 0 {
				if kept < len(unsynced) {
					someLost++
				}
				if kept > 0 {
					someKept++
				}
				if kept == len(unsynced) {
					allKept++
				}
				if kept == 0 {
					noneKept++
				}
			}
			unsynced = nil
			if got := m.Unsynced(); got != 0 {
				t.Fatalf("Unsynced() after Crash = %d, want 0", got)
			}
		}
	}
	t.Logf("%d crashes: some unsynced lost %d, some kept %d, all kept %d, none kept %d",
		crashes, someLost, someKept, allKept, noneKept)
	if someLost == 0 || someKept == 0 || allKept == 0 || noneKept == 0 {
		t.Errorf("Crash outcomes not varied enough: lost=%d kept=%d all=%d none=%d", someLost, someKept, allKept, noneKept)
	}
}

// TestMemCrashKeepsSynced checks the simplest case directly: a synced write
// survives every crash, a later unsynced one sometimes does not.
func TestMemCrashKeepsSynced(t *testing.T) {
	lost, kept := 0, 0
	for seed := uint64(0); seed < 100; seed++ {
		m := storage.NewMem()
		if err := m.Apply([]storage.Write{{Kind: storage.Put, Key: "s", Version: 1, Value: []byte("synced")}}, true); err != nil {
			t.Fatal(err)
		}
		if err := m.Apply([]storage.Write{
			{Kind: storage.Put, Key: "u", Version: 1, Value: []byte("unsynced")},
			{Kind: storage.Delete, Key: "s"},
		}, false); err != nil {
			t.Fatal(err)
		}
		m.Crash(rand.New(rand.NewPCG(seed, 1)))
		_, uFound, err := m.Get("u")
		if err != nil {
			t.Fatal(err)
		}
		_, sFound, err := m.Get("s")
		if err != nil {
			t.Fatal(err)
		}
		// The unsynced batch is atomic: both of its writes or neither.
		if uFound == sFound {
			t.Fatalf("seed %d: batch applied partially: u found %v, s found %v", seed, uFound, sFound)
		}
		if uFound {
			kept++
		} else {
			lost++
		}
	}
	if lost == 0 || kept == 0 {
		t.Errorf("unsynced batch lost %d times, kept %d times; want both", lost, kept)
	}
}

func TestMemCrashAfterSyncLosesNothing(t *testing.T) {
	m := storage.NewMem()
	for i := range 10 {
		if err := m.Apply([]storage.Write{{Kind: storage.Put, Key: fmt.Sprint(i), Version: 1}}, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Apply(nil, true); err != nil {
		t.Fatal(err)
	}
	m.Crash(rand.New(rand.NewPCG(1, 1)))
	n := 0
	if err := m.Scan("", func(storage.Record) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Errorf("after sync and crash: %d keys, want 10", n)
	}
}

func TestMemConcurrent(t *testing.T) {
	m := storage.NewMem()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := []byte("value")
			for i := range 200 {
				k := fmt.Sprintf("k%d", i%10)
				if err := m.Apply([]storage.Write{{Kind: storage.Put, Key: k, Version: storage.Version(i), Value: buf}}, i%7 == 0); err != nil {
					t.Error(err)
					return
				}
				buf[0] = byte(g) // reusing the buffer must not race with m
				if _, _, err := m.Get(k); err != nil {
					t.Error(err)
					return
				}
				if err := m.Scan("k", func(storage.Record) error { return nil }); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(3, 3))
		for range 20 {
			m.Crash(rng)
		}
	}()
	wg.Wait()
}

func BenchmarkMemApply(b *testing.B) {
	m := storage.NewMem()
	value := make([]byte, 100)
	ws := make([]storage.Write, 2)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := fmt.Sprintf("key/%04d", i%1024)
		v := storage.Version(i)
		ws[0] = storage.Write{Kind: storage.Put, Key: k, Version: v, Value: value}
		ws[1] = storage.Write{Kind: storage.DeleteBelow, Key: k, Version: v}
		if err := m.Apply(ws, i%64 == 63); err != nil {
			b.Fatal(err)
		}
	}
}
