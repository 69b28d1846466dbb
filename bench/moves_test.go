package bench_test

import (
	"testing"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
)

// TestRandomMovesStayCausal: sessions of every protocol with tokens that
// carry causal context (cops, chainreaction, cr-cops) moving by token
// between DCs at random, under jitter and a partition, never break
// causal+; the same runs with moves that carry nothing (a fresh session in
// the new DC) do, so the test can tell a correct move from a broken one.
func TestRandomMovesStayCausal(t *testing.T) {
	for _, name := range []string{"cops", "chainreaction", "cr-cops"} {
		t.Run(name, func(t *testing.T) {
			p, err := protocol.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			broken := 0
			for seed := uint64(1); seed <= 4; seed++ {
				res, err := bench.RandomMoves(p, seed, true)
				if err != nil {
					t.Fatal(err)
				}
				if !res.OK {
					t.Errorf("seed %d: moving by token broke causal+: %+v", seed, res.Violations)
				}
				if res, err = bench.RandomMoves(p, seed, false); err != nil {
					t.Fatal(err)
				} else if !res.OK {
					broken++
				}
			}
			t.Logf("moves without a token broke causal+ in %d of 4 seeds", broken)
			if broken == 0 {
				t.Error("moves without a token never broke causal+: the test cannot tell a correct move from a broken one")
			}
		})
	}
}
