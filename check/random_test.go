package check

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/causeway/causeway/history"
)

var update = flag.Bool("update", false, "rewrite testdata/random.golden from this checker's results")

// TestRandomHistoriesGolden checks 500 random histories (opsFromBytes, 2
// to 7 sessions, 20 to 800 operations: every rule broken, failed writes
// read back) and compares each verdict, and a digest of the whole
// results (explanations, events and edges included), with
// testdata/random.golden. It pins what the checker finds while its
// algorithm changes for speed; rewrite the file with -update only for a
// change meant to alter the results.
func TestRandomHistoriesGolden(t *testing.T) {
	var got, all bytes.Buffer
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 7))
		b := make([]byte, 4*(20+r.IntN(780)))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		res := Check(&history.History{Ops: opsFromBytes(b, 2+int(seed%6))}, Options{})
		j, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(j)
		fmt.Fprintf(&got, "%d %s\n", seed, Summary(res))
	}
	fmt.Fprintf(&got, "digest %x\n", sha256.Sum256(all.Bytes()))
	path := filepath.Join("testdata", "random.golden")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		gl, wl := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(gl), len(wl)) {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("line %d of %s:\n got %s\nwant %s", i+1, path, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs (%d lines, want %d)", path, len(gl), len(wl))
	}
}
