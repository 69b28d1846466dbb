package k2

import "container/list"

// cacheKey names one version of a key in the cache.
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
// pin is released, evicted least recently used first.
type lru struct {
	cap   int
	order *list.List // front: most recently used
	items map[cacheKey]*list.Element
}

func newLRU(capacity int) *lru {
	return &lru{cap: capacity, order: list.New(), items: map[cacheKey]*list.Element{}}
}

// get returns the cached value of ⟨key, ver⟩ and marks it used.
func (c *lru) get(key string, ver uint64) ([]byte, bool) {
	el, ok := c.items[cacheKey{key, ver}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheItem).value, true
}

// put caches ⟨key, ver⟩, evicting the least recently used beyond cap.
func (c *lru) put(key string, ver uint64, value []byte) {
	if c.cap <= 0 {
		return
	}
	k := cacheKey{key, ver}
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(&cacheItem{k: k, value: value})
	for c.order.Len() > c.cap {
		el := c.order.Back()
		c.order.Remove(el)
		delete(c.items, el.Value.(*cacheItem).k)
	}
}
