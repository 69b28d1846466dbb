package cassandra

import (
	"fmt"

	"github.com/causeway/causeway/protocol"
)

// Level is a Cassandra consistency level: how many replicas' answers a
// coordinator waits for before it answers the client.
type Level uint32

// The consistency levels the model implements (Cassandra's names).
const (
	// One waits for one replica, in any DC.
	One Level = iota + 1
	// Two waits for two replicas, in any DCs.
	Two
	// Three waits for three replicas, in any DCs.
	Three
	// LocalQuorum waits for a majority of the replicas in the
	// coordinator's DC (2 of 3).
	LocalQuorum
	// Quorum waits for a majority of all replicas, in every replica DC.
	Quorum
	// EachQuorum waits for a majority of the replicas in each replica DC.
	EachQuorum
)

func (l Level) String() string {
	switch l {
	case One:
		return "ONE"
	case Two:
		return "TWO"
	case Three:
		return "THREE"
	case LocalQuorum:
		return "LOCAL_QUORUM"
	case Quorum:
		return "QUORUM"
	case EachQuorum:
		return "EACH_QUORUM"
	}
	return fmt.Sprintf("Level(%d)", uint32(l))
}

// count returns how many replicas a count level (One, Two, Three) needs,
// 0 for the others.
func (l Level) count() int {
	switch l {
	case One:
		return 1
	case Two:
		return 2
	case Three:
		return 3
	}
	return 0
}

// quorum is a majority of n.
func quorum(n int) int { return n/2 + 1 }

// placementOf is where one key lives: its replica DCs in declared order
// and, per DC, its RF replicas.
type placementOf struct {
	dcs      []string
	replicas map[string][]protocol.NodeID
}

// all lists every replica, DC by DC.
func (p placementOf) all() []protocol.NodeID {
	var out []protocol.NodeID
	for _, dc := range p.dcs {
		out = append(out, p.replicas[dc]...)
	}
	return out
}

// satisfied reports whether the answers of the nodes in got meet level l
// for a coordinator in DC dc.
func (p placementOf) satisfied(l Level, dc string, got map[protocol.NodeID]bool) bool {
	perDC := map[string]int{}
	total := 0
	for id := range got {
		if p.isReplica(id) {
			perDC[id.DC()]++
			total++
		}
	}
	switch l {
	case LocalQuorum:
		return perDC[dc] >= quorum(len(p.replicas[dc]))
	case Quorum:
		return total >= quorum(len(p.all()))
	case EachQuorum:
		for _, d := range p.dcs {
			if perDC[d] < quorum(len(p.replicas[d])) {
				return false
			}
		}
		return true
	}
	return total >= l.count()
}

func (p placementOf) isReplica(id protocol.NodeID) bool {
	for _, r := range p.replicas[id.DC()] {
		if r == id {
			return true
		}
	}
	return false
}

// localOnly returns the nodes of got in dc.
func localOnly(got map[protocol.NodeID]bool, dc string) map[protocol.NodeID]bool {
	out := map[protocol.NodeID]bool{}
	for id := range got {
		if id.DC() == dc {
			out[id] = true
		}
	}
	return out
}
