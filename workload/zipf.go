package workload

import (
	"math"
	"math/rand/v2"
)

// MinZipfConstant is the smallest zipf constant (theta) a workload accepts.
const MinZipfConstant = 0.5

// zipfExact draws ranks 1..n with probability proportional to rank^-theta,
// exactly, for any theta > 0, by rejection-inversion (W. Hörmann and G.
// Derflinger, "Rejection-inversion to generate variates from monotone
// discrete distributions", ACM TOMACS 6(3), 1996), as Apache Commons RNG's
// RejectionInversionZipfSampler does. It costs O(1) memory and an expected
// O(1) time per draw whatever n (the scrambled zipfian draws over ten
// billion ranks), and, unlike Gray et al.'s formula, it does not assume
// theta < 1.
type zipfExact struct {
	n     int64
	theta float64
	// hX1 is hIntegral(1.5) - 1, hN is hIntegral(n + 0.5), s the
	// squeeze constant: a draw k with k - x <= s is accepted at once.
	hX1, hN, s float64
}

// newZipfExact returns the sampler of ranks 1..n. It panics if n < 1 or
// theta <= 0.
func newZipfExact(n int64, theta float64) *zipfExact {
	if n < 1 || !(theta > 0) {
		panic("workload: zipf over an empty range or with theta <= 0")
	}
	z := &zipfExact{theta: theta}
	z.hX1 = z.hIntegral(1.5) - 1
	z.s = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	z.resize(n)
	return z
}

// resize changes the number of ranks (Latest's range grows with inserts).
func (z *zipfExact) resize(n int64) {
	z.n = n
	z.hN = z.hIntegral(float64(n) + 0.5)
}

// next draws a rank in [1, n].
func (z *zipfExact) next(r *rand.Rand) int64 {
	for {
		u := z.hN + r.Float64()*(z.hX1-z.hN)
		x := z.hIntegralInverse(u)
		k := int64(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if float64(k)-x <= z.s || u >= z.hIntegral(float64(k)+0.5)-z.h(float64(k)) {
			return k
		}
	}
}

// h is the unnormalised density x^-theta.
func (z *zipfExact) h(x float64) float64 { return math.Exp(-z.theta * math.Log(x)) }

// hIntegral is an antiderivative of h: (x^(1-theta) - 1) / (1 - theta),
// or log x when theta is 1, computed stably near theta = 1.
func (z *zipfExact) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return expm1Over((1-z.theta)*lx) * lx
}

// hIntegralInverse inverts hIntegral.
func (z *zipfExact) hIntegralInverse(x float64) float64 {
	t := x * (1 - z.theta)
	if t < -1 {
		t = -1 // rounding: the log1p argument stays in its domain
	}
	return math.Exp(log1pOver(t) * x)
}

// log1pOver returns log(1+x)/x, and its limit 1 at 0.
func log1pOver(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3.0-0.25*x))
}

// expm1Over returns (exp(x)-1)/x, and its limit 1 at 0.
func expm1Over(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3.0)*(1+0.25*x))
}

// harmonic returns the generalized harmonic number H(n, theta) = sum of
// i^-theta for i in 1..n: summed directly up to a thousand terms, beyond
// them by the Euler-Maclaurin formula (accurate to about 1e-15 relative).
func harmonic(n int64, theta float64) float64 {
	const direct = 1000
	if n <= direct {
		return zetaStatic(0, n, theta, 0)
	}
	m := float64(direct)
	sum := zetaStatic(0, direct-1, theta, 0) // terms 1 .. m-1
	fn := float64(n)
	// The integral of x^-theta over [m, n] ...
	var integral float64
	if theta == 1 {
		integral = math.Log(fn / m)
	} else {
		integral = (math.Pow(fn, 1-theta) - math.Pow(m, 1-theta)) / (1 - theta)
	}
	// ... plus the end corrections with the first two Bernoulli terms.
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	d1 := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
	d3 := func(x float64) float64 { return -theta * (theta + 1) * (theta + 2) * math.Pow(x, -theta-3) }
	return sum + integral + (f(m)+f(fn))/2 + (d1(fn)-d1(m))/12 - (d3(fn)-d3(m))/720
}
