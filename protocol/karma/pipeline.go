package karma

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// The MM's side of pipelined propagation (doc.go, "Pipelined
// propagation"): a write arrives, waits for its put-after dependencies to
// be written here, becomes ready (ready time r, persisted as pending),
// waits for every earlier buffered write of its thread (its program-order
// dependencies, P(s)) to be ready here, is installed at
// evt = max(r, their ready times), and is written once its invalidations
// are acknowledged and P(s) is written here.

// heldRead is a ring read waiting for versions of its key that were ready
// and not yet installed when it arrived (by depKey).
type heldRead struct {
	from    protocol.NodeID
	msg     *pb.RingGet
	waitFor map[string]bool
	// done: answered (probe_held.go).
	done bool
}

// Names in the dependency table: a write waiting for P(s) to be ready
// waits as confName(its depKey), for its put-after dependencies to be
// written as gateName, and for P(s) to be written themselves as
// orderName; a program-order dependency is waited for as depName (ready,
// or written itself).
const gatePrefix, orderPrefix, confPrefix, readyPrefix, installedPrefix, selfPrefix = "gate/", "order/", "conf/", "ready/", "inst/", "self/"

func gateName(wk string) string  { return gatePrefix + wk }
func orderName(wk string) string { return orderPrefix + wk }
func confName(wk string) string  { return confPrefix + wk }

// depName names what a dependency waits for in the table: a program-order
// dependency its readiness, any other its writing.
func depName(d *pb.Dep) string {
	switch {
	case d.SelfWritten:
		return selfPrefix + depKey(d.Key, d.Version)
	case d.ProgramOrder:
		return readyPrefix + depKey(d.Key, d.Version)
	case d.Installed:
		return installedPrefix + depKey(d.Key, d.Version)
	}
	return depKey(d.Key, d.Version)
}

// pendingKey is the storage key of a write ready here and not installed.
func pendingKey(wk string) string { return "p/" + wk }

// installedKey is the storage key of a write installed here and not yet
// written, at its ready time: a restart must not give it another ready
// time when it is sent again (evt(j) <= evt(s) for j in P(s) rests on
// every MM of the ring using the same r(j)), nor install it again below
// versions installed since.
func installedKey(wk string) string { return "i/" + wk }

// put handles a propagator's put or put-after (or notify-after).
func (m *middleMan) put(now time.Duration, from protocol.NodeID, b *pb.RingPut, r *protocol.Ready) {
	wk := depKey(b.Key, b.Version)
	if b.Notify {
		wk = "notify/" + string(from) + "/" + depKey(b.Key, b.Id)
	} else {
		m.arrived(b.Key, b.Version)
	}
	switch {
	case !b.Notify && m.committed[wk]:
		r.Send(m.id, from, &pb.RingPutAck{Id: b.Id, Ring: int32(m.ring), Clock: m.lc.now, Key: b.Key, Version: b.Version})
		return
	case m.inval[wk] != nil:
		m.inval[wk].from, m.inval[wk].id = from, b.Id // ack the latest sender
		return
	case m.pending[wk] != nil:
		m.pending[wk].from, m.pending[wk].msg.Id = from, b.Id
		return
	case m.incoming[wk] != nil:
		return // a retransmission of a write already waiting for its deps
	}
	gate := ""                                 // gateName(wk), built once if needed
	asks := map[protocol.NodeID]*pb.DepCheck{} // by version (byversion.go)
	for _, d := range b.Deps {
		if d.ProgramOrder {
			continue // waited for once the write is ready (ready)
		}
		dk := depKey(d.Key, d.Version)
		m.learnKey(d.Key, d.Version) // to read the answers
		if b.Notify && d.Installed {
			// An install check (rebind.go, askHome): answered once the
			// dependency is installed here, not written.
			if !m.installedHere(dk) && !m.knownInstalled[dk] && m.deps.Wait(wk, installedPrefix+dk, d, now) {
				r.Send(m.id, replica(m.topo, m.ring, d.Key), &pb.DepCheck{Dep: d})
			}
			continue
		}
		if b.Notify {
			if !m.committed[dk] && !m.knownWritten[dk] && m.deps.Wait(wk, dk, d, now) {
				askByVersion(asks, replica(m.topo, m.ring, d.Key), d.Version, askWritten)
			}
			continue
		}
		// Ready once installed here (known if the writer read it here:
		// Dep.installed); written once written here.
		if !d.Installed && !m.installedHere(dk) && !m.knownInstalled[dk] && !m.pushedInstalledOf(dk, d.Version) {
			id := &pb.Dep{Key: d.Key, Version: d.Version, Installed: true}
			if m.deps.Wait(wk, installedPrefix+dk, id, now) {
				askByVersion(asks, replica(m.topo, m.ring, d.Key), d.Version, askInstalled)
			}
		}
		if !m.committed[dk] && !m.knownWritten[dk] {
			if gate == "" {
				gate = gateName(wk)
			}
			wd := &pb.Dep{Key: d.Key, Version: d.Version}
			if m.deps.Wait(gate, dk, wd, now) {
				askByVersion(asks, replica(m.topo, m.ring, d.Key), d.Version, askWritten)
			}
		}
	}
	if !b.Notify {
		m.waitPredecessorsInto(now, b, asks)
	}
	m.sendAsks(asks, r)
	w := &incomingWrite{msg: b, from: from}
	if !m.deps.Waiting(wk) {
		m.ready(now, w, r)
		return
	}
	m.incoming[wk] = w
}

