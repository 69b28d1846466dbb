package check

import (
	"bytes"
	"strings"
	"testing"

	"github.com/causeway/causeway/history"
)

func parse(t *testing.T, jsonl string) *history.History {
	t.Helper()
	h, err := history.Parse(strings.NewReader(jsonl))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return h
}

// expect checks h and wants exactly the given rules (in report order);
// none means the history must pass. It returns the result.
func expect(t *testing.T, jsonl string, rules ...string) Result {
	t.Helper()
	res := Check(parse(t, jsonl), Options{})
	var got []string
	for _, v := range res.Violations {
		got = append(got, v.Rule)
	}
	if strings.Join(got, ",") != strings.Join(rules, ",") || res.OK != (len(rules) == 0) || res.Total != len(rules) {
		var b bytes.Buffer
		Explain(&b, res)
		t.Fatalf("got rules %v (ok=%v total=%d), want %v\n%s", got, res.OK, res.Total, rules, b.String())
	}
	if testing.Verbose() {
		for _, v := range res.Violations {
			t.Logf("%s %v: %s", v.Rule, v.Ops, v.Explanation)
		}
	}
	return res
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q does not contain %q", s, sub)
		}
	}
}

func TestEmptyAndTrivial(t *testing.T) {
	expect(t, "")
	res := expect(t, `{"session":"a","dc":"d","op":"get","key":"x","value":null,"start_ms":0,"end_ms":1}
{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":1,"end_ms":2}
{"session":"a","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
`)
	if got := Summary(res); got != "causal+: OK (3 operations)" {
		t.Errorf("Summary = %q", got)
	}
}

func TestThinAir(t *testing.T) {
	res := expect(t, `{"session":"a","dc":"d","op":"put","key":"y","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"get","key":"x","value":"zz-9","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":1,"end_ms":2}
`, RuleThinAir, RuleThinAir)
	mustContain(t, res.Violations[0].Explanation, "session b read x=zz-9 (line 2)", "no operation")
	mustContain(t, res.Violations[1].Explanation, "put to key y, not x (line 1)")
	if got := res.Violations[1].Ops; len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Errorf("Ops = %v", got)
	}
}

func TestCyclicCausalityOwnFuture(t *testing.T) {
	res := expect(t, `{"session":"s","dc":"d","op":"get","key":"x","value":"s-2","start_ms":0,"end_ms":1}
{"session":"s","dc":"d","op":"put","key":"x","value":"s-2","start_ms":1,"end_ms":2}
`, RuleCyclicCausality)
	mustContain(t, res.Violations[0].Explanation, "session s read x=s-2 (line 1), then put x=s-2 (line 2)", "cycle")
}

func TestCyclicCausalityTwoSessions(t *testing.T) {
	// Each session reads the other's later write.
	res := expect(t, `{"session":"a","dc":"d","op":"get","key":"y","value":"b-1","start_ms":0,"end_ms":1}
{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":1,"end_ms":2}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"put","key":"y","value":"b-1","start_ms":1,"end_ms":2}
{"session":"c","dc":"d","op":"get","key":"x","value":null,"start_ms":1,"end_ms":2}
`, RuleCyclicCausality)
	if got := res.Violations[0].Ops; len(got) != 4 {
		t.Errorf("Ops = %v", got)
	}
}

func TestStaleReadRYW(t *testing.T) {
	res := expect(t, `{"session":"s","dc":"d","op":"put","key":"x","value":"s-1","start_ms":0,"end_ms":1}
{"session":"s","dc":"d","op":"get","key":"x","value":null,"start_ms":1,"end_ms":2}
`, RuleStaleRead)
	mustContain(t, res.Violations[0].Explanation, "session s put x=s-1 (line 1), then read x=null (line 2)", "stale read")
}

