package workload

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWarmOrderListsKeysByLastRead: WarmOrder lists every key its reads
// drew once, in the order of each key's last draw (replayed here from the
// same seed), and its indexes name the keys Dataset.Key names.
func TestWarmOrderListsKeysByLastRead(t *testing.T) {
	w, err := Lookup("k2-default")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 1000
	const reads = 300
	got := w.WarmOrder(reads, rand.New(rand.NewPCG(1, 2)))
	c := w.NewClient("warm", rand.New(rand.NewPCG(1, 2)))
	var draws []int64
	for range reads {
		draws = append(draws, c.distinctKeys(c.txnKeys())...)
	}
	var want []int64 // distinct, by last draw
	for i, k := range draws {
		if !slices.Contains(draws[i+1:], k) {
			want = append(want, k)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("WarmOrder gave %d keys %v…, want %d %v…", len(got), got[:5], len(want), want[:5])
	}
	d := w.Dataset()
	for _, i := range []int64{0, 7, 999} {
		if d.Key(i) != Key(i) {
			t.Errorf("Dataset.Key(%d) = %q, Key = %q", i, d.Key(i), Key(i))
		}
	}
}
