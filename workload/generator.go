// NOTICE: this file is a port of the core key generators of go-ycsb
// (https://github.com/pingcap/go-ycsb, pkg/generator and pkg/util/hash.go),
// which are themselves a port of the Java YCSB generators
// (https://github.com/brianfrankcooper/YCSB, core/.../generator). Both are
// distributed under the Apache License, Version 2.0. Their notices follow.
//
// Copyright 2018 PingCAP, Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
//
// Copyright (c) 2010-2016 Yahoo! Inc., 2017 YCSB contributors. All rights
// reserved. Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License. You may
// obtain a copy of the License at http://www.apache.org/licenses/LICENSE-2.0.
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
// WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
// License for the specific language governing permissions and limitations
// under the License.
//
// Changes from go-ycsb (Causeway contributors):
//   - every generator draws from a caller-supplied *rand.Rand of
//     math/rand/v2; nothing reads the clock or the global source, and the
//     constructors no longer draw a warm-up value, so a seeded rand.Rand
//     fixes the whole sequence;
//   - the zipfian constant defaults to 0.99 (ZipfianConstant); any other
//     constant draws exactly by rejection-inversion (zipf.go), since Gray
//     et al.'s formula assumes theta < 1 and its zeta over ten billion
//     items is precomputed only for 0.99;
//   - Zipfian recomputes eta for the current item count when the count
//     grows (upstream keeps using the construction-time count), and clamps
//     its result into range against floating-point rounding;
//   - ScrambledZipfian reduces the hash modulo the item count as unsigned,
//     so the one hash whose absolute value overflows cannot go negative;
//   - Counter is not atomic and follows the Java YCSB semantics (Next
//     returns the current value, then increments);
//   - Latest draws over [0, Last] inclusive (upstream never returns 0);
//   - the Number/Last bookkeeping and locks are dropped: generators are
//     owned by one client.

package workload

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
)

// Generator produces a sequence of int64 items, drawing any randomness from
// the *rand.Rand it is given.
type Generator interface {
	// Next returns the next item of the sequence.
	Next(r *rand.Rand) int64
}

// ZipfianConstant is the default skew (theta) of the zipfian generators,
// the YCSB default. With it they use YCSB's algorithm (Gray et al.); with
// any other constant, the exact rejection-inversion sampler.
const ZipfianConstant = 0.99

const (
	// scrambledItemCount is the size of the item space the scrambled
	// zipfian draws from before hashing it down to the real range.
	scrambledItemCount = int64(10000000000)
	// scrambledZetan is zeta(scrambledItemCount+1, 0.99), precomputed by
	// YCSB because the sum has ten billion terms.
	scrambledZetan = 26.46902820178302
)

// Uniform draws items uniformly from a fixed inclusive range.
type Uniform struct {
	min, n int64
}

// NewUniform returns a generator of items uniform over [lb, ub] inclusive.
// It panics if ub < lb.
func NewUniform(lb, ub int64) *Uniform {
	if ub < lb {
		panic("workload: NewUniform: empty range")
	}
	return &Uniform{min: lb, n: ub - lb + 1}
}

// Next returns an item uniform over the generator's range.
func (u *Uniform) Next(r *rand.Rand) int64 {
	return u.min + r.Int64N(u.n)
}

// Zipfian draws items from [min, max] with a zipfian distribution: min is
// the most popular item, min+1 the next, and so on. It uses the algorithm of
// Gray et al., "Quickly Generating Billion-Record Synthetic Databases",
// SIGMOD 1994. Construction costs O(max-min) for the zeta sum.
//
// A Zipfian whose item count never changes (the case for everything but
// Latest) is read-only after construction.
type Zipfian struct {
	items int64
	base  int64

	theta      float64
	alpha      float64
	zetan      float64
	eta        float64
	zeta2Theta float64

	countForZeta int64

	// exact, when set, draws instead of Gray et al.'s formula (theta is
	// not ZipfianConstant); the fields above are then unused.
	exact *zipfExact
	// hn is H(items, theta), for Prob with the exact sampler.
	hn float64
}

// NewZipfian returns a zipfian generator over [min, max] inclusive with
// constant ZipfianConstant. It panics if max < min.
func NewZipfian(min, max int64) *Zipfian {
	if max < min {
		panic("workload: NewZipfian: empty range")
	}
	return newZipfian(min, max, zetaStatic(0, max-min+1, ZipfianConstant, 0))
}

