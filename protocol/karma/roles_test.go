package karma

import (
	"fmt"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// TestNodesHaveRoles: every node Karma and its variants list has the role
// of what it is: storage servers (with their MMs), CCs and caches.
func TestNodesHaveRoles(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{{Name: "karma", Caches: true}, {Name: "karma-nc"}, {Name: "cops-pr"}} {
		p := New(mode, Options{CachesPerDC: 2})
		count := map[protocol.Role]int{}
		for _, s := range p.Nodes(topo) {
			want := protocol.RoleStorage
			switch name := s.ID.Name(); {
			case strings.HasPrefix(name, "cc"):
				want = protocol.RoleCoordinator
			case strings.HasPrefix(name, "cache"):
				want = protocol.RoleCache
			}
			if s.Role != want {
				t.Errorf("%s: node %s has role %q, want %q", mode.Name, s.ID, s.Role, want)
			}
			count[s.Role]++
		}
		caches := 0
		if mode.Caches {
			caches = 2 * 3
		}
		if count[protocol.RoleStorage] != 6 || count[protocol.RoleCoordinator] != 6 || count[protocol.RoleCache] != caches {
			t.Errorf("%s: roles %v, want 6 storage, 6 coordinator, %d cache", mode.Name, count, caches)
		}
	}
}

// TestNewNodeByRole: NewNode builds a node from its role, whatever its
// name says (with the old name-prefix dispatch "a/s0" as a coordinator
// would be built as a middle man).
func TestNewNodeByRole(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Mode{Name: "karma", Caches: true}, Options{CachesPerDC: 1})
	for _, tc := range []struct {
		id   protocol.NodeID
		role protocol.Role
		want string
	}{
		{"a/s0", protocol.RoleCoordinator, "*karma.coordinator"},
		{"a/cc0", protocol.RoleStorage, "*karma.middleMan"},
		{"a/cc0", "", "*karma.middleMan"},
		{"a/s1", protocol.RoleCache, "*karma.dcCache"},
		{"a/cache0", protocol.RoleCache, "*karma.dcCache"},
	} {
		n := p.NewNode(protocol.NodeConfig{ID: tc.id, Role: tc.role, Topology: topo})
		// Under -tags causeway_invariants the node comes wrapped in its
		// self-checks (withInvariants); the role decides what is inside.
		got := strings.NewReplacer("checkedCoordinator", "coordinator", "checkedMiddleMan", "middleMan").Replace(fmt.Sprintf("%T", n))
		if got != tc.want {
			t.Errorf("NewNode(%s, role %q) = %s, want %s", tc.id, tc.role, got, tc.want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `role "proxy"`) {
			t.Errorf("NewNode with a role karma does not have: panic %v", r)
		}
	}()
	p.NewNode(protocol.NodeConfig{ID: "a/s0", Role: "proxy", Topology: topo})
}
