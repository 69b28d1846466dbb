package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink matches the target of a Markdown link or image.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// markdownPages lists README.md, ARCHITECTURE.md and every page under
// docs/, relative to the module root.
func markdownPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "ARCHITECTURE.md"}
	err := filepath.WalkDir(filepath.Join(moduleDir, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(moduleDir, path)
			pages = append(pages, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// TestDocsLinksResolve: every relative link of the README and docs/ names
// a file or directory of the repository, so that a moved or renamed page
// breaks a test rather than a reader's click.
func TestDocsLinksResolve(t *testing.T) {
	n := 0
	for _, page := range markdownPages(t) {
		data, err := os.ReadFile(filepath.Join(moduleDir, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			path := filepath.Join(moduleDir, filepath.Dir(page), filepath.FromSlash(target))
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link to %s: no such file in the repository", page, m[1])
			}
			n++
		}
	}
	if n < 20 {
		t.Fatalf("only %d relative links found: the link pattern is broken", n)
	}
}

// TestDocsStayInsideTheRepository: the README and docs/ point at nothing
// outside the repository (the papers are cited by title, not by file).
func TestDocsStayInsideTheRepository(t *testing.T) {
	for _, page := range markdownPages(t) {
		data, err := os.ReadFile(filepath.Join(moduleDir, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"../shared", "/work/", "shared/design.md", "design.md"} {
			if strings.Contains(string(data), bad) {
				t.Errorf("%s mentions %q, which is outside the repository", page, bad)
			}
		}
	}
}
