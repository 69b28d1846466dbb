package bench

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
)

// RandomMoves drives six sessions of protocol p on local3 that move
// between DCs at random (one operation in eight first moves), 60 gets and
// puts each on four keys, under 20 ms of jitter and a partition of a from
// b and c between 2 s and 4 s, and returns the causal+ checker's verdict
// on the history. With tokens a session moves by its session token
// (sim.SessionToken, ResumeSession); without, a moving session is
// replaced by a fresh one in its new DC under the same name in the
// history: the broken move the checker must catch. It fails when a run
// leaves operations unfinished after a virtual minute.
func RandomMoves(p protocol.Protocol, seed uint64, tokens bool) (check.Result, error) {
	topo, err := topology.Preset("local3")
	if err != nil {
		return check.Result{}, err
	}
	s, err := sim.New(sim.Config{Topology: topo, Protocol: p, Seed: seed, Jitter: 20 * time.Millisecond,
		OpTimeout: 2 * time.Second, Faults: faults.Schedule{
			{At: 2 * time.Second, Partition: [][]string{{"a"}, {"b", "c"}}},
			{At: 4 * time.Second, Heal: "all"},
		}})
	if err != nil {
		return check.Result{}, err
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	dcs := topo.DCNames()
	keys := []string{"k0", "k1", "k2", "k3"}
	const sessions, opsEach = 6, 60
	var ops []history.Op
	var failed error
	for i := range sessions {
		user := fmt.Sprintf("u%d", i)
		id, err := s.AddSession(dcs[i%len(dcs)], user)
		if err != nil {
			return check.Result{}, err
		}
		moves, n := 0, 0
		var next func()
		next = func() {
			if n == opsEach || failed != nil {
				return
			}
			n++
			if rng.IntN(8) == 0 {
				moves++
				node := fmt.Sprintf("%s.%d", user, moves)
				dc := dcs[rng.IntN(len(dcs))]
				var err error
				if tokens {
					var token []byte
					if token, err = s.SessionToken(id); err == nil {
						id, err = s.ResumeSession(dc, node, token)
					}
				} else {
					id, err = s.AddSession(dc, node)
				}
				if err != nil {
					failed = err
					return
				}
			}
			req := protocol.Request{Op: protocol.OpGet, Key: keys[rng.IntN(len(keys))]}
			if rng.IntN(2) == 0 {
				req = protocol.Request{Op: protocol.OpPut, Key: req.Key, Value: fmt.Appendf(nil, "%s-%d", user, n)}
			}
			start := s.Now()
			if err := s.Submit(id, req, func(now time.Duration, rep protocol.Reply) {
				ops = append(ops, HistoryOp(user, id.DC(), req, rep, start, now))
				s.At(now+time.Duration(rng.IntN(50))*time.Millisecond, next)
			}); err != nil {
				failed = err
			}
		}
		s.At(0, next)
	}
	s.RunUntil(time.Minute)
	if failed != nil {
		return check.Result{}, failed
	}
	if len(ops) != sessions*opsEach {
		return check.Result{}, fmt.Errorf("%s seed %d: %d operations completed, want %d", p.Name(), seed, len(ops), sessions*opsEach)
	}
	return check.Check(&history.History{Ops: ops}, check.Options{}), nil
}
