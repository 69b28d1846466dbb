package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/protocol"
)

// stuckProtocol wraps a protocol so that one node never satisfies its
// invariants at quiescence, as a protocol that leaves a write in flight
// would.
type stuckProtocol struct {
	protocol.Protocol
	stuck protocol.NodeID
}

type stuckNode struct{ protocol.Node }

func (stuckNode) CheckQuiescent() error {
	return errors.New("not quiescent: a planted write in flight")
}

func (n stuckNode) Replicas(fn func(key string, value []byte)) {
	n.Node.(protocol.Inspector).Replicas(fn)
}

func (p stuckProtocol) NewNode(cfg protocol.NodeConfig) protocol.Node {
	n := p.Protocol.NewNode(cfg)
	if cfg.ID == p.stuck {
		return stuckNode{n}
	}
	return n
}

// TestQuiescenceViolationFailsTheRun checks the plumbing from a node's
// protocol.Quiescer to the result: a run whose history is causal+ and
// whose replicas converge, but where one node is left not quiescent, is
// not OK, and its result JSON says why under the rule "quiescence".
func TestQuiescenceViolationFailsTheRun(t *testing.T) {
	spec := smallSpec(t, "cops", "local3", 1, false)
	spec.Duration /= 3
	res, err := RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Check.OK || res.Check.Quiescent == nil || !*res.Check.Quiescent {
		t.Fatalf("cops without faults: ok=%v quiescent=%v: %s", res.Check.OK, res.Check.Quiescent, res.Check.FirstViolation())
	}
	spec.Protocol = stuckProtocol{Protocol: spec.Protocol, stuck: "b/s0"}
	res, err = RunSim(spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Check.OK || res.Check.Quiescent == nil || *res.Check.Quiescent || !*res.Check.Converged {
		t.Fatalf("one node stuck: ok=%v quiescent=%v converged=%v, want a failed, converged, not quiescent run: %s",
			res.Check.OK, *res.Check.Quiescent, *res.Check.Converged, res.Check.FirstViolation())
	}
	var buf bytes.Buffer
	if err := res.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Check struct {
			OK         bool              `json:"ok"`
			Quiescent  *bool             `json:"quiescent"`
			Violations []check.Violation `json:"violations"`
		} `json:"check"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Check.OK || got.Check.Quiescent == nil || *got.Check.Quiescent || len(got.Check.Violations) != 1 {
		t.Fatalf("result JSON check: %+v, want ok false, quiescent false and one violation", got.Check)
	}
	v := got.Check.Violations[0]
	if v.Rule != check.RuleQuiescence || !strings.Contains(v.Explanation, "b/s0: not quiescent: a planted write in flight") {
		t.Errorf("violation %+v, want rule quiescence naming b/s0 and its problem", v)
	}
}
