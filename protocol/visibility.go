package protocol

import "github.com/causeway/causeway/topology"

// Visibler is implemented by protocols where a write becomes visible at
// nodes other than the data replicas that must converge on it (Protocol.Replicas):
// a metadata-only replica (K2's) makes a write visible in its DC without
// storing the value. VisibleAt lists every node whose Visibility report the
// visibility metric waits for before counting key's write visible
// everywhere it must be.
type Visibler interface {
	VisibleAt(t *topology.Topology, key string) []NodeID
}

// VisibleAt is p.VisibleAt when p is a Visibler, else p.Replicas: the
// nodes at which a write of key must become visible.
func VisibleAt(p Protocol, t *topology.Topology, key string) []NodeID {
	if v, ok := p.(Visibler); ok {
		return v.VisibleAt(t, key)
	}
	return p.Replicas(t, key)
}

// VisibleVersion reports that version of key became readable at this
// node. value is nil at a metadata-only replica, which knows the write's
// version but not its value; a data replica passes both, which is how the
// visibility metric ties the version to the write.
func (r *Ready) VisibleVersion(key string, value []byte, version uint64) {
	r.After.Visible = append(r.After.Visible, Visibility{Key: key, Value: value, Version: version})
}
