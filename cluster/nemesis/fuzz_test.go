package nemesis

import (
	"strings"
	"testing"
)

// FuzzParse: any input is either refused with a "nemesis:" error, or
// parses into a schedule in time order whose every event renders (String)
// as a schedule line that parses back to the same line.
func FuzzParse(f *testing.F) {
	cfg := testConfig(f, "karma")
	f.Add([]byte(DefaultSchedule))
	for _, s := range []string{
		"",
		"- {at: 1s, kill: \"node:a/s0\"}\n",
		"- {at: 1s, partition: {dc: c, peers: [a], direction: in}}\n- {at: 0s, heal: partitions}\n",
		"- {at: 2s, clock_skew: {target: \"zone:b/*\", ms: -3600000}}\n",
		"- {at: 2s, delay: {dc: a, add_ms: 0}}\n",
		"- {at: 1s, pause: \"dc:*\"}\n---\n",
		"x: &a [*a, *a]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, cfg)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "nemesis: ") {
				t.Fatalf("error without the package's prefix: %v", err)
			}
			return
		}
		for i, e := range s {
			if i > 0 && s[i-1].At > e.At {
				t.Fatalf("events out of order: %v before %v", s[i-1], e)
			}
			line := e.String()
			again, err := Parse([]byte("- "+line+"\n"), cfg)
			if err != nil || len(again) != 1 || again[0].String() != line {
				t.Fatalf("event %q does not parse back: %v", line, err)
			}
		}
	})
}
