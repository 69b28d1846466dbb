package main

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckHTML: `check --html FILE` writes the page beside the text
// verdict, with the same exit status, and a page it cannot write is a
// failure naming the command.
func TestCheckHTML(t *testing.T) {
	stale := `{"session":"alice","dc":"a","op":"put","key":"x","value":"x1","start_ms":0,"end_ms":1}
{"session":"alice","dc":"a","op":"put","key":"y","value":"y1","start_ms":1,"end_ms":2}
{"session":"bob","dc":"b","op":"get","key":"y","value":"y1","start_ms":3,"end_ms":4}
{"session":"bob","dc":"b","op":"get","key":"x","value":null,"start_ms":4,"end_ms":5}
`
	consistent := strings.Replace(stale, `"value":null`, `"value":"x1"`, 1)
	for _, tc := range []struct {
		name, history string
		code          int
		page          []string
	}{
		{"violation", stale, 1, []string{"<svg", `data-rule="stale-read"`, `class="lane" data-session="bob"`, `data-kind="reads-from"`, "causal+: 1 violation in 4 operations"}},
		{"consistent", consistent, 0, []string{"causal+: OK (4 operations)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := writeFile(t, "h.jsonl", tc.history)
			page := filepath.Join(t.TempDir(), "h.html")
			code, out, errOut := causeway(t, "check", "--html", page, h)
			if code != tc.code || !strings.Contains(out, "causal+") {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q", code, tc.code, out, errOut)
			}
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			text := html.UnescapeString(string(b))
			for _, s := range tc.page {
				if !strings.Contains(text, s) {
					t.Errorf("page does not contain %q", s)
				}
			}
		})
	}
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "h.html")
	code, _, errOut := causeway(t, "check", "--html", bad, writeFile(t, "h.jsonl", stale))
	if code != 1 || !strings.Contains(errOut, "check: --html "+bad) {
		t.Errorf("unwritable page: exit %d, stderr %q; want 1 and a message naming check --html", code, errOut)
	}
}
