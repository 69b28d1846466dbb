package main

import (
	"bytes"
	"testing"
)

// TestDocsAreUpToDate fails when docs/ differs from what the code
// generates (a command or flag added, a protocol's doc.go edited, a
// package doc embedded in a format page changed): the fix is `make docs`.
func TestDocsAreUpToDate(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"gen-docs", "--check", "../../docs"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s\nRegenerate with: make docs", code, errb.String())
	}
}

// TestGenDocsRejectsAMissingDirectory: bad input exits 2 naming the command.
func TestGenDocsRejectsAMissingDirectory(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"gen-docs", t.TempDir() + "/nope"}, &out, &errb)
	if code != 2 || !bytes.Contains(errb.Bytes(), []byte("gen-docs:")) {
		t.Fatalf("exit %d, stderr %q; want 2 naming gen-docs", code, errb.String())
	}
}
