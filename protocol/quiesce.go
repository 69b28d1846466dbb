package protocol

// Quiescer is implemented by nodes and sessions that can check their own
// invariants at quiescence: once every fault has healed, every crashed
// node has restarted and the network has gone quiet, nothing may be left
// in flight (write buffers empty, no dependency waits, no unacknowledged
// replication, no pending invalidations, …). A runtime that quiesces a run
// (the simulator, after bench.RunSim and in scenario's quiesce) asks every
// live node that implements it; a non-nil error says which invariant does
// not hold, naming the key or request concerned.
//
// CheckQuiescent must not change the node's state. It is meaningless while
// messages or timers are still pending, so a runtime calls it only after
// the network went quiet.
type Quiescer interface {
	CheckQuiescent() error
}
