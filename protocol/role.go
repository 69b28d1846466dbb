package protocol

// RoleOrStorage returns the node's role, RoleStorage when the spec names
// none (the default NodeSpec.Role documents).
func (s NodeSpec) RoleOrStorage() Role {
	if s.Role == "" {
		return RoleStorage
	}
	return s.Role
}

// FindNode returns the spec of node id among specs (a protocol's Nodes),
// and whether it is there. A runtime that hosts one node by its ID (as
// runtime/node does) uses it to learn the node's role and zone.
func FindNode(specs []NodeSpec, id NodeID) (NodeSpec, bool) {
	for _, s := range specs {
		if s.ID == id {
			return s, true
		}
	}
	return NodeSpec{}, false
}
