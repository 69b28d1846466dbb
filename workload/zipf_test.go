package workload

import (
	"math"
	"testing"
)

// chiSquare draws samples from next (ranks 1..n) and returns the
// chi-square statistic against the law rank^-theta / H(n, theta), and its
// degrees of freedom. Ranks 1..20 are bins of their own, the rest are
// grouped into bins that expect at least 200 draws.
func chiSquare(next func() int64, n int64, theta float64, samples int) (stat float64, df int) {
	hn := harmonic(n, theta)
	return chiSquareLaw(next, n, func(k int64) float64 { return math.Pow(float64(k), -theta) / hn }, samples)
}

// chiSquareLaw is chiSquare against the law p(rank).
func chiSquareLaw(next func() int64, n int64, p func(k int64) float64, samples int) (stat float64, df int) {
	counts := make([]int, n+1)
	for range samples {
		k := next()
		if k < 1 || k > n {
			panic("rank out of range")
		}
		counts[k]++
	}
	var obs, exp float64
	flush := func() {
		if exp > 0 {
			stat += (obs - exp) * (obs - exp) / exp
			df++
		}
		obs, exp = 0, 0
	}
	for k := int64(1); k <= n; k++ {
		obs += float64(counts[k])
		exp += float64(samples) * p(k)
		if k <= 20 || exp >= 200 {
			flush()
		}
	}
	flush()
	return stat, df - 1
}

// chiBound is a generous acceptance bound for a chi-square statistic with
// df degrees of freedom: the mean plus six standard deviations.
func chiBound(df int) float64 { return float64(df) + 6*math.Sqrt(2*float64(df)) }

// TestZipfLaw checks that the exact sampler draws the zipf law
// rank^-theta / H(n, theta) for the constants the papers use: 0.99 (YCSB's
// default), 1.2 and 1.4 (K2's), and 0.5 (the smallest accepted), with a
// fixed seed; and that NewZipfianTheta draws its own stated law (Prob):
// the same exact law for every constant but 0.99, where it keeps YCSB's
// generator and Gray et al.'s law.
func TestZipfLaw(t *testing.T) {
	const n, samples = 1000, 300000
	for _, theta := range []float64{0.5, 0.99, 1.2, 1.4} {
		e := newZipfExact(n, theta)
		r := newRand(uint64(theta * 100))
		stat, df := chiSquare(func() int64 { return e.next(r) }, n, theta, samples)
		t.Logf("exact, theta %v: chi-square %.1f, %d degrees of freedom", theta, stat, df)
		if stat > chiBound(df) {
			t.Errorf("exact, theta %v: chi-square %.1f exceeds %.1f (%d degrees of freedom)", theta, stat, chiBound(df), df)
		}

		z := NewZipfianTheta(0, n-1, theta)
		stat, df = chiSquareLaw(func() int64 { return z.Next(r) + 1 }, n, func(k int64) float64 { return z.Prob(k - 1) }, samples)
		t.Logf("NewZipfianTheta, theta %v: chi-square %.1f, %d degrees of freedom", theta, stat, df)
		if stat > chiBound(df) {
			t.Errorf("NewZipfianTheta, theta %v: chi-square %.1f exceeds %.1f (%d degrees of freedom)", theta, stat, chiBound(df), df)
		}
	}
}

// TestZipfLawDetectsWrongTheta shows that the test above can fail: draws
// with constant 1.2 do not pass for the law of 1.4, nor 0.99's for 1.2.
func TestZipfLawDetectsWrongTheta(t *testing.T) {
	const n, samples = 1000, 300000
	for _, c := range []struct{ drawn, law float64 }{{1.2, 1.4}, {0.99, 1.2}} {
		z := NewZipfianTheta(0, n-1, c.drawn)
		r := newRand(7)
		stat, df := chiSquare(func() int64 { return z.Next(r) + 1 }, n, c.law, samples)
		if stat <= chiBound(df) {
			t.Errorf("draws of theta %v pass as theta %v (chi-square %.1f, %d df)", c.drawn, c.law, stat, df)
		}
	}
}

// TestZipfExactHugeRange checks the exact sampler over the scrambled
// zipfian's ten billion ranks: the head ranks come out with the law's
// probability, computed with the Euler-Maclaurin harmonic number.
func TestZipfExactHugeRange(t *testing.T) {
	const samples = 400000
	for _, theta := range []float64{1.2, 1.4} {
		z := newZipfExact(scrambledItemCount+1, theta)
		r := newRand(11)
		counts := map[int64]int{}
		for range samples {
			counts[z.next(r)]++
		}
		hn := harmonic(scrambledItemCount+1, theta)
		for k := int64(1); k <= 3; k++ {
			want := math.Pow(float64(k), -theta) / hn
			got := float64(counts[k]) / samples
			if math.Abs(got-want) > 5*math.Sqrt(want*(1-want)/samples) {
				t.Errorf("theta %v: rank %d drawn %.4f of the time, law says %.4f", theta, k, got, want)
			}
		}
	}
}

// TestHarmonic checks the Euler-Maclaurin harmonic number against the
// direct sum, and the known value zeta(1e10+1, 0.99) YCSB precomputes.
func TestHarmonic(t *testing.T) {
	for _, theta := range []float64{0.5, 0.99, 1, 1.2, 1.4, 3} {
		for _, n := range []int64{1, 999, 1000, 1001, 123457} {
			want := zetaStatic(0, n, theta, 0)
			if got := harmonic(n, theta); math.Abs(got-want) > 1e-9*want {
				t.Errorf("harmonic(%d, %v) = %.15g, direct sum %.15g", n, theta, got, want)
			}
		}
	}
	if got := harmonic(scrambledItemCount+1, ZipfianConstant); math.Abs(got-scrambledZetan) > 1e-6 {
		t.Errorf("harmonic(1e10+1, 0.99) = %.12g, YCSB's %.12g", got, scrambledZetan)
	}
}

// TestScrambledZipfTheta checks the scrambled zipfian with constant 1.2
// against the law its Popularity states, through a client.
func TestScrambledZipfTheta(t *testing.T) {
	const records, draws = 1000, 200000
	g := NewScrambledZipfianTheta(0, records-1, 1.2)
	p, tail := g.Popularity(1 << 12)
	sum := tail
	for _, v := range p {
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("probabilities sum to %v", sum)
	}
	w := mustLookup(t, "ycsb-c")
	w.ZipfConstant, w.RecordCount = 1.2, records
	c := w.NewClient("z", newRand(5))
	counts := map[int64]int{}
	for range draws {
		counts[keyIndex(t, c.Next().Key)]++
	}
	for k, pk := range p {
		want := pk + tail/records
		if want < 0.01 {
			continue
		}
		got := float64(counts[k]) / draws
		if math.Abs(got-want) > 5*math.Sqrt(want/draws) {
			t.Errorf("key %d drawn %.4f of the time, law says %.4f", k, got, want)
		}
	}
}

// TestZipfConstantValidate checks the accepted range of ZipfConstant.
func TestZipfConstantValidate(t *testing.T) {
	w := mustLookup(t, "ycsb-a")
	for _, c := range []struct {
		theta float64
		ok    bool
	}{{0, true}, {0.5, true}, {0.99, true}, {1, true}, {1.2, true}, {1.4, true}, {0.49, false}, {-1, false}, {math.NaN(), false}, {math.Inf(1), false}} {
		w.ZipfConstant = c.theta
		if err := w.Validate(); (err == nil) != c.ok {
			t.Errorf("ZipfConstant %v: Validate = %v, want ok=%v", c.theta, err, c.ok)
		}
	}
}