// ready handles a write whose put-after dependencies are written here (or
// answers a notify-after): it is persisted as pending with its ready
// time, program-order DepChecks for it are answered, and it waits for its
// thread's earlier buffered writes to be ready (to be installed) and
// written (to count as written) here.
func (m *middleMan) ready(now time.Duration, w *incomingWrite, r *protocol.Ready) {
	b := w.msg
	if b.Notify {
		r.Send(m.id, w.from, &pb.RingPutAck{Id: b.Id, Ring: int32(m.ring), Clock: m.lc.now, Key: b.Key})
		return
	}
	wk := depKey(b.Key, b.Version)
	at, again := m.readyAt[wk]
	if !again {
		at = m.lc.tick()
	}
	m.readyAt[wk] = at
	r.Write(storage.Write{Kind: storage.Put, Key: pendingKey(wk), Version: at, Value: marshal(b)}, true)
	m.pushReady(b.Version, at) // sent after the write above is durable
	for from := range m.readyWaiters[wk] {
		m.answerReady(from, b.Version, at)
	}
	delete(m.readyWaiters, wk)
	w.ask = protocol.SentAt(now)
	m.pending[wk] = w
	if !m.deps.Waiting(confName(wk)) {
		m.install(now, wk, r)
	}
}

// waitPredecessors sends, all at once and as soon as a write arrives, the
// DepChecks for its program-order dependencies: ready (to install it once
// it is ready itself) and written themselves (to count it written). Each
// earlier write j is asked only to be written itself, not with its own
// earlier writes: those are members of P(s) too, or were written here
// before s's copy was sent (the CC leaves out what the ring acknowledged),
// so s waits for them directly, and a thread's writes become written in
// parallel rather than one DepOK hop after another
// (testdata/written_without_chain).
func (m *middleMan) waitPredecessors(now time.Duration, b *pb.RingPut, r *protocol.Ready) {
	asks := map[protocol.NodeID]*pb.DepCheck{}
	m.waitPredecessorsInto(now, b, asks)
	m.sendAsks(asks, r)
}

// waitPredecessorsInto adds waitPredecessors's asks to asks.
func (m *middleMan) waitPredecessorsInto(now time.Duration, b *pb.RingPut, asks map[protocol.NodeID]*pb.DepCheck) {
	wk := depKey(b.Key, b.Version)
	conf, order := confName(wk), orderName(wk)
	for _, d := range b.Deps {
		if !d.ProgramOrder {
			continue
		}
		dk := depKey(d.Key, d.Version) // "@<version>": no key (unpackAfter)
		var kind askKind
		if _, ok := m.readyOf(dk); !ok && !m.pushedReadyOf(dk) && m.deps.Wait(conf, readyPrefix+dk, d, now) {
			kind |= askReady
		}
		if !m.committed[dk] && !m.knownWritten[dk] && !m.selfWritten[dk] && !m.knownSelfWritten[dk] {
			sd := &pb.Dep{Key: d.Key, Version: d.Version, SelfWritten: true, Owner: d.Owner}
			if m.deps.Wait(order, selfPrefix+dk, sd, now) {
				kind |= askSelf
			}
		}
		if kind != 0 {
			// By version, one DepCheck per owner (doc.go, "Program-order
			// asks by version"); depwait's re-asks go one by one.
			askByVersion(asks, m.ownerOf(d), d.Version, kind)
		}
	}
}

// readyOf is the ready time of a version in this ring, if known here.
// A program-order dependency named without its key ("@<version>") that
// is this MM's own write is found by its key (keyOf).
func (m *middleMan) readyOf(dk string) (uint64, bool) {
	if at, ok := m.readyAt[dk]; ok {
		return at, true
	}
	if at, ok := m.knownReady[dk]; ok {
		return at, true
	}
	if v, ok := strings.CutPrefix(dk, "@"); ok {
		if version, err := strconv.ParseUint(v, 16, 64); err == nil {
			if key, ok := m.keyOf[version]; ok {
				at, ok := m.readyAt[depKey(key, version)]
				return at, ok
			}
		}
	}
	return 0, false
}