// NewZipfianTheta returns a zipfian generator over [min, max] inclusive
// with constant theta > 0: YCSB's generator for ZipfianConstant, the exact
// rejection-inversion sampler for any other. It panics if max < min or
// theta <= 0.
func NewZipfianTheta(min, max int64, theta float64) *Zipfian {
	if theta == ZipfianConstant {
		return NewZipfian(min, max)
	}
	if max < min {
		panic("workload: NewZipfianTheta: empty range")
	}
	items := max - min + 1
	return &Zipfian{items: items, base: min, theta: theta, countForZeta: items,
		exact: newZipfExact(items, theta), hn: harmonic(items, theta)}
}

// newZipfian builds a zipfian generator over [min, max] given the
// precomputed zeta of its item count.
func newZipfian(min, max int64, zetan float64) *Zipfian {
	items := max - min + 1
	theta := ZipfianConstant
	z := &Zipfian{
		items:        items,
		base:         min,
		theta:        theta,
		zeta2Theta:   zetaStatic(0, 2, theta, 0),
		alpha:        1.0 / (1.0 - theta),
		zetan:        zetan,
		countForZeta: items,
	}
	z.eta = z.etaFor(items)
	return z
}

// etaFor returns the eta parameter for n items under the current zetan.
func (z *Zipfian) etaFor(n int64) float64 {
	return (1 - math.Pow(2.0/float64(n), 1-z.theta)) / (1 - z.zeta2Theta/z.zetan)
}

// zetaStatic adds the terms st+1 .. n of the zeta sum of theta to
// initialSum.
func zetaStatic(st, n int64, theta, initialSum float64) float64 {
	sum := initialSum
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// next draws an item from [base, base+itemCount), first bringing zeta up to
// date if the item count changed.
func (z *Zipfian) next(r *rand.Rand, itemCount int64) int64 {
	if z.exact != nil {
		if itemCount != z.exact.n {
			z.exact.resize(itemCount)
		}
		return z.base + z.exact.next(r) - 1
	}
	if itemCount != z.countForZeta {
		if itemCount > z.countForZeta {
			// More items: extend the zeta sum incrementally.
			z.zetan = zetaStatic(z.countForZeta, itemCount, z.theta, z.zetan)
		} else {
			// Fewer items: recompute from scratch (slow for large counts).
			z.zetan = zetaStatic(0, itemCount, z.theta, 0)
		}
		z.countForZeta = itemCount
		z.eta = z.etaFor(itemCount)
	}

	u := r.Float64()
	uz := u * z.zetan
	if uz < 1.0 {
		return z.base
	}
	if uz < 1.0+math.Pow(0.5, z.theta) {
		return z.base + 1
	}
	f := float64(itemCount) * math.Pow(z.eta*u-z.eta+1, z.alpha)
	switch {
	case !(f < float64(itemCount)): // also catches NaN
		return z.base + itemCount - 1
	case f < 0:
		return z.base
	}
	return z.base + int64(f)
}

// Next returns an item of [min, max], smaller items being more popular.
func (z *Zipfian) Next(r *rand.Rand) int64 {
	return z.next(r, z.items)
}

// ScrambledZipfian draws items from [min, max] with a zipfian popularity,
// but with the popular items scattered over the range rather than clustered
// at min: it draws a zipfian item over ten billion items and reduces its
// FNV-64 hash into the range. It is read-only after construction.
type ScrambledZipfian struct {
	gen       *Zipfian
	min       int64
	itemCount int64
}

// NewScrambledZipfian returns a scrambled zipfian generator over [min, max]
// inclusive. It panics if max < min.
func NewScrambledZipfian(min, max int64) *ScrambledZipfian {
	if max < min {
		panic("workload: NewScrambledZipfian: empty range")
	}
	return &ScrambledZipfian{
		gen:       newZipfian(0, scrambledItemCount, scrambledZetan),
		min:       min,
		itemCount: max - min + 1,
	}
}

// NewScrambledZipfianTheta is NewScrambledZipfian with zipf constant
// theta > 0 over the same ten billion items (see NewZipfianTheta).
func NewScrambledZipfianTheta(min, max int64, theta float64) *ScrambledZipfian {
	if theta == ZipfianConstant {
		return NewScrambledZipfian(min, max)
	}
	if max < min {
		panic("workload: NewScrambledZipfianTheta: empty range")
	}
	return &ScrambledZipfian{
		gen:       NewZipfianTheta(0, scrambledItemCount, theta),
		min:       min,
		itemCount: max - min + 1,
	}
}

// Next returns an item of [min, max].
func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	n := s.gen.Next(r)
	return s.min + int64(uint64(hash64(n))%uint64(s.itemCount))
}

