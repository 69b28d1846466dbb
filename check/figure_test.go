package check

import (
	"fmt"
	"strings"
	"testing"
)

// figureText renders a violation's events and edges compactly:
// "1:w put X=w-1; 2:w put Y=w-2; ... | 1->2 session-order; 2->3 reads-from Y; ...".
// A violating event or edge ends in "!", a later edge in "…".
func figureText(v Violation) string {
	var evs, eds []string
	for _, e := range v.Events {
		s := fmt.Sprintf("%d:%s %s", e.Line, e.Session, e.Text)
		if e.Violating {
			s += "!"
		}
		evs = append(evs, s)
	}
	for _, e := range v.Edges {
		s := fmt.Sprintf("%d->%d %s", e.From, e.To, e.Kind)
		if e.Key != "" {
			s += " " + e.Key
		}
		if e.Later {
			s += "…"
		}
		if e.Violating {
			s += "!"
		}
		eds = append(eds, s)
	}
	return strings.Join(evs, "; ") + " | " + strings.Join(eds, "; ")
}

// TestFigures: each rule's violation carries the events and edges its
// explanation follows, so that a page can draw it.
func TestFigures(t *testing.T) {
	for _, tc := range []struct {
		name, history, want string
	}{
		{"thin-air", `{"session":"a","dc":"d","op":"put","key":"y","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":1,"end_ms":2}
`, "2:b read x=a-1!; 1:a put y=a-1 | "},
		{"stale-read cross-key", `{"session":"w","dc":"d","op":"put","key":"X","value":"w-1","start_ms":0,"end_ms":1}
{"session":"w","dc":"d","op":"put","key":"Y","value":"w-2","start_ms":1,"end_ms":2}
{"session":"r","dc":"d","op":"get","key":"Y","value":"w-2","start_ms":3,"end_ms":4}
{"session":"r","dc":"d","op":"get","key":"X","value":null,"start_ms":4,"end_ms":5}
`, "1:w put X=w-1; 2:w put Y=w-2; 3:r read Y=w-2; 4:r read X=null! | 1->2 session-order; 2->3 reads-from Y; 3->4 session-order"},
		{"stale-read of an older write, with an operation left out", `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
{"session":"b","dc":"d","op":"put","key":"x","value":"b-1","start_ms":3,"end_ms":4}
{"session":"b","dc":"d","op":"put","key":"z","value":"b-3","start_ms":3,"end_ms":4}
{"session":"b","dc":"d","op":"put","key":"y","value":"b-2","start_ms":3,"end_ms":4}
{"session":"c","dc":"d","op":"get","key":"y","value":"b-2","start_ms":5,"end_ms":6}
{"session":"c","dc":"d","op":"get","key":"x","value":"a-1","start_ms":6,"end_ms":7}
`, "1:a put x=a-1; 2:b read x=a-1; 3:b put x=b-1; 5:b put y=b-2; 6:c read y=b-2; 7:c read x=a-1! | 1->2 reads-from x; 2->3 session-order; 3->5 session-order…; 5->6 reads-from y; 6->7 session-order; 1->7 reads-from x!"},
		{"cyclic-causality", `{"session":"a","dc":"d","op":"get","key":"y","value":"b-1","start_ms":0,"end_ms":1}
{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":1,"end_ms":2}
{"session":"b","dc":"d","op":"get","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"put","key":"y","value":"b-1","start_ms":1,"end_ms":2}
`, "1:a read y=b-1!; 2:a put x=a-1; 3:b read x=a-1; 4:b put y=b-1 | 1->2 session-order; 2->3 reads-from x; 3->4 session-order; 4->1 reads-from y!"},
		{"order-disagreement", `{"session":"a","dc":"d","op":"put","key":"x","value":"a-1","start_ms":0,"end_ms":1}
{"session":"b","dc":"d","op":"put","key":"x","value":"b-1","start_ms":0,"end_ms":1}
{"session":"c","dc":"d","op":"get","key":"x","value":"a-1","start_ms":2,"end_ms":3}
{"session":"c","dc":"d","op":"get","key":"x","value":"b-1","start_ms":3,"end_ms":4}
{"session":"e","dc":"d","op":"get","key":"x","value":"b-1","start_ms":2,"end_ms":3}
{"session":"e","dc":"d","op":"get","key":"x","value":"a-1","start_ms":3,"end_ms":4}
`, "2:b put x=b-1; 1:a put x=a-1; 5:e read x=b-1; 6:e read x=a-1; 3:c read x=a-1; 4:c read x=b-1 | " +
			"2->5 reads-from x; 5->6 session-order; 1->6 reads-from x; 2->1 conflict x!; 1->3 reads-from x; 3->4 session-order; 2->4 reads-from x; 1->2 conflict x!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Check(parse(t, tc.history), Options{})
			if len(res.Violations) != 1 {
				t.Fatalf("%d violations: %+v", len(res.Violations), res.Violations)
			}
			if got := figureText(res.Violations[0]); got != tc.want {
				t.Errorf("figure\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