func TestStaleReadMonotonic(t *testing.T) {
	expect(t, `{"session":"w","dc":"d","op":"put","key":"x","value":"w-1","start_ms":0,"end_ms":1}
{"session":"w","dc":"d","op":"put","key":"x","value":"w-2","start_ms":1,"end_ms":2}
{"session":"r","dc":"d","op":"get","key":"x","value":"w-2","start_ms":3,"end_ms":4}
{"session":"r","dc":"d","op":"get","key":"x","value":"w-1","start_ms":4,"end_ms":5}
`, RuleStaleRead)
}

func TestStaleReadCrossKey(t *testing.T) {
	// The example of the original design notes.
	res := expect(t, `{"session":"w","dc":"d","op":"put","key":"X","value":"w-1","start_ms":0,"end_ms":1}
{"session":"w","dc":"d","op":"put","key":"Y","value":"w-2","start_ms":1,"end_ms":2}
{"session":"r","dc":"d","op":"get","key":"Y","value":"w-2","start_ms":3,"end_ms":4}
{"session":"r","dc":"d","op":"get","key":"X","value":null,"start_ms":4,"end_ms":5}
`, RuleStaleRead)
	v := res.Violations[0]
	mustContain(t, v.Explanation, "session w put X=w-1 (line 1), then put Y=w-2 (line 2); session r read Y=w-2 (line 3), then read X=null (line 4)")
	if v.Key != "X" || len(v.Ops) != 4 {
		t.Errorf("key %q ops %v", v.Key, v.Ops)
	}
}

func TestStaleReadWritesFollowReads(t *testing.T) {
	// b reads a's x then writes y; c sees y but an older x.
	expect(t, `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
{"session":"b","dc":"d","op":"put","key":"y","value":"b-1","start_ms":3,"end_ms":4}
{"session":"c","dc":"d","op":"get","key":"y","value":"b-1","start_ms":5,"end_ms":6}
{"session":"c","dc":"d","op":"get","key":"x","value":null,"start_ms":6,"end_ms":7}
`, RuleStaleRead)
	// A write overwritten along a chain: x=a-1 -> b overwrites x -> c reads
	// b's y then a's old x.
	expect(t, `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
{"session":"b","dc":"d","op":"put","key":"x","value":"b-1","start_ms":3,"end_ms":4}
{"session":"b","dc":"d","op":"put","key":"y","value":"b-2","start_ms":3,"end_ms":4}
{"session":"c","dc":"d","op":"get","key":"y","value":"b-2","start_ms":5,"end_ms":6}
{"session":"c","dc":"d","op":"get","key":"x","value":"a-1","start_ms":6,"end_ms":7}
`, RuleStaleRead)
}

func TestConcurrentWritesOneOrder(t *testing.T) {
	// Two concurrent writes, observed in the same order by everyone.
	expect(t, `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"put","key":"x","value":"b-1","start_ms":0,"end_ms":1}
{"session":"c","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
{"session":"c","dc":"d","op":"get","key":"x","value":"b-1","start_ms":3,"end_ms":4}
{"session":"e","dc":"d","op":"get","key":"x","value":"b-1","start_ms":2,"end_ms":3}
{"session":"e","dc":"d","op":"get","key":"x","value":"b-1","start_ms":3,"end_ms":4}
{"session":"f","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
`)
}

func TestOrderDisagreement(t *testing.T) {
	res := expect(t, `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"put","key":"x","value":"b-1","start_ms":0,"end_ms":1}
{"session":"c","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
{"session":"c","dc":"d","op":"get","key":"x","value":"b-1","start_ms":3,"end_ms":4}
{"session":"e","dc":"d","op":"get","key":"x","value":"b-1","start_ms":2,"end_ms":3}
{"session":"e","dc":"d","op":"get","key":"x","value":"a-1","start_ms":3,"end_ms":4}
`, RuleOrderDisagreement)
	v := res.Violations[0]
	mustContain(t, v.Explanation, "session c's read at line 4", "session e's read at line 6", "order disagreement")
	if v.Key != "x" {
		t.Errorf("key %q", v.Key)
	}
}

