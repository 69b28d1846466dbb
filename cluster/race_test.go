//go:build race

package cluster_test

// raceEnabled is true under the race detector.
const raceEnabled = true
