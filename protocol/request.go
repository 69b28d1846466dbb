package protocol

import "fmt"

// Op is a client operation type.
type Op uint8

const (
	// OpGet reads one key.
	OpGet Op = iota + 1
	// OpPut writes one key.
	OpPut
	// OpReadTxn reads several keys from one causal snapshot.
	OpReadTxn
	// OpWriteTxn writes several keys atomically.
	OpWriteTxn
)

// String returns the operation's name as it appears in histories.
func (o Op) String() string {
	switch o {
	case OpGet:
		return "get"
	case OpPut:
		return "put"
	case OpReadTxn:
		return "read_txn"
	case OpWriteTxn:
		return "write_txn"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// KV is one key and value; a nil Value is the key's initial state.
type KV struct {
	Key   string
	Value []byte
}

// Request is one client operation handed to a Session.
type Request struct {
	Op Op
	// Key and Value are used by get and put.
	Key   string
	Value []byte
	// Keys is the read set of a read_txn.
	Keys []string
	// Writes is the write set of a write_txn.
	Writes []KV
}

// ErrCode classifies a failed operation.
type ErrCode uint8

const (
	// OK means the operation succeeded.
	OK ErrCode = iota
	// ErrTimeout means the operation did not complete in time; a write may
	// or may not have taken effect.
	ErrTimeout
	// ErrUnavailable means the operation could not be attempted (no
	// reachable replica); a write did not take effect.
	ErrUnavailable
	// ErrUnsupported means the protocol does not implement the operation.
	ErrUnsupported
)

func (e ErrCode) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrTimeout:
		return "timeout"
	case ErrUnavailable:
		return "unavailable"
	case ErrUnsupported:
		return "unsupported"
	}
	return fmt.Sprintf("err(%d)", uint8(e))
}

// Reply completes a Request.
type Reply struct {
	Op  Op
	Err ErrCode
	// Key and Value answer a get (Value nil: the key's initial state).
	Key   string
	Value []byte
	// Reads answers a read_txn, in the order of Request.Keys.
	Reads []KV
	// WideArea is true when the operation needed at least one wide-area
	// round trip (it was not answered within the session's DC). A protocol
	// that reports wan_rounds sets both with SetWANRounds, so they agree.
	WideArea bool
	// Tags name protocol facts about this operation (e.g. "drr": made under
	// a ring restriction, "cache_hit"); a run reports, for each tag, the
	// fraction of operations carrying it as protocol_metrics.<tag>_fraction.
	Tags []string
	// Metrics are numeric facts about this operation (e.g. "wan_rounds",
	// "staleness_ms"), finite and non-negative; a run reports each one's
	// distribution over the operations that carry it as
	// protocol_metrics.<name>_p50, _p90, _p99 and _mean. An operation that
	// does not carry a metric is left out of it, never counted as zero.
	// Set them with SetMetric, read one with Metrics.Get.
	Metrics Metrics
	// DC is the datacenter the session was attached to when the operation
	// completed, set only by protocols whose sessions migrate between DCs
	// (C3's client migration, c3.txt §3.5); empty means the session's own
	// DC, the one its NodeID names. Histories record it as the op's dc.
	DC string
}
