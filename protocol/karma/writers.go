package karma

import (
	"slices"
	"strconv"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// One put-after dependency per writer thread (doc.go, "One put-after
// dependency per writer"): of the in-flight versions a thread has read
// that one writer thread wrote, its writes carry only the latest. In
// every ring that write is installed only once every earlier write of its
// thread is ready there (or written there, or complete), so waiting for it
// waits for them.

// writerOf names the writer thread of a restriction: its session and the
// CC that minted the version (a session that moved to another CC starts
// a new sequence of versions there, token.go). "" when unknown (a version
// an MM had installed before it restarted): such a restriction is never
// collapsed into another.
func writerOf(d *pb.Dep) string {
	if d.Writer == "" {
		return ""
	}
	return d.Writer + "#" + strconv.FormatUint(d.Version&(1<<ccBits-1), 16)
}

// collapse returns deps (sorted by depKey) less those another of deps by
// the same writer thread, with a higher version, implies: a writer's
// versions grow in its program order (one CC mints them from a clock that
// only moves on).
func collapse(deps []*pb.Dep) []*pb.Dep {
	latest := map[string]uint64{}
	for _, d := range deps {
		if w := writerOf(d); w != "" {
			latest[w] = max(latest[w], d.Version)
		}
	}
	out := deps[:0:0]
	for _, d := range deps {
		if w := writerOf(d); w == "" || d.Version == latest[w] {
			out = append(out, d)
		}
	}
	return out
}

// covered reports whether a restriction is implied by deps: it is one of
// them, or an earlier write of the writer thread of one of them.
func covered(d *pb.Dep, deps []*pb.Dep) bool {
	w := writerOf(d)
	for _, e := range deps {
		if e.Key == d.Key && e.Version == d.Version || w != "" && writerOf(e) == w && e.Version >= d.Version {
			return true
		}
	}
	return false
}

// stripped is a dependency as an MM sees it: without the writer, which
// only the CC keeps.
func stripped(d *pb.Dep) *pb.Dep {
	if d.Writer == "" {
		return d
	}
	return &pb.Dep{Key: d.Key, Version: d.Version, ProgramOrder: d.ProgramOrder, Installed: d.Installed, SelfWritten: d.SelfWritten}
}

// restrict records an in-flight version the thread read in ring (a DRR
// entry, synced before the read is answered).
func (c *coordinator) restrict(t *threadState, ring int, key string, version uint64, writer string, r *protocol.Ready) {
	dk := depKey(key, version)
	if t.drrRing < 0 {
		t.drrRing = ring
	}
	if t.drr[dk] == nil {
		t.drr[dk] = &pb.Dep{Key: key, Version: version, Writer: writer}
		r.Write(storage.Write{Kind: storage.Put, Key: drrKey(t.name, dk), Value: drrValue(ring, writer)}, true)
	}
}

// drrValue is a persisted restriction: the ring it binds to, then its
// writer.
func drrValue(ring int, writer string) []byte {
	return append([]byte{byte(ring)}, writer...)
}

// coverWriter counts, by writer thread and version, the put-after
// dependencies the thread's buffered writes carry (buffer, unbuffer).
func (t *threadState) coverWriter(d *pb.Dep, n int) {
	w := writerOf(d)
	if w == "" {
		return
	}
	vs := t.coverW[w]
	if vs == nil {
		vs = map[uint64]int{}
		t.coverW[w] = vs
	}
	vs[d.Version] += n
	if vs[d.Version] <= 0 {
		delete(vs, d.Version)
		if len(vs) == 0 {
			delete(t.coverW, w)
		}
	}
}

// coveredByWB reports whether a buffered write of the thread will lift
// restriction d when it completes.
func (t *threadState) coveredByWB(dk string, d *pb.Dep) bool {
	if t.covering[dk] > 0 || t.inWB[dk] > 0 {
		return true
	}
	if w := writerOf(d); w != "" {
		for v := range t.coverW[w] {
			if v >= d.Version {
				return true
			}
		}
	}
	return false
}

// sortedDeps returns the restrictions named by keys, in key order.
func (t *threadState) sortedDeps(keys []string) []*pb.Dep {
	slices.Sort(keys)
	out := make([]*pb.Dep, 0, len(keys))
	for _, dk := range keys {
		out = append(out, t.drr[dk])
	}
	return out
}

// unpackAfter returns a RingPut with its packed program-order
// dependencies (after_owners, after_versions) as Deps with program_order,
// no key and their owner's index in the ring, the form the MM waits on
// and persists. b itself is not modified (a runtime may share it); every
// field is copied by hand.
func unpackAfter(b *pb.RingPut) *pb.RingPut {
	if len(b.AfterVersions) == 0 {
		return b
	}
	n := min(len(b.AfterOwners), len(b.AfterVersions))
	deps := make([]*pb.Dep, 0, len(b.Deps)+n)
	deps = append(deps, b.Deps...)
	var v uint64
	for i := range n {
		v += b.AfterVersions[i]
		deps = append(deps, &pb.Dep{Version: v, ProgramOrder: true, Owner: b.AfterOwners[i]})
	}
	return &pb.RingPut{Key: b.Key, Value: b.Value, Version: b.Version, Deps: deps, Notify: b.Notify, Id: b.Id, Clock: b.Clock, Writer: b.Writer}
}
