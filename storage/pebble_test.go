package storage_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/storage/enginetest"
)

func openPebble(tb testing.TB, dir string, fs vfs.FS) *storage.Pebble {
	tb.Helper()
	p, err := storage.OpenPebble(dir, storage.PebbleOptions{FS: fs})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func TestPebbleConformance(t *testing.T) {
	t.Run("MemFS", func(t *testing.T) {
		enginetest.Run(t, func(t *testing.T) storage.Engine { return openPebble(t, "db", vfs.NewMem()) })
	})
	t.Run("Disk", func(t *testing.T) {
		enginetest.Run(t, func(t *testing.T) storage.Engine { return openPebble(t, t.TempDir(), nil) })
	})
}

// TestPebbleKnownVersions checks the versions Pebble remembers per key
// (so that a DeleteBelow need not read them) against a model: few keys,
// many versions each, long batches mixing puts of old and new versions,
// DeleteBelows and Deletes (so that a key's versions overflow what it
// remembers within a batch), and batches rejected for an unknown kind
// (whose writes must be forgotten), every version of every key checked
// after each batch.
func TestPebbleKnownVersions(t *testing.T) {
	p := openPebble(t, "db", vfs.NewMem())
	defer p.Close()
	rng := rand.New(rand.NewPCG(3, 9))
	keys := []string{"d/a", "d/b", "t/1"}
	const versions = 8
	model := enginetest.Model{}
	for step := range 3000 {
		var ws []storage.Write
		for n := 1 + rng.IntN(6); n > 0; n-- {
			w := storage.Write{Key: keys[rng.IntN(len(keys))], Version: storage.Version(rng.IntN(versions))}
			switch r := rng.IntN(20); {
			case r < 11:
				w.Kind, w.Value = storage.Put, []byte(fmt.Sprint(step))
			case r < 16:
				w.Kind = storage.DeleteBelow
			case r < 19:
				w.Kind = storage.DeleteVersion
			default:
				w.Kind = storage.Delete
			}
			ws = append(ws, w)
		}
		reject := rng.IntN(10) == 0
		if reject {
			ws = append(ws, storage.Write{Kind: storage.DeleteVersion + 1, Key: keys[0]})
		}
		err := p.Apply(ws, false)
		if reject {
			if err == nil {
				t.Fatalf("step %d: batch with an unknown kind applied", step)
			}
		} else {
			if err != nil {
				t.Fatal(err)
			}
			model.Apply(ws)
		}
		for _, k := range keys {
			for at := range storage.Version(versions) {
				want, found := model.GetAt(k, at)
				got, ok, err := p.GetAt(k, at)
				if err != nil {
					t.Fatal(err)
				}
				if ok != found || (found && (got.Version != want.Version || string(got.Value) != string(want.Value))) {
					t.Fatalf("step %d (%v): GetAt(%q, %d) = %v %v, want version %d %v", step, ws, k, at, got, ok, want.Version, found)
				}
			}
		}
	}
}

func TestPebbleReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	p := openPebble(t, dir, nil)
	if err := p.Apply([]storage.Write{
		{Kind: storage.Put, Key: "a", Version: 1, Value: []byte("a1")},
		{Kind: storage.Put, Key: "a", Version: 2, Value: []byte("a2")},
		{Kind: storage.Put, Key: "b", Version: 1, Value: []byte("b1")},
		{Kind: storage.DeleteBelow, Key: "a", Version: 2},
	}, true); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	p = openPebble(t, dir, nil)
	defer p.Close()
	if r, found, err := p.Get("a"); err != nil || !found || r.Version != 2 || string(r.Value) != "a2" {
		t.Errorf("Get(a) after reopen = %v, %v, %v", r, found, err)
	}
	if _, found, err := p.GetAt("a", 1); err != nil || found {
		t.Errorf("GetAt(a, 1) after reopen = %v, %v; want not found", found, err)
	}
	if r, found, err := p.Get("b"); err != nil || !found || string(r.Value) != "b1" {
		t.Errorf("Get(b) after reopen = %v, %v, %v", r, found, err)
	}
}