func (m *middleMan) depSatisfied(now time.Duration, name string, r *protocol.Ready) {
	for _, wk := range m.deps.Satisfied(name) {
		if w, ok := strings.CutPrefix(wk, gatePrefix); ok {
			if iv := m.inval[w]; iv != nil {
				iv.gated = false
				m.progress(w, r)
			}
			continue
		}
		if w, ok := strings.CutPrefix(wk, orderPrefix); ok {
			if iv := m.inval[w]; iv != nil {
				iv.ordered = false
				m.progress(w, r)
			}
			continue
		}
		if w, ok := strings.CutPrefix(wk, confPrefix); ok {
			m.install(now, w, r)
			continue
		}
		if w := m.incoming[wk]; w != nil {
			delete(m.incoming, wk)
			m.ready(now, w, r)
		}
	}
}

// install makes a pending write readable here, now that every earlier
// buffered write of its thread is ready in the ring, at
// evt = max(its ready time, theirs): the same number every MM of the ring
// derives for it. Then it invalidates the caches that may hold the key;
// the write counts as written once they have acknowledged and its thread's
// earlier writes are written here.
func (m *middleMan) install(now time.Duration, wk string, r *protocol.Ready) {
	w := m.pending[wk]
	if w == nil {
		return
	}
	delete(m.pending, wk)
	b := w.msg
	evt := m.readyAt[wk]
	for _, d := range b.Deps {
		if at, ok := m.readyOf(depKey(d.Key, d.Version)); d.ProgramOrder && ok {
			evt = max(evt, at)
		}
	}
	m.lc.observe(evt)
	if !m.installed[wk] { // else installed before a restart (installedKey)
		m.insertVersion(now, b.Key, object{value: b.Value, version: b.Version, evt: evt, writer: b.Writer}, r)
		r.Write(storage.Write{Kind: storage.Put, Key: installedKey(wk), Version: m.readyAt[wk]}, true)
	}
	r.Write(storage.Write{Kind: storage.Delete, Key: pendingKey(wk)}, true)
	m.released(wk, b.Key, r)
	m.probesSettled(wk)
	m.installed[wk] = true
	m.pushInstalled(b.Version)
	for from := range m.installedWaiters[wk] {
		m.okTo(from).inst[b.Version] = true
	}
	delete(m.installedWaiters, wk)
	targets := m.invalidationTargets(b.Key)
	iv := &invalidation{msg: &pb.Invalidate{Key: b.Key, Version: b.Version, Ring: int32(m.ring)},
		from: w.from, id: b.Id, pending: targets, gated: m.deps.Waiting(gateName(wk)), ordered: m.deps.Waiting(orderName(wk)), retry: protocol.SentAt(now)}
	m.inval[wk] = iv
	for _, c := range slices.Sorted(maps.Keys(targets)) {
		r.Send(m.id, c, iv.msg)
	}
	m.progress(wk, r)
}

// progress moves an installed write on: written itself once its caches
// have acknowledged and its put-after dependencies are written here, and
// written once, besides, its thread's earlier writes are written
// themselves here.
func (m *middleMan) progress(wk string, r *protocol.Ready) {
	iv := m.inval[wk]
	if iv == nil || len(iv.pending) > 0 || iv.gated {
		return
	}
	m.markSelfWritten(wk, iv.msg.Version)
	if iv.ordered {
		return
	}
	delete(m.inval, wk)
	m.written(iv.msg.Key, iv.msg.Version, iv.from, iv.id, r)
}

// markSelfWritten records that a version is written itself here and
// answers the DepChecks waiting for that.
func (m *middleMan) markSelfWritten(wk string, version uint64) {
	m.selfWritten[wk] = true
	for from := range m.selfWaiters[wk] {
		m.answerSelf(from, version)
	}
	delete(m.selfWaiters, wk)
}

// insertVersion adds an installed version to its key's history. A key's
// state at commit-clock time t is its highest version installed with
// evt <= t; versions may be installed out of evt order, so the history
// (store plus the multiversion window) keeps exactly the versions that are
// the state at some time: ordered by evt and by version alike.
func (m *middleMan) insertVersion(now time.Duration, key string, o object, r *protocol.Ready) {
	cur := m.store[key]
	switch {
	case o.version == cur.version:
		return // installed before a restart
	case o.version > cur.version:
		// Entries from o's evt on are older versions: never the state.
		old := m.old[key]
		for len(old) > 0 && old[len(old)-1].evt >= o.evt {
			old = old[:len(old)-1]
		}
		m.old[key] = old
		if cur.evt < o.evt {
			m.supersede(now, key)
		}
		m.store[key] = o
		r.Write(storage.Write{Kind: storage.Put, Key: "d/" + key, Version: o.version, Value: o.value}, true)
		r.Write(storage.Write{Kind: storage.DeleteBelow, Key: "d/" + key, Version: o.version}, true)
		r.VisibleVersion(key, o.value, o.version)
	case o.evt < cur.evt:
		// A last-writer-wins loser installed late: it is the state from
		// its evt until the next entry with a newer version, unless an
		// entry no later than it is newer.
		old := m.old[key]
		i := len(old)
		for i > 0 && old[i-1].evt > o.evt {
			i--
		}
		if i > 0 && old[i-1].version > o.version {
			return
		}
		j := i
		for j < len(old) && old[j].version < o.version {
			j++
		}
		ov := oldVersion{object: o, until: now, stable: m.isStable(key, o.version)}
		m.old[key] = slices.Concat(old[:i], []oldVersion{ov}, old[j:])
	}
}

