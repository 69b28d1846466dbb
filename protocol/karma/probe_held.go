package karma

import (
	"maps"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// Reads held behind a write that cannot install (doc.go): an MM holds a
// read of a key while a version of it is ready here and not installed
// (pipeline.go, read), because a reader may have read a later write of
// the same thread elsewhere in the ring, and that version is installed as
// soon as its thread's earlier writes are ready in the ring. But when one
// of those earlier writes has not even reached the ring (its writer's DC
// is cut off), the version cannot be installed until it does, and the
// read would wait for the partition to heal.
//
// So a held read probes: for each version it waits for, the MM asks the
// owner in its ring of one of that version's program-order dependencies
// not known ready here whether it is ready now (DepCheck.probe, answered
// at once). An answer that it is absent lets the read stop waiting for
// that version. This is safe because the probe leaves after the read arrived:
// had the reader seen anything that depends on the version — a later
// write of its thread installed in this ring (which needs every earlier
// one ready here), a write installed here that depends on either (which
// needs them installed here), or a version read elsewhere that has since
// completed (written here, so with its causal past) — the absent
// dependency would have been ready before the reader saw it, so before
// the read arrived and the probe was sent, and readiness is persisted
// before anyone is told. A reader that read such a version in flight in
// another ring is bound to that ring (§4.1.3) and does not read here.
// Probe numbers come from the commit clock (leased ahead of what was
// issued, so unique across restarts): a stale answer finds no round.

// Probes are rounds per pending version, one in flight at a time: a
// round asks about the version's latest program-order dependency not
// known ready here (the one a cut is likeliest to have left out: a
// thread's writes leave in order) on behalf of the reads held when it
// was sent; reads held behind the version meanwhile wait for the next
// round, sent when the answer comes. Probing every unknown dependency
// for every held read tripled a saturated run's messages (karma-aws8,
// ycsb-50-50, 4096 threads: 1.48 M -> 4.33 M) and its backlog outlasted
// the simulator's quiesce limit.

// probeRound is one probe in flight: the pending version it is about,
// and the reads held behind that version when it was sent.
type probeRound struct {
	wk    string
	reads []*heldRead
	sent  time.Duration
}

// probeHeld stops h's wait at once for each version whose latest unknown
// dependency this MM owns and does not have (the read arrived in this
// step), and joins h to a probe round for each other. It reports whether
// h still waits; if not, h has been answered.
func (m *middleMan) probeHeld(now time.Duration, h *heldRead, r *protocol.Ready) bool {
	for _, wk := range slices.Sorted(maps.Keys(h.waitFor)) {
		d := m.latestUnknown(wk)
		switch {
		case d == nil:
		case m.ownerOf(d) == m.id:
			delete(h.waitFor, wk) // not ready here, now
		case m.probing[wk] != 0:
			m.nextRound[wk] = append(m.nextRound[wk], h)
		default:
			m.sendProbe(now, wk, d, []*heldRead{h}, r)
		}
	}
	if len(h.waitFor) == 0 {
		m.answerHeld(h, r)
		return false
	}
	return true
}

// latestUnknown is the program-order dependency of the pending version
// wk with the highest version that is not known ready here (nil: none).
func (m *middleMan) latestUnknown(wk string) *pb.Dep {
	var out *pb.Dep
	for _, d := range m.pending[wk].msg.Deps {
		if _, ok := m.readyOf(depKey(d.Key, d.Version)); d.ProgramOrder && !ok && (out == nil || d.Version > out.Version) {
			out = d
		}
	}
	return out
}

// sendProbe starts a probe round about d for the reads held behind wk.
func (m *middleMan) sendProbe(now time.Duration, wk string, d *pb.Dep, reads []*heldRead, r *protocol.Ready) {
	id := m.lc.tick()
	m.probing[wk] = id
	m.probes[id] = &probeRound{wk: wk, reads: reads, sent: now}
	r.Send(m.id, m.ownerOf(d), &pb.DepCheck{Dep: &pb.Dep{Key: d.Key, Version: d.Version, ProgramOrder: true, Owner: d.Owner}, Probe: id})
}

// answerProbe answers a probe at once: the version's ready time, or
// absent.
func (m *middleMan) answerProbe(from protocol.NodeID, b *pb.DepCheck, r *protocol.Ready) {
	key := b.Dep.Key
	if key == "" { // named by version (byversion.go)
		key = m.keyOf[b.Dep.Version]
	}
	at, ready := m.readyAt[depKey(key, b.Dep.Version)]
	r.Send(m.id, from, &pb.DepOK{Dep: b.Dep, Clock: m.lc.now, Ready: at, Probe: b.Probe, Absent: !ready})
}

// probeAnswered takes a probe's answer (after a ready one has been taken
// as any DepOK): an absent dependency stops the round's reads waiting for
// its version, and a read that then waits for nothing is answered. The
// reads held meanwhile get the next round, if the version is still
// pending and they still wait for it.
func (m *middleMan) probeAnswered(now time.Duration, b *pb.DepOK, r *protocol.Ready) {
	pr := m.probes[b.Probe]
	if pr == nil {
		return
	}
	delete(m.probes, b.Probe)
	wk := pr.wk
	if m.probing[wk] != b.Probe {
		return // superseded or settled (probeAgain, probesSettled)
	}
	delete(m.probing, wk)
	if b.Absent {
		for _, h := range pr.reads {
			if !h.done && h.waitFor[wk] {
				delete(h.waitFor, wk)
				m.unholdIfDone(h, r)
			}
		}
	}
	m.nextProbe(now, wk, nil, r)
}

// nextProbe sends the next probe round of wk, if it is still pending, for
// the reads of also and of nextRound that still wait for it.
func (m *middleMan) nextProbe(now time.Duration, wk string, also []*heldRead, r *protocol.Ready) {
	next := append(also, m.nextRound[wk]...)
	delete(m.nextRound, wk)
	if m.pending[wk] == nil {
		return
	}
	next = slices.DeleteFunc(next, func(h *heldRead) bool { return h.done || !h.waitFor[wk] })
	if len(next) == 0 {
		return
	}
	if d := m.latestUnknown(wk); d != nil {
		m.sendProbe(now, wk, d, next, r)
	}
}

// probeAgain replaces each round that has gone unanswered for
// resendPredecessor (its probe or answer died with a crash or a
// partition inside the ring) with a new one, for the reads of that round
// and of the next; a late answer to the old one is ignored.
func (m *middleMan) probeAgain(now time.Duration, r *protocol.Ready) {
	for _, wk := range slices.Sorted(maps.Keys(m.probing)) {
		id := m.probing[wk]
		pr := m.probes[id]
		if now-pr.sent < resendPredecessor {
			continue
		}
		delete(m.probing, wk)
		delete(m.probes, id)
		m.nextProbe(now, wk, pr.reads, r)
	}
}

// unholdIfDone answers h, and drops it from the held reads, once it
// waits for nothing.
func (m *middleMan) unholdIfDone(h *heldRead, r *protocol.Ready) {
	if len(h.waitFor) > 0 {
		return
	}
	key := h.msg.Key
	m.held[key] = slices.DeleteFunc(m.held[key], func(o *heldRead) bool { return o == h })
	if len(m.held[key]) == 0 {
		delete(m.held, key)
	}
	m.answerHeld(h, r)
}

// answerHeld answers a read that no longer waits.
func (m *middleMan) answerHeld(h *heldRead, r *protocol.Ready) {
	h.done = true
	m.get(h.from, h.msg, false, 0, r)
}

// probesSettled forgets the probe round of a version no longer pending
// (installed): its held reads are released with it.
func (m *middleMan) probesSettled(wk string) {
	delete(m.probes, m.probing[wk])
	delete(m.probing, wk)
	delete(m.nextRound, wk)
}