func TestPebbleOpenError(t *testing.T) {
	fs := vfs.NewMem()
	f, err := fs.Create("file", vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := storage.OpenPebble("file", storage.PebbleOptions{FS: fs}); err == nil {
		t.Error("OpenPebble on a regular file succeeded")
	}
}

// TestPebbleCrash applies synced and then unsynced writes, crashes the
// filesystem, reopens the store on what survived and checks that every
// synced write is there and that the unsynced batches that survived are a
// prefix of those applied.
func TestPebbleCrash(t *testing.T) {
	var lost, kept int
	for seed := uint64(0); seed < 12; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		fs := vfs.NewCrashableMem()
		p := openPebble(t, "db", fs)
		const synced, unsynced = 20, 20
		for i := range synced {
			ws := []storage.Write{
				{Kind: storage.Put, Key: fmt.Sprintf("s/%03d", i), Version: 1, Value: []byte("old")},
				{Kind: storage.Put, Key: fmt.Sprintf("s/%03d", i), Version: 2, Value: []byte(fmt.Sprint("synced", i))},
				{Kind: storage.Put, Key: fmt.Sprintf("t/%03d", i), Version: 1, Value: []byte("doomed")},
			}
			if i > 0 {
				ws = append(ws,
					storage.Write{Kind: storage.DeleteBelow, Key: fmt.Sprintf("s/%03d", i-1), Version: 2},
					storage.Write{Kind: storage.Delete, Key: fmt.Sprintf("t/%03d", i-1)})
			}
			// Only some synced batches sync; the last one makes all durable.
			if err := p.Apply(ws, i%3 == 0 || i == synced-1); err != nil {
				t.Fatal(err)
			}
		}
		for i := range unsynced {
			if err := p.Apply([]storage.Write{
				{Kind: storage.Put, Key: fmt.Sprintf("u/%03d", i), Version: 1, Value: []byte(fmt.Sprint("unsynced", i))},
				// Large enough to fill WAL blocks, which Pebble writes out
				// (without syncing) as they fill.
				{Kind: storage.Put, Key: fmt.Sprintf("u/%03d", i), Version: 2, Value: bytes.Repeat([]byte{byte(i)}, 8<<10)},
			}, false); err != nil {
				t.Fatal(err)
			}
		}
		percent := []int{0, 50, 100}[seed%3]
		crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: percent, RNG: rng})
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}

		p = openPebble(t, "db", crashed)
		for i := range synced {
			k := fmt.Sprintf("s/%03d", i)
			if r, found, err := p.Get(k); err != nil || !found || r.Version != 2 || string(r.Value) != fmt.Sprint("synced", i) {
				t.Fatalf("seed %d: synced write %s lost: %v, %v, %v", seed, k, r, found, err)
			}
			_, found, err := p.GetAt(k, 1)
			if err != nil || found != (i == synced-1) {
				t.Fatalf("seed %d: GetAt(%s, 1) found = %v, %v", seed, k, found, err)
			}
			_, found, err = p.Get(fmt.Sprintf("t/%03d", i))
			if err != nil || found != (i == synced-1) {
				t.Fatalf("seed %d: t/%03d found = %v, %v", seed, i, found, err)
			}
		}
		n := 0
		if err := p.Scan("u/", func(r storage.Record) error {
			if want := fmt.Sprintf("u/%03d", n); r.Key != want || r.Version != 2 {
				return fmt.Errorf("surviving unsynced writes are not a prefix: got %s@%d, want %s@2", r.Key, r.Version, want)
			}
			n++
			return nil
		}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		t.Logf("seed %d, %d%% of unsynced data kept by the crash: %d/%d unsynced batches survived", seed, percent, n, unsynced)
		if percent == 0 && n != 0 {
			t.Errorf("seed %d: %d unsynced batches survived a crash that kept no unsynced data", seed, n)
		}
		if n < unsynced {
			lost++
		}
		if n > 0 {
			kept++
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Whether unsynced batches reach the crashable filesystem before the
	// crash depends on Pebble's asynchronous WAL flushing, so only losses
	// are guaranteed (by the 0% crashes).
	t.Logf("unsynced writes lost in %d crashes, some kept in %d", lost, kept)
	if lost == 0 {
		t.Errorf("no crash lost unsynced writes")
	}
}

// TestPebbleEmptySyncMakesEarlierWritesDurable applies unsynced writes,
// then Apply(nil, true), and crashes keeping no unsynced data: every write
// must survive (the node host's group commit syncs this way).
func TestPebbleEmptySyncMakesEarlierWritesDurable(t *testing.T) {
	fs := vfs.NewCrashableMem()
	p := openPebble(t, "db", fs)
	const n = 10
	for i := range n {
		if err := p.Apply([]storage.Write{{Kind: storage.Put, Key: fmt.Sprintf("k/%02d", i), Version: 1, Value: []byte("v")}}, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Apply(nil, true); err != nil {
		t.Fatal(err)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	p = openPebble(t, "db", crashed)
	defer p.Close()
	for i := range n {
		if _, found, err := p.Get(fmt.Sprintf("k/%02d", i)); err != nil || !found {
			t.Fatalf("write k/%02d applied before Apply(nil, true) lost by the crash: found %v, err %v", i, found, err)
		}
	}
}

func BenchmarkPebbleApply(b *testing.B) {
	p := openPebble(b, "db", vfs.NewMem())
	defer p.Close()
	value := make([]byte, 100)
	ws := make([]storage.Write, 2)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := fmt.Sprintf("key/%04d", i%1024)
		v := storage.Version(i)
		ws[0] = storage.Write{Kind: storage.Put, Key: k, Version: v, Value: value}
		ws[1] = storage.Write{Kind: storage.DeleteBelow, Key: k, Version: v}
		if err := p.Apply(ws, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPebbleApplyHotKey writes one key again and again, as a cops
// server writes its stored frontier (a t/ record, a Put and a DeleteBelow
// per pruning): the key's deleted versions pile up in the memtable.
func BenchmarkPebbleApplyHotKey(b *testing.B) {
	p := openPebble(b, "db", vfs.NewMem())
	defer p.Close()
	ws := make([]storage.Write, 2)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		v := storage.Version(i + 1)
		ws[0] = storage.Write{Kind: storage.Put, Key: "t/1", Version: v}
		ws[1] = storage.Write{Kind: storage.DeleteBelow, Key: "t/1", Version: v}
		if err := p.Apply(ws, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPebbleGet(b *testing.B) {
	p := openPebble(b, "db", vfs.NewMem())
	defer p.Close()
	const keys = 10000
	value := make([]byte, 100)
	var ws []storage.Write
	for i := range keys {
		k := fmt.Sprintf("key/%05d", i)
		ws = append(ws,
			storage.Write{Kind: storage.Put, Key: k, Version: 1, Value: value},
			storage.Write{Kind: storage.Put, Key: k, Version: 2, Value: value})
	}
	if err := p.Apply(ws, false); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		if _, found, err := p.Get(fmt.Sprintf("key/%05d", rng.IntN(keys))); err != nil || !found {
			b.Fatal(found, err)
		}
	}
}

// BenchmarkPebbleGetAfterReplicatedWrites reads keys that 100,000
// replicated writes (each a Put and a DeleteBelow of the key's older
// versions, as a server commits them) have left behind: what every
// deletion's tombstones cost later reads.
func BenchmarkPebbleGetAfterReplicatedWrites(b *testing.B) {
	p := openPebble(b, "db", vfs.NewMem())
	defer p.Close()
	const keys = 1024
	value := make([]byte, 100)
	ws := make([]storage.Write, 2)
	for i := range 100000 {
		k := fmt.Sprintf("key/%04d", i%keys)
		v := storage.Version(i + 1)
		ws[0] = storage.Write{Kind: storage.Put, Key: k, Version: v, Value: value}
		ws[1] = storage.Write{Kind: storage.DeleteBelow, Key: k, Version: v}
		if err := p.Apply(ws, false); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		if _, found, err := p.Get(fmt.Sprintf("key/%04d", rng.IntN(keys))); err != nil || !found {
			b.Fatal(found, err)
		}
	}
}

// BenchmarkPebbleServerWrites applies a cops server's writes, one Apply
// per protocol step: a put (its value, the DeleteBelow of the key's older
// versions and its outgoing-replication record), and, a few steps later,
// the record's deletion once every replica has acknowledged it (Delete,
// which reads the key, or DeleteVersion, which does not: fullrep's). Each
// deletion must not make the next step's DeleteBelow slower (as range
// deletions in the memtable did: every one re-fragmented them all).
func BenchmarkPebbleServerWrites(b *testing.B) {
	for _, kind := range []storage.WriteKind{storage.Delete, storage.DeleteVersion} {
		name := map[storage.WriteKind]string{storage.Delete: "Delete", storage.DeleteVersion: "DeleteVersion"}[kind]
		b.Run(name, func(b *testing.B) { benchServerWrites(b, kind) })
	}
}

func benchServerWrites(b *testing.B, kind storage.WriteKind) {
	p := openPebble(b, "db", vfs.NewMem())
	defer p.Close()
	const keys, lag = 1024, 8
	value := make([]byte, 200)
	put := make([]storage.Write, 3)
	del := make([]storage.Write, 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := fmt.Sprintf("d/key%04d", i%keys)
		v := storage.Version(i + 1)
		put[0] = storage.Write{Kind: storage.Put, Key: k, Version: v, Value: value}
		put[1] = storage.Write{Kind: storage.DeleteBelow, Key: k, Version: v}
		put[2] = storage.Write{Kind: storage.Put, Key: fmt.Sprintf("r/%d", i), Value: value}
		if err := p.Apply(put, false); err != nil {
			b.Fatal(err)
		}
		if i >= lag {
			del[0] = storage.Write{Kind: kind, Key: fmt.Sprintf("r/%d", i-lag)}
			if err := p.Apply(del, false); err != nil {
				b.Fatal(err)
			}
		}
	}
}
