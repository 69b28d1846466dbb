package check

import "testing"

// Deletes (op "del") are writes of tombstones; a read that found the key
// deleted records the tombstone's ID as its value. These histories pass or
// fail exactly as their put twins would, and explanations show tombstones
// as deleted(ID).

// TestDeleteSeenInOrder: a delete after a put, read back by another
// session in order (value, then the delete, then a later put) passes.
func TestDeleteSeenInOrder(t *testing.T) {
	expect(t, `{"session":"w","dc":"d","op":"put","key":"x","value":"w-1","start_ms":0,"end_ms":1}
{"session":"w","dc":"d","op":"del","key":"x","value":"t1","start_ms":1,"end_ms":2}
{"session":"w","dc":"d","op":"get","key":"x","value":"t1","start_ms":2,"end_ms":3}
{"session":"r","dc":"d","op":"get","key":"x","value":"w-1","start_ms":3,"end_ms":4}
{"session":"r","dc":"d","op":"get","key":"x","value":"t1","start_ms":4,"end_ms":5}
{"session":"w","dc":"d","op":"put","key":"x","value":"w-2","start_ms":5,"end_ms":6}
{"session":"r","dc":"d","op":"get","key":"x","value":"w-2","start_ms":6,"end_ms":7}
`)
}

// TestStaleValueAfterDelete: a session that saw the delete, or depends on
// it through another key, may not read the value it replaced.
func TestStaleValueAfterDelete(t *testing.T) {
	res := expect(t, `{"session":"w","dc":"d","op":"put","key":"x","value":"w-1","start_ms":0,"end_ms":1}
{"session":"w","dc":"d","op":"del","key":"x","value":"t1","start_ms":1,"end_ms":2}
{"session":"w","dc":"d","op":"put","key":"y","value":"w-2","start_ms":2,"end_ms":3}
{"session":"r","dc":"d","op":"get","key":"y","value":"w-2","start_ms":3,"end_ms":4}
{"session":"r","dc":"d","op":"get","key":"x","value":"w-1","start_ms":4,"end_ms":5}
`, RuleStaleRead)
	mustContain(t, res.Violations[0].Explanation,
		"session w put x=w-1 (line 1), then deleted x (tombstone t1) (line 2), then put y=w-2 (line 3); session r read y=w-2 (line 4), then read x=w-1 (line 5)",
		"x=deleted(t1) (deleted by session w, line 2)")
}

// TestNullAfterDelete: after a delete in its causal past a read must see
// the tombstone (or something newer); null is the initial state, before
// every write, so it is stale even though both mean "not found" to the
// client.
func TestNullAfterDelete(t *testing.T) {
	expect(t, `{"session":"w","dc":"d","op":"del","key":"x","value":"t1","start_ms":0,"end_ms":1}
{"session":"w","dc":"d","op":"get","key":"x","value":null,"start_ms":1,"end_ms":2}
`, RuleStaleRead)
}

// TestWrongDelete: of two deletes of one session, a reader that saw the
// second may not then see the first; nor may a read see a tombstone no
// del wrote, or one written to another key.
func TestWrongDelete(t *testing.T) {
	res := expect(t, `{"session":"w","dc":"d","op":"del","key":"x","value":"t1","start_ms":0,"end_ms":1}
{"session":"w","dc":"d","op":"put","key":"x","value":"w-1","start_ms":1,"end_ms":2}
{"session":"w","dc":"d","op":"del","key":"x","value":"t2","start_ms":2,"end_ms":3}
{"session":"r","dc":"d","op":"get","key":"x","value":"t2","start_ms":3,"end_ms":4}
{"session":"r","dc":"d","op":"get","key":"x","value":"t1","start_ms":4,"end_ms":5}
`, RuleStaleRead)
	mustContain(t, res.Violations[0].Explanation, "read x=deleted(t2) (line 4), then read x=deleted(t1) (line 5)")

	res = expect(t, `{"session":"w","dc":"d","op":"del","key":"y","value":"t1","start_ms":0,"end_ms":1}
{"session":"r","dc":"d","op":"get","key":"x","value":"t1","start_ms":1,"end_ms":2}
`, RuleThinAir)
	mustContain(t, res.Violations[0].Explanation, "that value was a tombstone of key y, not x (line 1)")
}

// TestDeletesDisagree: two concurrent deletes seen in both orders by two
// readers cannot converge.
func TestDeletesDisagree(t *testing.T) {
	expect(t, `{"session":"a","dc":"d","op":"del","key":"x","value":"ta","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"del","key":"x","value":"tb","start_ms":0,"end_ms":1}
{"session":"r1","dc":"d","op":"get","key":"x","value":"ta","start_ms":2,"end_ms":3}
{"session":"r1","dc":"d","op":"get","key":"x","value":"tb","start_ms":3,"end_ms":4}
{"session":"r2","dc":"d","op":"get","key":"x","value":"tb","start_ms":2,"end_ms":3}
{"session":"r2","dc":"d","op":"get","key":"x","value":"ta","start_ms":3,"end_ms":4}
`, RuleOrderDisagreement)
}

// TestDeleteInReadTxn: a read_txn that saw a delete names it too.
func TestDeleteInReadTxn(t *testing.T) {
	res := expect(t, `{"session":"w","dc":"d","op":"put","key":"x","value":"w-1","start_ms":0,"end_ms":1}
{"session":"w","dc":"d","op":"del","key":"x","value":"t1","start_ms":1,"end_ms":2}
{"session":"w","dc":"d","op":"put","key":"y","value":"w-2","start_ms":2,"end_ms":3}
{"session":"r","dc":"d","op":"read_txn","reads":{"x":"t1","y":"w-2"},"start_ms":3,"end_ms":4}
{"session":"r","dc":"d","op":"read_txn","reads":{"x":"w-1","y":"w-2"},"start_ms":4,"end_ms":5}
`, RuleStaleRead)
	mustContain(t, res.Violations[0].Explanation, "read x=w-1 in a read_txn")
}