// Counter generates the sequence start, start+1, start+2, ... It is not
// safe for concurrent use.
type Counter struct {
	next int64
}

// NewCounter returns a counter whose first item is start.
func NewCounter(start int64) *Counter {
	return &Counter{next: start}
}

// Next returns the counter's current value and advances it; r is unused.
func (c *Counter) Next(_ *rand.Rand) int64 {
	v := c.next
	c.next++
	return v
}

// Last returns the most recent item returned by Next (start-1 before the
// first call).
func (c *Counter) Last() int64 {
	return c.next - 1
}

// Latest draws items from [0, basis.Last()] with a zipfian popularity
// skewed toward the most recent items: basis.Last() is the most popular,
// basis.Last()-1 the next, and so on. As the basis counter advances, the
// range grows with it. It is not safe for concurrent use.
type Latest struct {
	basis   *Counter
	zipfian *Zipfian
}

// NewLatest returns a generator skewed toward the latest item of basis. It
// panics if basis has produced no item yet (basis.Last() < 0).
func NewLatest(basis *Counter) *Latest {
	last := basis.Last()
	if last < 0 {
		panic("workload: NewLatest: basis counter has no items")
	}
	return &Latest{basis: basis, zipfian: NewZipfian(0, last)}
}

// NewLatestTheta is NewLatest with zipf constant theta > 0 (see
// NewZipfianTheta).
func NewLatestTheta(basis *Counter, theta float64) *Latest {
	last := basis.Last()
	if last < 0 {
		panic("workload: NewLatestTheta: basis counter has no items")
	}
	return &Latest{basis: basis, zipfian: NewZipfianTheta(0, last, theta)}
}

// Next returns an item of [0, basis.Last()], recent items being more
// popular.
func (l *Latest) Next(r *rand.Rand) int64 {
	max := l.basis.Last()
	return max - l.zipfian.next(r, max+1)
}

// FNV-1a 64-bit parameters.
const (
	fnv64Offset = 14695981039346656037
	fnv64Prime  = 1099511628211
)

// hash64 returns the absolute value of the FNV-1a 64-bit hash of the
// big-endian bytes of n, as go-ycsb's util.Hash64 does.
func hash64(n int64) int64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	h := uint64(fnv64Offset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnv64Prime
	}
	v := int64(h)
	if v < 0 {
		return -v
	}
	return v
}

// Popularity returns the probability of each key (item of [min, max]) that
// one of the head most popular of the ten billion zipfian items reduces to,
// as Next draws them (Gray et al.'s algorithm: exact for the two most
// popular items, the continuous approximation for the others), and tail,
// the probability of all the other items, which the hash spreads over the
// range. Several items may reduce to one key, so p may have fewer than
// head entries. It costs O(head).
func (s *ScrambledZipfian) Popularity(head int) (p map[int64]float64, tail float64) {
	z := s.gen
	p = make(map[int64]float64, head)
	tail = 1
	for i := int64(0); i < int64(head); i++ {
		pi := z.Prob(i)
		p[s.min+int64(uint64(hash64(i))%uint64(s.itemCount))] += pi
		tail -= pi
	}
	return p, max(0, tail)
}

// Prob returns the probability that Next draws min+i, for the generator's
// construction-time item count: i^-theta / H(n, theta) for the exact
// sampler; for YCSB's (theta = ZipfianConstant), the law Gray et al.'s
// algorithm draws, exact for the two most popular items and the
// continuous approximation for the others (it deviates from the exact
// zipf law by a few percent in the middle ranks).
func (z *Zipfian) Prob(i int64) float64 {
	if i < 0 || i >= z.items {
		return 0
	}
	if z.exact != nil {
		return math.Pow(float64(i+1), -z.theta) / z.hn
	}
	switch i {
	case 0:
		return 1 / z.zetan
	case 1:
		return math.Pow(0.5, z.theta) / z.zetan
	}
	// Next returns item i >= 2 when u lies in [u(i), u(i+1)), where u(x)
	// solves n·(η·u − η + 1)^α = x, clipped to the draws that reach the
	// formula.
	lo := (1 + math.Pow(0.5, z.theta)) / z.zetan
	u := func(x int64) float64 {
		v := (math.Pow(float64(x)/float64(z.items), 1-z.theta) - 1 + z.eta) / z.eta
		return min(1, max(lo, v))
	}
	return u(i+1) - u(i)
}
