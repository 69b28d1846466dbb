package topology

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// virtualPoints is the number of points each server owns on a hash ring.
const virtualPoints = 64

type ringPoint struct {
	hash   uint64
	dc     string
	server int
}

// hashRing is a consistent-hashing ring over servers.
type hashRing struct {
	points []ringPoint
	// hashes are the points' hashes, packed for the search of a key's
	// point (a key is looked up per message: the search walks 4 KB here
	// rather than the points' 20 KB).
	hashes []uint64
	// start indexes hashes by their top bits (index): start[h>>shift]
	// is where the search for h begins.
	start []int32
	shift uint
}

// FNV-1a's 64-bit offset basis and prime (hash/fnv's).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// hash64 is FNV-1a 64 of s (as hash/fnv's New64a computes it, without
// its allocations: a ring of MaxServers servers hashes 640,000 points)
// finished by splitmix64.
func hash64(s string) uint64 {
	h := uint64(fnvOffset64)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return mix64(h)
}

// mix64 is splitmix64's finalizer. FNV-1a mixes the low bits poorly for
// short keys: it spreads them so that points spread evenly.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

type serverRef struct {
	dc     string
	server int
}

func newHashRing(servers []serverRef) *hashRing {
	r := &hashRing{points: make([]ringPoint, 0, len(servers)*virtualPoints)}
	var buf []byte
	for _, s := range servers {
		// The point names "DC/SERVER#V", built in one buffer.
		buf = append(append(append(buf[:0], s.dc...), '/'), strconv.Itoa(s.server)...)
		buf = append(buf, '#')
		prefix := len(buf)
		for v := 0; v < virtualPoints; v++ {
			buf = strconv.AppendInt(buf[:prefix], int64(v), 10)
			r.points = append(r.points, ringPoint{hash: hash64(string(buf)), dc: s.dc, server: s.server})
		}
	}
	slices.SortFunc(r.points, func(a, b ringPoint) int {
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		if c := strings.Compare(a.dc, b.dc); c != 0 {
			return c
		}
		return cmp.Compare(a.server, b.server)
	})
	r.hashes = make([]uint64, len(r.points))
	for i, p := range r.points {
		r.hashes[i] = p.hash
	}
	r.index()
	return r
}

func (r *hashRing) first(key string) int { return r.firstAt(hash64(key)) }

// firstAt is the index of the first point at or after hash h, wrapping
// around (sort.Search's answer): from the first point of h's bucket
// (start), a step or two forward, instead of a binary search's nine
// mispredicted branches over a DC's 512 points.
func (r *hashRing) firstAt(h uint64) int {
	if len(r.start) == 0 {
		return 0
	}
	i := int(r.start[h>>r.shift])
	for i < len(r.hashes) && r.hashes[i] < h {
		i++
	}
	if i == len(r.hashes) {
		i = 0
	}
	return i
}

// index fills start: about two buckets per point (a power of two, 16 to
// 65,536), bucket b's entry the index of the first point whose hash is at
// least b's lowest hash (len(hashes) if none is).
func (r *hashRing) index() {
	bits := uint(4)
	for bits < 16 && 1<<bits < 2*len(r.hashes) {
		bits++
	}
	r.shift = 64 - bits
	r.start = make([]int32, 1<<bits)
	i := 0
	for b := range r.start {
		low := uint64(b) << r.shift
		for i < len(r.hashes) && r.hashes[i] < low {
			i++
		}
		r.start[b] = int32(i)
	}
}

func (r *hashRing) lookup(key string) ringPoint { return r.points[r.first(key)] }

// distinctServers walks the ring from key's point and returns the first n
// distinct servers met (the ring must have at least n).
func (r *hashRing) distinctServers(key string, n int) []int {
	out := make([]int, 0, n)
	start := r.first(key)
	// A scan of out is fastest for the few replicas of the papers; a large
	// n (a fuzzed chain of 10,000) would make it quadratic.
	var seen map[int]bool
	if n > 16 {
		seen = make(map[int]bool, n)
	}
	for k := 0; k < len(r.points) && len(out) < n; k++ {
		s := r.points[(start+k)%len(r.points)].server
		if seen != nil {
			if seen[s] {
				continue
			}
			seen[s] = true
		} else if slices.Contains(out, s) {
			continue
		}
		out = append(out, s)
	}
	return out
}
