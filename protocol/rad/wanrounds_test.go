package rad_test

import (
	"testing"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
)

// TestReadOnlyTransactionsTakeAtMostTwoWideAreaRounds checks k2.txt
// §VII-C's bound on RAD's read-only transactions: round 1 and, when the
// validity intervals do not overlap, round 2, each at most one wide-area
// round. A third comes only when a second-round read waited for a pending
// write-only transaction whose participants span DCs (Eiger's
// indirection, k2.txt §II-B), which cannot happen without write_txn. The
// test also requires that some ROTs do take two rounds (the paper: 91–98%
// in skewed, write-heavy settings) and that write-only transactions,
// 2PC across the group, report wide-area rounds too.
func TestReadOnlyTransactionsTakeAtMostTwoWideAreaRounds(t *testing.T) {
	for _, withWOTs := range []bool{false, true} {
		spec := txnSpec(t, 1, 10)
		if !withWOTs {
			spec.Workload.UpdateProportion += spec.Workload.WriteTxnProportion
			spec.Workload.WriteTxnProportion = 0
		}
		var rots, two, three, wots, wotWide int
		spec.OnDone = func(_ string, req protocol.Request, rep protocol.Reply, _, _ time.Duration) {
			if rep.Err != protocol.OK {
				return
			}
			n, ok := rep.Metrics.Get(protocol.MetricWANRounds)
			if !ok {
				t.Errorf("%v without wan_rounds", req.Op)
			}
			switch req.Op {
			case protocol.OpReadTxn:
				rots++
				switch {
				case n == 2:
					two++
				case n == 3:
					three++
				case n > 3:
					t.Errorf("read_txn took %v wide-area rounds", n)
				}
			case protocol.OpWriteTxn:
				wots++
				if n > 0 {
					wotWide++
				}
			}
		}
		res, err := bench.RunSim(spec)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Check.OK {
			t.Fatalf("checker: %s", res.Check.FirstViolation())
		}
		t.Logf("write_txn %v: %d read_txns, %d with 2 wide-area rounds, %d with 3; %d write_txns, %d wide-area; all_local_fraction %.3f",
			withWOTs, rots, two, three, wots, wotWide, *res.AllLocalFraction)
		if rots < 50 || two == 0 {
			t.Errorf("%d read_txns, %d took two rounds: the second round is not exercised", rots, two)
		}
		if !withWOTs && three > 0 {
			t.Errorf("%d read_txns took 3 wide-area rounds without any write_txn", three)
		}
		if withWOTs && (wots == 0 || wotWide == 0) {
			t.Errorf("%d write_txns, %d wide-area", wots, wotWide)
		}
	}
}
