package karma

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// Ready pushes (doc.go, "Ready pushes"). A write's MM in a ring that
// spans several DCs learns that its program-order predecessors are ready,
// and its put-after dependencies installed, from their owners. Asked of
// the owner when the write arrives, each answer costs a round trip
// between the two DCs after the arrival, even when the predecessor has
// been ready for long. Instead every MM pushes the facts as they happen
// (a version ready, with its ready time; a version installed) to its
// proxy in each other DC of its ring: the MM with its server index there.
// An MM asks a remote owner's proxy in its own DC (DepCheck.proxy), which
// answers at once from the pushes, or as soon as the push comes; when the
// MM is itself the proxy it asks nobody and the push answers it. A
// predecessor's readiness then reaches the write's MM one one-way delay
// after it happens, which is as soon as any implementation of the ring's
// program order can know it (bench's ordered bound).
//
// The facts are the owner's own and never change (a ready time is
// persisted before it is pushed or answered, and installation is
// persisted), so relaying them is as sound as the owner's answer. A proxy
// keeps them as a cache: pushes can be lost (a partition, a restart of
// the proxy, which forgets them), and facts older than pushHorizon are
// forgotten. Nothing waits on the cache for long: the asker's waits are
// in its dependency table as before, and their re-asks (resend.go) go to
// the owner itself.

// pushHorizon is how long a proxy keeps pushed facts and the asks that
// wait for them. Writes in flight longer than this are asked of their
// owner (resend.go's re-asks).
const pushHorizon = 10 * time.Second

// pushState is an MM's side of ready pushes: what it gathers to push in
// this step, and what it holds as a proxy.
type pushState struct {
	// out gathers this step's pushes by destination (flushPushes).
	out map[protocol.NodeID]*okBatch
	// peerReady and peerInstalled are the facts pushed to this MM, by
	// version; log lists them in arrival order for pruning.
	peerReady     map[uint64]uint64
	peerInstalled map[uint64]bool
	log           []pushedFact
	// waiters are the proxied asks not answered yet, by version;
	// waitLog lists them in arrival order for pruning.
	waiters map[uint64]map[protocol.NodeID]askKind
	waitLog []pushedFact
}

// pushedFact is a version and when a fact about it (or an ask) came.
type pushedFact struct {
	at      time.Duration
	version uint64
}

func newPushState() pushState {
	return pushState{out: map[protocol.NodeID]*okBatch{}, peerReady: map[uint64]uint64{},
		peerInstalled: map[uint64]bool{}, waiters: map[uint64]map[protocol.NodeID]askKind{}}
}

// proxyIn is the MM of dc that is node's proxy there: the one with
// node's server index (modulo dc's servers).
func (m *middleMan) proxyIn(dc string, node protocol.NodeID) protocol.NodeID {
	i, _ := strconv.Atoi(strings.TrimPrefix(node.Name(), "s"))
	return protocol.MakeNodeID(dc, storageName(i%max(dcServers(m.topo, dc), 1)))
}

// pushTo returns the batch of pushes for dest in this step.
func (m *middleMan) pushTo(dest protocol.NodeID) *okBatch {
	o := m.push.out[dest]
	if o == nil {
		o = &okBatch{ready: map[uint64]uint64{}, inst: map[uint64]bool{}}
		m.push.out[dest] = o
	}
	return o
}

// pushReady pushes that this MM's write version became ready at at.
func (m *middleMan) pushReady(version, at uint64) {
	for _, dc := range m.topo.Rings()[m.ring] {
		if dc != m.dc {
			m.pushTo(m.proxyIn(dc, m.id)).ready[version] = at
		}
	}
}

// pushInstalled pushes that this MM installed its write version.
func (m *middleMan) pushInstalled(version uint64) {
	for _, dc := range m.topo.Rings()[m.ring] {
		if dc != m.dc {
			m.pushTo(m.proxyIn(dc, m.id)).inst[version] = true
		}
	}
}

// flushPushes sends this step's pushes, one ReadyPush per proxy.
func (m *middleMan) flushPushes(r *protocol.Ready) {
	if len(m.push.out) == 0 {
		return
	}
	for _, to := range slices.Sorted(maps.Keys(m.push.out)) {
		o := m.push.out[to]
		p := &pb.ReadyPush{Clock: m.lc.now}
		vs := slices.Sorted(maps.Keys(o.ready))
		for _, v := range vs {
			p.ReadyAgo = append(p.ReadyAgo, m.lc.now-o.ready[v])
		}
		p.ReadyVersions = packVersions(vs)
		p.InstalledVersions = packVersions(slices.Collect(maps.Keys(o.inst)))
		r.Send(m.id, to, p)
	}
	clear(m.push.out)
}

// proxyAsks moves, for each owner in another DC of the ring, the ready
// and installed parts of its DepCheck (asks, by owner) into one for the
// owner's proxy in this DC, marked proxy, and returns those (by proxy);
// the written-themselves and written parts still go to the owner. When
// this MM is the proxy it asks nobody: the owner's push will come here.
func (m *middleMan) proxyAsks(asks map[protocol.NodeID]*pb.DepCheck) map[protocol.NodeID]*pb.DepCheck {
	var proxied map[protocol.NodeID]*pb.DepCheck
	for _, owner := range slices.Sorted(maps.Keys(asks)) {
		if owner.DC() == m.dc {
			continue
		}
		c := asks[owner]
		ready := append(append([]uint64(nil), c.After...), c.AfterReady...)
		installed := c.Installed
		c.AfterSelf = append(c.AfterSelf, c.After...)
		c.After, c.AfterReady, c.Installed = nil, nil, nil
		if len(c.AfterSelf) == 0 && len(c.Written) == 0 {
			delete(asks, owner)
		}
		proxy := m.proxyIn(m.dc, owner)
		if proxy == m.id || (len(ready) == 0 && len(installed) == 0) {
			continue
		}
		if proxied == nil {
			proxied = map[protocol.NodeID]*pb.DepCheck{}
		}
		p := proxied[proxy]
		if p == nil {
			p = &pb.DepCheck{Proxy: true}
			proxied[proxy] = p
		}
		p.AfterReady = append(p.AfterReady, ready...)
		p.Installed = append(p.Installed, installed...)
	}
	return proxied
}

