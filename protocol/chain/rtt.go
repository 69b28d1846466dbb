package chain

import "time"

// rttEstimate is Jacobson's estimator of a round trip, as TCP's
// retransmission timeout: fed only round trips of messages never
// retransmitted (Karn's rule), it gives the wait before a first
// retransmission. Sessions keep one for their requests, servers one per
// successor for the versions they send down the chain.
type rttEstimate struct {
	srtt, rttvar time.Duration
	sampled      bool
}

// sample folds one round trip into the estimate.
func (e *rttEstimate) sample(rtt time.Duration) {
	if !e.sampled {
		e.srtt, e.rttvar, e.sampled = rtt, rtt/2, true
		return
	}
	d := rtt - e.srtt
	e.srtt += d / 8
	e.rttvar += (max(d, -d) - e.rttvar) / 4
}

// rto is the measured round trip plus four deviations, at least
// ResendEvery.
func (e *rttEstimate) rto() time.Duration { return max(ResendEvery, e.srtt+4*e.rttvar) }
