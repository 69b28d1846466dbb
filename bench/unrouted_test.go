package bench

import (
	"testing"

	"github.com/causeway/causeway/protocol"
)

// knownUnrouted are the protocols known to send to a session from a node
// the session did not send to (ARCHITECTURE.md, "Replies to sessions"):
// the live runtime drops those replies and the session recovers only by
// its timeout. None is known now (the chain protocols announce the session
// to the node that answers, or relay through the node it asked); add a
// protocol only with an issue to fix it.
var knownUnrouted = map[string]bool{}

// TestSessionsHearOnlyFromNodesTheyAsked runs every protocol briefly
// without faults in the simulator, which counts the messages a live node
// could not deliver (Result.UnroutedReplies): none for every protocol but
// the known ones, and some for those (so the list stays true).
func TestSessionsHearOnlyFromNodesTheyAsked(t *testing.T) {
	for _, name := range protocol.Names() {
		t.Run(name, func(t *testing.T) {
			topo := "local3"
			switch name {
			case "chainreaction", "fawn-kv":
				topo = "chainreaction-1dc"
			case "cassandra-e", "cassandra-l":
				topo = "c3-azure9" // four replicas per DC
			}
			res, err := RunSim(smallSpec(t, name, topo, 1, false))
			if err != nil {
				t.Fatal(err)
			}
			n := *res.UnroutedReplies
			switch {
			case knownUnrouted[name] && n == 0:
				t.Errorf("%s sent no unrouted message in %d operations: remove it from knownUnrouted", name, res.Ops)
			case !knownUnrouted[name] && n > 0:
				t.Errorf("%s sent %d messages to sessions from nodes they never sent to, in %d operations: the live runtime drops them", name, n, res.Ops)
			default:
				t.Logf("%s: %d unrouted in %d operations", name, n, res.Ops)
			}
		})
	}
}
