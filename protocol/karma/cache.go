package karma

import (
	"container/list"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// cached is one object in a DC cache.
type cached struct {
	key     string
	value   []byte
	version uint64
	// clock is the commit clock the fill carried: at least the time the
	// version became readable in every ring (it was stable).
	clock uint64
}

// dcCache is a cache node of a DC (karma.txt §3, §4.3): it holds only
// stable values, filled by the DC's CCs after a miss, with bounded capacity
// and silent LRU eviction; middle men invalidate it before a new version
// counts as written.
//
// A fill must not outlive the middle man's memory of it: an MM forgets the
// caches of a key each time it invalidates them, so a fill that arrives
// after any invalidation of its key since the miss (whatever the versions)
// could never be invalidated again. The cache numbers its invalidations
// (seq), remembers the last one of each key, and refuses a fill whose miss
// came before it; and a fill is accepted only by the incarnation that
// answered the miss (epoch), because a restarted cache has forgotten.
type dcCache struct {
	id       protocol.NodeID
	capacity int
	epoch    uint64
	lru      *list.List               // of *cached, most recent first
	byKey    map[string]*list.Element // key -> element of lru
	seq      uint64                   // invalidations received
	lastInv  map[string]uint64        // key -> seq of its last invalidation
}

func newCache(p *Protocol, cfg protocol.NodeConfig) *dcCache {
	return &dcCache{id: cfg.ID, capacity: p.opts.CacheCapacity, epoch: cfg.Incarnation, lru: list.New(),
		byKey: map[string]*list.Element{}, lastInv: map[string]uint64{}}
}

// Start implements protocol.Node: the epoch is the cache's incarnation (a
// cache keeps nothing across a crash), or its start time from a runtime
// that does not count incarnations.
func (c *dcCache) Start(now time.Duration) protocol.Ready {
	if c.epoch == 0 {
		c.epoch = uint64(now) + 1
	}
	return protocol.Ready{}
}

// Tick implements protocol.Node (caches set no timers).
func (c *dcCache) Tick(time.Duration, uint64) protocol.Ready { return protocol.Ready{} }

// Step implements protocol.Node.
func (c *dcCache) Step(_ time.Duration, m protocol.Message) protocol.Ready {
	var r protocol.Ready
	switch b := m.Body.(type) {
	case *pb.CacheGet:
		rep := &pb.CacheGetReply{ReqId: b.ReqId, Key: b.Key, Epoch: c.epoch, Seq: c.seq}
		if e := c.byKey[b.Key]; e != nil {
			c.lru.MoveToFront(e)
			o := e.Value.(*cached)
			rep.Hit, rep.Value, rep.Version, rep.Clock = true, o.value, o.version, o.clock
		}
		r.Send(c.id, m.From, rep)
	case *pb.CacheFill:
		if b.Epoch == c.epoch && c.lastInv[b.Key] <= b.Seq {
			c.fill(b.Key, b.Value, b.Version, b.Clock)
		}
	case *pb.Invalidate:
		c.seq++
		c.lastInv[b.Key] = c.seq
		// Drop the key whatever version it has: the MM forgets this cache
		// for the key once invalidated, so a copy kept here (even of a
		// newer version) would miss the key's next invalidation.
		if e := c.byKey[b.Key]; e != nil {
			c.lru.Remove(e)
			delete(c.byKey, b.Key)
		}
		r.Send(c.id, m.From, &pb.InvalidateAck{Key: b.Key, Version: b.Version})
	}
	return r
}

func (c *dcCache) fill(key string, value []byte, version, clock uint64) {
	if e := c.byKey[key]; e != nil {
		o := e.Value.(*cached)
		if version > o.version {
			o.value, o.version = value, version
		}
		o.clock = max(o.clock, clock)
		c.lru.MoveToFront(e)
		return
	}
	c.byKey[key] = c.lru.PushFront(&cached{key: key, value: value, version: version, clock: clock})
	for c.lru.Len() > c.capacity {
		old := c.lru.Remove(c.lru.Back()).(*cached)
		delete(c.byKey, old.key) // silent eviction: the MMs are not told
	}
}