func TestOrderDisagreementAcrossKeys(t *testing.T) {
	// Two write_txns on x and y; one observer orders them one way on x, the
	// other the other way on y.
	expect(t, `{"session":"a","dc":"d","op":"write_txn","writes":{"x":"a-1","y":"a-2"},"start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"write_txn","writes":{"x":"b-1","y":"b-2"},"start_ms":0,"end_ms":1}
{"session":"c","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
{"session":"c","dc":"d","op":"get","key":"x","value":"b-1","start_ms":3,"end_ms":4}
{"session":"e","dc":"d","op":"get","key":"y","value":"b-2","start_ms":2,"end_ms":3}
{"session":"e","dc":"d","op":"get","key":"y","value":"a-2","start_ms":3,"end_ms":4}
`, RuleOrderDisagreement)
}

// The four histories of Fig. 2 of Bouajjani et al., "On verifying causal
// consistency" (POPL 2017), with unique values; 0 there is null here.
func TestPaperFig2(t *testing.T) {
	// (a) CM but not CCv: each session writes x, then reads the other's
	// write — they order the two writes in opposite ways.
	t.Run("a", func(t *testing.T) {
		expect(t, `{"session":"p1","dc":"d","op":"put","key":"x","value":"1","start_ms":0,"end_ms":1}
{"session":"p1","dc":"d","op":"get","key":"x","value":"2","start_ms":1,"end_ms":2}
{"session":"p2","dc":"d","op":"put","key":"x","value":"2","start_ms":0,"end_ms":1}
{"session":"p2","dc":"d","op":"get","key":"x","value":"1","start_ms":1,"end_ms":2}
`, RuleOrderDisagreement)
	})
	// (b) CCv but not CM: p2 reads z=0 before it learns p1's writes, then
	// reads y=1 (so x=1 is visible) and still x=2: fine for one global
	// order x=1 < x=2.
	t.Run("b", func(t *testing.T) {
		expect(t, `{"session":"p1","dc":"d","op":"put","key":"z","value":"z1","start_ms":0,"end_ms":1}
{"session":"p1","dc":"d","op":"put","key":"x","value":"x1","start_ms":1,"end_ms":2}
{"session":"p1","dc":"d","op":"put","key":"y","value":"y1","start_ms":2,"end_ms":3}
{"session":"p2","dc":"d","op":"put","key":"x","value":"x2","start_ms":0,"end_ms":1}
{"session":"p2","dc":"d","op":"get","key":"z","value":null,"start_ms":1,"end_ms":2}
{"session":"p2","dc":"d","op":"get","key":"y","value":"y1","start_ms":2,"end_ms":3}
{"session":"p2","dc":"d","op":"get","key":"x","value":"x2","start_ms":3,"end_ms":4}
`)
	})
	// (c) CC but not CCv: p1 reads x=2 after its own x=1, then x=1 again
	// — it changes its mind on the order of two concurrent writes.
	t.Run("c", func(t *testing.T) {
		expect(t, `{"session":"p1","dc":"d","op":"put","key":"x","value":"1","start_ms":0,"end_ms":1}
{"session":"p1","dc":"d","op":"get","key":"x","value":"2","start_ms":1,"end_ms":2}
{"session":"p1","dc":"d","op":"get","key":"x","value":"1","start_ms":2,"end_ms":3}
{"session":"p2","dc":"d","op":"put","key":"x","value":"2","start_ms":0,"end_ms":1}
`, RuleOrderDisagreement)
	})
	// (d) not CC: p2 sees y=1, which causally follows x=1, then reads x=0.
	t.Run("d", func(t *testing.T) {
		expect(t, `{"session":"p1","dc":"d","op":"put","key":"x","value":"1","start_ms":0,"end_ms":1}
{"session":"p1","dc":"d","op":"put","key":"y","value":"2","start_ms":1,"end_ms":2}
{"session":"p2","dc":"d","op":"get","key":"y","value":"2","start_ms":2,"end_ms":3}
{"session":"p2","dc":"d","op":"get","key":"x","value":null,"start_ms":3,"end_ms":4}
`, RuleStaleRead)
	})
}

