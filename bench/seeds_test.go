package bench

import (
	"os"
	"strconv"
	"testing"
)

// seedCount is how many seeds a randomized test runs: def, unless the
// environment variable CAUSEWAY_SEEDS asks for more (make seeds-long sets
// it to 200) or -short or the race detector ask for fewer (short).
func seedCount(t testing.TB, def, short int) int {
	if s := os.Getenv("CAUSEWAY_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("CAUSEWAY_SEEDS=%q: want a positive number of seeds", s)
		}
		return n
	}
	if testing.Short() || raceEnabled {
		return short
	}
	return def
}