// askedAsProxy answers a proxied DepCheck from the pushed facts, or
// keeps each ask until the push comes.
func (m *middleMan) askedAsProxy(now time.Duration, from protocol.NodeID, b *pb.DepCheck) {
	m.prunePushes(now)
	for _, v := range unpackVersions(b.AfterReady) {
		if at, ok := m.push.peerReady[v]; ok {
			m.answerReady(from, v, at)
		} else {
			m.proxyWait(now, v, from, askReady)
		}
	}
	for _, v := range unpackVersions(b.Installed) {
		if m.push.peerInstalled[v] {
			m.okTo(from).inst[v] = true
		} else {
			m.proxyWait(now, v, from, askInstalled)
		}
	}
}

func (m *middleMan) proxyWait(now time.Duration, v uint64, from protocol.NodeID, kind askKind) {
	w := m.push.waiters[v]
	if w == nil {
		w = map[protocol.NodeID]askKind{}
		m.push.waiters[v] = w
	}
	w[from] |= kind
	m.push.waitLog = append(m.push.waitLog, pushedFact{at: now, version: v})
}

// pushed handles a ReadyPush: it keeps the facts, answers the proxied
// asks waiting for them, and satisfies this MM's own waits for them.
func (m *middleMan) pushed(now time.Duration, b *pb.ReadyPush, r *protocol.Ready) {
	m.prunePushes(now)
	vs := unpackVersions(b.ReadyVersions)
	for i, v := range vs {
		if i >= len(b.ReadyAgo) || b.ReadyAgo[i] > b.Clock {
			continue // malformed
		}
		at := b.Clock - b.ReadyAgo[i]
		m.push.peerReady[v] = at
		m.push.log = append(m.push.log, pushedFact{at: now, version: v})
		m.answerWaiters(v, askReady, func(from protocol.NodeID) { m.answerReady(from, v, at) })
		if dk := depKey("", v); m.deps.Awaited(readyPrefix + dk) {
			m.knownReady[dk] = at
			m.depSatisfied(now, readyPrefix+dk, r)
		}
	}
	for _, v := range unpackVersions(b.InstalledVersions) {
		m.push.peerInstalled[v] = true
		m.push.log = append(m.push.log, pushedFact{at: now, version: v})
		m.answerWaiters(v, askInstalled, func(from protocol.NodeID) { m.okTo(from).inst[v] = true })
		if key, ok := m.keyOf[v]; ok {
			if dk := depKey(key, v); m.deps.Awaited(installedPrefix + dk) {
				m.knownInstalled[dk] = true
				m.depSatisfied(now, installedPrefix+dk, r)
			}
		}
	}
}

// answerWaiters answers the proxied asks of kind about v.
func (m *middleMan) answerWaiters(v uint64, kind askKind, answer func(from protocol.NodeID)) {
	w := m.push.waiters[v]
	for _, from := range slices.Sorted(maps.Keys(w)) {
		if w[from]&kind != 0 {
			answer(from)
			if w[from] &^= kind; w[from] == 0 {
				delete(w, from)
			}
		}
	}
	if len(w) == 0 {
		delete(m.push.waiters, v)
	}
}

// pushedReadyOf is a pushed ready time of a program-order dependency
// named by version ("@<version>"), copied into knownReady when found: a
// write that arrives after the push waits for nothing.
func (m *middleMan) pushedReadyOf(dk string) bool {
	v, ok := strings.CutPrefix(dk, "@")
	if !ok {
		return false
	}
	version, err := strconv.ParseUint(v, 16, 64)
	if err != nil {
		return false
	}
	at, ok := m.push.peerReady[version]
	if ok {
		m.knownReady[dk] = at
	}
	return ok
}

// pushedInstalledOf reports whether version's installation was pushed
// here, copying it into knownInstalled (dk) when it was.
func (m *middleMan) pushedInstalledOf(dk string, version uint64) bool {
	if !m.push.peerInstalled[version] {
		return false
	}
	m.knownInstalled[dk] = true
	return true
}

// prunePushes forgets the facts and the waiting asks older than
// pushHorizon.
func (m *middleMan) prunePushes(now time.Duration) { m.push.prune(now) }

// prune forgets the facts and the waiting asks that came before
// now - pushHorizon (a fact about a version that came again since goes
// too: this is a cache).
func (p *pushState) prune(now time.Duration) {
	n := 0
	for n < len(p.log) && p.log[n].at+pushHorizon < now {
		delete(p.peerReady, p.log[n].version)
		delete(p.peerInstalled, p.log[n].version)
		n++
	}
	p.log = p.log[n:]
	n = 0
	for n < len(p.waitLog) && p.waitLog[n].at+pushHorizon < now {
		delete(p.waiters, p.waitLog[n].version)
		n++
	}
	p.waitLog = p.waitLog[n:]
}
