package chainreaction_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
)

// moveRun drives sessions of protocol name that move between DCs at
// random in a simulation on local3 with jitter and a partition, and
// returns the causal+ checker's verdict on the history. With tokens off
// a moving session is replaced by a fresh one in its new DC (under the
// same name in the history): the broken move the checker must catch.
func moveRun(t *testing.T, name string, seed uint64, tokens bool) check.Result {
	t.Helper()
	p, err := protocol.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sim.Config{Topology: topo, Protocol: p, Seed: seed, Jitter: 20 * time.Millisecond,
		OpTimeout: 2 * time.Second, Faults: faults.Schedule{
			{At: 2 * time.Second, Partition: [][]string{{"a"}, {"b", "c"}}},
			{At: 4 * time.Second, Heal: "all"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	dcs := topo.DCNames()
	keys := []string{"k0", "k1", "k2", "k3"}
	const sessions, opsEach = 6, 60
	var ops []history.Op
	for i := range sessions {
		user := fmt.Sprintf("u%d", i)
		id, err := s.AddSession(dcs[i%len(dcs)], user)
		if err != nil {
			t.Fatal(err)
		}
		moves, n := 0, 0
		var next func()
		next = func() {
			if n == opsEach {
				return
			}
			n++
			if rng.IntN(8) == 0 {
				moves++
				node := fmt.Sprintf("%s.%d", user, moves)
				dc := dcs[rng.IntN(len(dcs))]
				if tokens {
					token, err := s.SessionToken(id)
					if err != nil {
						t.Fatal(err)
					}
					if id, err = s.ResumeSession(dc, node, token); err != nil {
						t.Fatal(err)
					}
				} else if id, err = s.AddSession(dc, node); err != nil {
					t.Fatal(err)
				}
			}
			req := protocol.Request{Op: protocol.OpGet, Key: keys[rng.IntN(len(keys))]}
			if rng.IntN(2) == 0 {
				req = protocol.Request{Op: protocol.OpPut, Key: req.Key, Value: fmt.Appendf(nil, "%s-%d", user, n)}
			}
			start := s.Now()
			if err := s.Submit(id, req, func(now time.Duration, rep protocol.Reply) {
				ops = append(ops, bench.HistoryOp(user, id.DC(), req, rep, start, now))
				s.At(now+time.Duration(rng.IntN(50))*time.Millisecond, next)
			}); err != nil {
				t.Fatal(err)
			}
		}
		s.At(0, next)
	}
	s.RunUntil(time.Minute)
	if len(ops) != sessions*opsEach {
		t.Fatalf("%s seed %d: %d operations completed, want %d", name, seed, len(ops), sessions*opsEach)
	}
	return check.Check(&history.History{Ops: ops}, check.Options{})
}

// TestRandomMovesStayCausal: chainreaction and cr-cops sessions moving by
// token between DCs at random, under jitter and a partition, never break
// causal+; the same runs with moves that do not carry the session's
// metadata (a fresh session in the new DC) do, so the test can tell.
func TestRandomMovesStayCausal(t *testing.T) {
	for _, name := range []string{"chainreaction", "cr-cops"} {
		broken := 0
		for seed := uint64(1); seed <= 4; seed++ {
			if res := moveRun(t, name, seed, true); !res.OK {
				t.Errorf("%s seed %d: moving by token broke causal+: %+v", name, seed, res.Violations)
			}
			if res := moveRun(t, name, seed, false); !res.OK {
				broken++
			}
		}
		t.Logf("%s: moves without a token broke causal+ in %d of 4 seeds", name, broken)
		if broken == 0 {
			t.Errorf("%s: moves without a token never broke causal+: the test cannot tell a correct move from a broken one", name)
		}
	}
}
