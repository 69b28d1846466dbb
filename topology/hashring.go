package topology

import (
	"cmp"
	"hash/fnv"
	"slices"
	"sort"
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
type hashRing struct{ points []ringPoint }

func hash64(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	// FNV-1a mixes the low bits poorly for short keys: finish with a
	// splitmix64 step so that points spread evenly.
	x := h.Sum64()
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
	for _, s := range servers {
		for v := 0; v < virtualPoints; v++ {
			h := hash64(s.dc + "/" + strconv.Itoa(s.server) + "#" + strconv.Itoa(v))
			r.points = append(r.points, ringPoint{hash: h, dc: s.dc, server: s.server})
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
	return r
}

func (r *hashRing) first(key string) int {
	h := hash64(key)
	i := sort.Search(len(r.points), func(i int) bool { return r.points[i].hash >= h })
	if i == len(r.points) {
		i = 0
	}
	return i
}

func (r *hashRing) lookup(key string) ringPoint { return r.points[r.first(key)] }

// distinctDCs walks the ring from key's point and returns the first n
// distinct DCs met.
func (r *hashRing) distinctDCs(key string, n int) []string {
	out := make([]string, 0, n)
	start := r.first(key)
	for k := 0; k < len(r.points) && len(out) < n; k++ {
		p := r.points[(start+k)%len(r.points)]
		if !contains(out, p.dc) {
			out = append(out, p.dc)
		}
	}
	return out
}

// distinctServers walks the ring from key's point and returns the first n
// distinct servers met (the ring must have at least n).
func (r *hashRing) distinctServers(key string, n int) []int {
	out := make([]int, 0, n)
	start := r.first(key)
	for k := 0; k < len(r.points) && len(out) < n; k++ {
		if s := r.points[(start+k)%len(r.points)].server; !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