// read answers a ring read, or holds it while versions of its key that
// were ready when it arrived are not installed yet (a reader may have read
// a later write of their thread elsewhere in the ring). A get-transaction's
// first round is not held: it reads the key as of just before the
// earliest such version's ready time, and claims no later validity; a
// second round is held only for versions ready at or before its time.
// A held read probes the earlier writes each such version still waits
// for (probe.go): one found not ready stops the read waiting for it.
func (m *middleMan) read(now time.Duration, from protocol.NodeID, b *pb.RingGet, r *protocol.Ready) {
	wait := map[string]bool{}
	first := uint64(0)
	for _, wk := range slices.Sorted(maps.Keys(m.pending)) {
		if m.pending[wk].msg.Key != b.Key {
			continue
		}
		at := m.readyAt[wk]
		if b.At == 0 || at <= b.At {
			wait[wk] = true
		}
		if first == 0 || at < first {
			first = at
		}
	}
	switch {
	case len(wait) == 0:
		m.get(from, b, false, 0, r)
	case b.Txn && b.At == 0:
		m.get(from, b, true, first-1, r)
	default:
		h := &heldRead{from: from, msg: b, waitFor: wait}
		if m.probeHeld(now, h, r) {
			m.held[b.Key] = append(m.held[b.Key], h)
		}
	}
}

// released answers the reads of key held for the version wk, now
// installed, that wait for nothing else.
func (m *middleMan) released(wk, key string, r *protocol.Ready) {
	var keep []*heldRead
	for _, h := range m.held[key] {
		delete(h.waitFor, wk)
		if len(h.waitFor) == 0 {
			m.answerHeld(h, r)
		} else {
			keep = append(keep, h)
		}
	}
	if len(keep) == 0 {
		delete(m.held, key)
		return
	}
	m.held[key] = keep
}

func addWaiter(w map[string]map[protocol.NodeID]bool, dk string, from protocol.NodeID) {
	if w[dk] == nil {
		w[dk] = map[protocol.NodeID]bool{}
	}
	w[dk][from] = true
}

// recoverPending reloads the writes that were ready here and not yet
// installed when the MM stopped, with their ready times: program-order
// DepChecks for them are answered at once, and they wait again for their
// thread's earlier writes (resumeWaits). The CC to acknowledge is learnt
// from the write's next retransmission.
func (m *middleMan) recoverPending(st storage.Reader) {
	_ = st.Scan("p/", func(rec storage.Record) error {
		var put pb.RingPut
		if proto.Unmarshal(rec.Value, &put) != nil {
			return nil
		}
		wk := rec.Key[2:]
		m.readyAt[wk] = rec.Version
		for _, d := range put.Deps {
			if d.ProgramOrder && d.Key != "" {
				// Persisted before program-order dependencies went
				// without keys: name it as unpackAfter does now.
				d.Key, d.Owner = "", ringIndex(m.topo, m.ring, d.Key)
			}
		}
		m.pending[wk] = &incomingWrite{msg: &put}
		m.learnKey(put.Key, put.Version)
		return nil
	})
	_ = st.Scan("i/", func(rec storage.Record) error {
		wk := rec.Key[2:]
		m.readyAt[wk] = rec.Version
		m.installed[wk] = true
		m.learnKeyOf(wk)
		return nil
	})
}

// resumeWaits sends again, after a restart, the DepChecks of the writes
// recovered as pending.
func (m *middleMan) resumeWaits(now time.Duration, r *protocol.Ready) {
	for _, wk := range slices.Sorted(maps.Keys(m.pending)) {
		m.pending[wk].ask = protocol.SentAt(now)
		m.waitPredecessors(now, m.pending[wk].msg, r)
		if !m.deps.Waiting(confName(wk)) {
			m.install(now, wk, r)
		}
	}
}

// installedHere reports whether a version is installed (readable) here.
func (m *middleMan) installedHere(dk string) bool { return m.installed[dk] || m.committed[dk] }
