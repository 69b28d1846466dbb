package k2

import "container/list"

// cacheKey names one version of a key.
type cacheKey struct {
	key string
	ver uint64
}

type cacheItem struct {
	k     cacheKey
	value []byte
}

// lru is a server's share of the DC cache (k2.txt §III-A): values of
// non-replica keys fetched from other DCs and of local writes once their
// pin is released, evicted least recently used first. Its size counts
// keys (k2.txt §VII-B: "a cache size of 5% of the total keys"), and it
// holds one value per key, the newest version's it was given: once a
// newer version of a key is cached, an older one is a remote fetch again,
// so find_ts's earliest usable time moves with the DC's cache instead of
// staying where each session's read_ts was.
type lru struct {
	cap   int
	order *list.List // front: most recently used
	items map[string]*list.Element
}

func newLRU(capacity int) *lru {
	return &lru{cap: capacity, order: list.New(), items: map[string]*list.Element{}}
}

// get returns the cached value of ⟨key, ver⟩ and marks the key used.
func (c *lru) get(key string, ver uint64) ([]byte, bool) {
	el, ok := c.items[key]
	if !ok || el.Value.(*cacheItem).k.ver != ver {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheItem).value, true
}

// put caches ⟨key, ver⟩ unless a newer version of key is cached,
// evicting the least recently used keys beyond cap.
func (c *lru) put(key string, ver uint64, value []byte) {
	if c.cap <= 0 {
		return
	}
	if el, ok := c.items[key]; ok {
		it := el.Value.(*cacheItem)
		if ver >= it.k.ver {
			it.k.ver, it.value = ver, value
			c.order.MoveToFront(el)
		}
		return
	}
	c.items[key] = c.order.PushFront(&cacheItem{k: cacheKey{key, ver}, value: value})
	for c.order.Len() > c.cap {
		el := c.order.Back()
		c.order.Remove(el)
		delete(c.items, el.Value.(*cacheItem).k.key)
	}
}
