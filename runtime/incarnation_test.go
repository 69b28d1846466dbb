package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/causeway/causeway/storage"
)

// TestNextIncarnationCountsStartsAcrossCrashes: 1 on an empty engine, one
// more at each start, and a count survives a crash (it is synced).
func TestNextIncarnationCountsStartsAcrossCrashes(t *testing.T) {
	eng := storage.NewMem()
	rng := rand.New(rand.NewPCG(1, 1))
	for want := uint64(1); want <= 3; want++ {
		got, err := NextIncarnation(eng)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("start %d: incarnation %d", want, got)
		}
		// An unsynced protocol write after the start may be lost; the
		// count is not.
		if err := eng.Apply([]storage.Write{{Kind: storage.Put, Key: "x", Version: want}}, false); err != nil {
			t.Fatal(err)
		}
		eng.Crash(rng)
	}
}