func TestFracturedPartialWriteTxn(t *testing.T) {
	res := expect(t, `{"session":"t","dc":"d","op":"write_txn","writes":{"a":"t-1","b":"t-2"},"start_ms":0,"end_ms":1}
{"session":"r","dc":"d","op":"read_txn","reads":{"a":"t-1","b":null},"start_ms":2,"end_ms":3}
`, RuleFracturedTransaction)
	mustContain(t, res.Violations[0].Explanation, "read a=t-1 from a write_txn that also wrote b=t-2", "fractured")
	// Also when the value returned is older than the write_txn's.
	expect(t, `{"session":"t","dc":"d","op":"put","key":"b","value":"t-0","start_ms":0,"end_ms":1}
{"session":"t","dc":"d","op":"write_txn","writes":{"a":"t-1","b":"t-2"},"start_ms":1,"end_ms":2}
{"session":"r","dc":"d","op":"read_txn","reads":{"a":"t-1","b":"t-0"},"start_ms":2,"end_ms":3}
`, RuleFracturedTransaction)
	// Whole write_txn seen: fine; seen by a later read of the session too.
	expect(t, `{"session":"t","dc":"d","op":"write_txn","writes":{"a":"t-1","b":"t-2"},"start_ms":0,"end_ms":1}
{"session":"r","dc":"d","op":"read_txn","reads":{"a":"t-1","b":"t-2","c":null},"start_ms":2,"end_ms":3}
{"session":"r","dc":"d","op":"read_txn","reads":{"a":null,"b":null},"start_ms":0,"end_ms":1}
`, RuleStaleRead, RuleStaleRead)
}

func TestFracturedSnapshot(t *testing.T) {
	// y=s-2 has x=s-1 in its causal past; a read_txn returning y=s-2 and
	// x=null is not one causal snapshot.
	res := expect(t, `{"session":"s","dc":"d","op":"put","key":"x","value":"s-1","start_ms":0,"end_ms":1}
{"session":"s","dc":"d","op":"put","key":"y","value":"s-2","start_ms":1,"end_ms":2}
{"session":"r","dc":"d","op":"read_txn","reads":{"x":null,"y":"s-2"},"start_ms":2,"end_ms":3}
`, RuleFracturedTransaction)
	mustContain(t, res.Violations[0].Explanation, "not one causal snapshot")
	// The same staleness known before the read_txn is a stale read.
	expect(t, `{"session":"s","dc":"d","op":"put","key":"x","value":"s-1","start_ms":0,"end_ms":1}
{"session":"s","dc":"d","op":"put","key":"y","value":"s-2","start_ms":1,"end_ms":2}
{"session":"r","dc":"d","op":"get","key":"y","value":"s-2","start_ms":2,"end_ms":3}
{"session":"r","dc":"d","op":"read_txn","reads":{"x":null,"y":"s-2"},"start_ms":3,"end_ms":4}
`, RuleStaleRead)
}

func TestConcurrentWithWriteTxnIsNotFractured(t *testing.T) {
	// b's x=b-1 is concurrent with the write_txn; returning it with the
	// write_txn's y only orders the write_txn's x before b-1.
	expect(t, `{"session":"t","dc":"d","op":"write_txn","writes":{"x":"t-1","y":"t-2"},"start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"put","key":"x","value":"b-1","start_ms":0,"end_ms":1}
{"session":"r","dc":"d","op":"read_txn","reads":{"x":"b-1","y":"t-2"},"start_ms":2,"end_ms":3}
`)
}

