package chain

import (
	"maps"
	"slices"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/chainpb"
)

// Reads that wait for node k's acknowledgement (chainreaction.txt §3.6,
// and this package's head-failure gap, doc.go "Reads"). A node before k
// serves only versions node k acknowledged; when it holds a newer one, that
// version may be stable already (its KAck and StableAck still on their way
// here), and a session that saw it stable dropped its entry, so the older
// acknowledged version must not be served. The read then waits here until
// node k's acknowledgement covers the newest version the node held when
// the read arrived, and is served the newest acknowledged version. Passing
// such reads to node k instead made node k serve nearly every read of a
// written object: 2.6× slower on single-object 5/95.

// kwaiter is a Get waiting for node k's acknowledgement of version until.
type kwaiter struct {
	get   *pb.Get
	until uint64
}

// releaseK serves the reads of key whose version node k has now
// acknowledged.
func (s *server) releaseK(key string, it *item, r *protocol.Ready) {
	if len(it.kwait) == 0 {
		return
	}
	c, _, i := s.chain(key)
	keep := it.kwait[:0]
	var ready []*pb.Get
	for _, w := range it.kwait {
		if w.until <= it.kacked {
			ready = append(ready, w.get)
		} else {
			keep = append(keep, w)
		}
	}
	it.kwait = keep
	for _, b := range ready {
		if i < 0 {
			s.read(b, r) // no longer in the chain: passed to the head
			continue
		}
		s.serve(b, it, it.upTo(it.kacked), c, i, r)
	}
}

// rereadK handles again, under a new view, every read still waiting (node
// k may have failed, or this node become node k).
func (s *server) rereadK(r *protocol.Ready) {
	for _, k := range slices.Sorted(maps.Keys(s.items)) {
		it := s.items[k]
		ws := it.kwait
		it.kwait = nil
		for _, w := range ws {
			s.read(w.get, r)
		}
	}
}
