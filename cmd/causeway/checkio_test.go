package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckStdinAndJSON: `check -` reads the history from standard input,
// and -w json prints the verdict as JSON with the same exit status as the
// table.
func TestCheckStdinAndJSON(t *testing.T) {
	consistent := `{"session":"alice","dc":"a","op":"put","key":"x","value":"x1","start_ms":0,"end_ms":1}
{"session":"alice","dc":"a","op":"put","key":"y","value":"y1","start_ms":1,"end_ms":2}
{"session":"bob","dc":"b","op":"get","key":"y","value":"y1","start_ms":3,"end_ms":4}
{"session":"bob","dc":"b","op":"get","key":"x","value":"x1","start_ms":4,"end_ms":5}
`
	stale := strings.Replace(consistent, `"key":"x","value":"x1","start_ms":4`, `"key":"x","value":null,"start_ms":4`, 1)

	withStdin(t, []byte(stale), func() {
		code, out, errOut := causeway(t, "check", "-")
		if code != 1 || !strings.Contains(out, "stale-read") {
			t.Errorf("check - of a stale read: exit %d, stdout %q, stderr %q; want 1 and the violation", code, out, errOut)
		}
	})
	withStdin(t, []byte(consistent), func() {
		code, out, errOut := causeway(t, "check", "-w", "json", "-")
		var rep checkReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.OK || rep.Operations != 4 || rep.History != "-" {
			t.Errorf("check -w json - of a consistent history: exit %d, %+v (%v), stderr %q", code, rep, err, errOut)
		}
	})

	code, out, errOut := causeway(t, "check", "--write-out", "json", writeFile(t, "h.jsonl", stale))
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.OK || rep.Total != 1 ||
		rep.Counts["stale-read"] != 1 || len(rep.Violations) != 1 || rep.Violations[0].Rule != "stale-read" {
		t.Errorf("check -w json of a stale read: exit %d, %+v (%v), stdout %q, stderr %q", code, rep, err, out, errOut)
	}
	if code, _, errOut := causeway(t, "check", "-w", "xml", writeFile(t, "h.jsonl", consistent)); code != 2 || !strings.Contains(errOut, "check: --write-out") {
		t.Errorf("check -w xml: exit %d, stderr %q; want 2 naming check", code, errOut)
	}
}
