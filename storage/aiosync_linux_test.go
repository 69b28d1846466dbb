//go:build linux && (amd64 || arm64)

package storage

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"unsafe"
)

func TestAIOSyncer(t *testing.T) {
	if n, m := unsafe.Sizeof(iocb{}), unsafe.Sizeof(ioEvent{}); n != 64 || m != 32 {
		t.Fatalf("struct iocb is %d bytes and struct io_event %d, want 64 and 32", n, m)
	}
	s, err := newAIOSyncer()
	if err != nil {
		t.Skipf("no AIO here: %v", err)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	for _, full := range []bool{false, true} {
		if err := s.sync(f.Fd(), full); err != nil {
			t.Fatalf("sync(full=%v): %v", full, err)
		}
	}
	// Many at once, more than the context's events: each gets its own
	// result.
	var wg sync.WaitGroup
	errs := make(chan error, 8*40)
	for range 8 {
		wg.Go(func() {
			for range 40 {
				errs <- s.sync(f.Fd(), false)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A pipe cannot be synced: the error comes back.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := s.sync(w.Fd(), false); err == nil {
		t.Error("sync of a pipe succeeded")
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
}

// TestPebbleSyncsThroughAIO checks that a store on the real disk syncs its
// write-ahead log through AIO.
func TestPebbleSyncsThroughAIO(t *testing.T) {
	s, err := newAIOSyncer()
	if err != nil {
		t.Skipf("no AIO here: %v", err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	p, err := OpenPebble(t.TempDir(), PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	before := aioSyncs.Load()
	if err := p.Apply([]Write{{Kind: Put, Key: "k", Version: 1, Value: []byte("v")}}, true); err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(nil, true); err != nil {
		t.Fatal(err)
	}
	if n := aioSyncs.Load() - before; n < 2 {
		t.Errorf("%d syncs through AIO for two synced Applies, want at least 2", n)
	}
}
