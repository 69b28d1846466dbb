//go:build race

package bench

// raceEnabled is true under the race detector, which slows the simulator
// about tenfold; the randomized tests then run fewer seeds (make test runs
// them again without -race over all seeds).
const raceEnabled = true