func TestFailedWrites(t *testing.T) {
	// A failed put read by someone: it happened.
	expect(t, `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1,"ok":false}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
`)
	// A failed put nobody read: it may not have happened.
	expect(t, `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1,"ok":false}
{"session":"a","dc":"d","op":"get","key":"x","value":null,"start_ms":1,"end_ms":2}
{"session":"b","dc":"d","op":"get","key":"x","value":null,"start_ms":2,"end_ms":3}
`)
	// Read by another session, but its own session did not learn the
	// outcome: not reading it back is fine.
	expect(t, `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1,"ok":false}
{"session":"a","dc":"d","op":"get","key":"x","value":null,"start_ms":1,"end_ms":2}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
`)
	// Failed reads are ignored, whatever they returned.
	expect(t, `{"session":"a","dc":"d","op":"get","key":"x","value":"nope","start_ms":0,"end_ms":1,"ok":false}
{"session":"a","dc":"d","op":"read_txn","reads":{},"start_ms":0,"end_ms":1,"ok":false}
`)
	// A failed put's causal past still counts: y=a-2 (failed, but read)
	// follows x=a-1.
	res := expect(t, `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"a","dc":"d","op":"put","key":"y","value":"a-2","start_ms":1,"end_ms":2,"ok":false}
{"session":"b","dc":"d","op":"get","key":"y","value":"a-2","start_ms":2,"end_ms":3}
{"session":"b","dc":"d","op":"get","key":"x","value":null,"start_ms":3,"end_ms":4}
`, RuleStaleRead)
	mustContain(t, res.Violations[0].Explanation, "(line 2, failed)")
	// A failed put that is read is a candidate for staleness too.
	expect(t, `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1,"ok":false}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
{"session":"b","dc":"d","op":"get","key":"x","value":null,"start_ms":3,"end_ms":4}
`, RuleStaleRead)
	// A failed write_txn read in part is a whole write_txn.
	expect(t, `{"session":"t","dc":"d","op":"write_txn","writes":{"a":"t-1","b":"t-2"},"start_ms":0,"end_ms":1,"ok":false}
{"session":"r","dc":"d","op":"read_txn","reads":{"a":"t-1","b":null},"start_ms":2,"end_ms":3}
`, RuleFracturedTransaction)
}

func TestMaxViolationsAndExplain(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"session":"s","dc":"d","op":"put","key":"x","value":"s-1","start_ms":0,"end_ms":1}` + "\n")
	for range 15 {
		b.WriteString(`{"session":"s","dc":"d","op":"get","key":"x","value":null,"start_ms":1,"end_ms":2}` + "\n")
	}
	res := Check(parse(t, b.String()), Options{MaxViolations: 3})
	if res.OK || res.Total != 15 || len(res.Violations) != 3 || res.Counts[RuleStaleRead] != 15 {
		t.Fatalf("got %+v", res)
	}
	if got := Summary(res); got != "causal+: 15 violations in 16 operations (stale-read 15)" {
		t.Errorf("Summary = %q", got)
	}
	var out bytes.Buffer
	Explain(&out, res)
	mustContain(t, out.String(), "1. stale-read on key x (lines 1, 2):", "3. stale-read", "12 more not shown")
	if Check(parse(t, b.String()), Options{}).Violations == nil || len(Check(parse(t, b.String()), Options{}).Violations) != 10 {
		t.Errorf("default MaxViolations is not 10")
	}
}

func TestLineNumbersSkipEmptyLines(t *testing.T) {
	res := expect(t, `
{"session":"s","dc":"d","op":"put","key":"x","value":"s-1","start_ms":0,"end_ms":1}

{"session":"s","dc":"d","op":"get","key":"x","value":null,"start_ms":1,"end_ms":2}
`, RuleStaleRead)
	if got := res.Violations[0].Ops; len(got) != 2 || got[0] != 2 || got[1] != 4 {
		t.Errorf("Ops = %v, want [2 4]", got)
	}
}

func TestDivergence(t *testing.T) {
	v1, v2 := "c1-5", "c2-9"
	d := Divergence("k", map[string]*string{"tokyo/s1": &v1, "brazil/s0": &v2, "europe/s2": &v1, "sydney/s1": nil})
	if d.Rule != RuleDivergence || d.Key != "k" {
		t.Fatalf("%+v", d)
	}
	mustContain(t, d.Explanation, "brazil/s0 holds c2-9; europe/s2, tokyo/s1 hold c1-5; sydney/s1 holds no value")
}
