package docgen

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	_ "github.com/causeway/causeway/protocol/all" // the protocols the pages describe
)

// moduleDir is the repository root, seen from this package's directory.
const moduleDir = "../.."

// testRoot is a small command tree standing for the causeway binary.
func testRoot() *cobra.Command {
	root := &cobra.Command{Use: "tool", Short: "a tool"}
	sub := &cobra.Command{Use: "sub", Short: "a subcommand", Run: func(*cobra.Command, []string) {}}
	sub.Flags().Int("n", 3, "a number")
	root.AddCommand(sub)
	return root
}

// TestStaleFindsEveryDifference: after Write, nothing is stale; an edited
// generated page, a stray file in a generated directory and an edited
// generated block each are.
func TestStaleFindsEveryDifference(t *testing.T) {
	docs := t.TempDir()
	page := "# A page\n\n<!-- gen: doc check Rules -->\n<!-- end gen -->\n\nHand-written.\n"
	if err := os.MkdirAll(filepath.Join(docs, "formats"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "formats", "x.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := Generate(testRoot(), moduleDir, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cli/tool.md", "cli/tool_sub.md", "protocols/karma.md", "protocols/README.md", "formats/x.md"} {
		if _, ok := files[want]; !ok {
			t.Errorf("Generate did not produce %s (got %d files)", want, len(files))
		}
	}
	if !strings.Contains(string(files["formats/x.md"]), "stale-read") || !strings.HasSuffix(string(files["formats/x.md"]), "Hand-written.\n") {
		t.Errorf("formats/x.md not expanded in place:\n%s", files["formats/x.md"])
	}
	if _, err := Write(docs, files); err != nil {
		t.Fatal(err)
	}
	if stale, err := Stale(docs, files); err != nil || len(stale) != 0 {
		t.Fatalf("just written, stale: %v %v", stale, err)
	}
	if err := os.WriteFile(filepath.Join(docs, "cli", "tool_sub.md"), []byte("hand edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "protocols", "gone.md"), []byte("a removed protocol\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "formats", "x.md"), []byte(strings.Replace(string(files["formats/x.md"]), "stale-read", "stale read", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	stale, err := Stale(docs, files)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cli/tool_sub.md", "formats/x.md", "protocols/gone.md"}; !reflect.DeepEqual(stale, want) {
		t.Fatalf("stale = %v, want %v", stale, want)
	}
	if _, err := Write(docs, files); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(docs, "protocols", "gone.md")); !os.IsNotExist(err) {
		t.Errorf("Write kept a stale generated page: %v", err)
	}
}

// TestExpandRejectsAMissingSection: a block naming a heading the package
// doc no longer has is an error, not an empty block.
func TestExpandRejectsAMissingSection(t *testing.T) {
	_, err := Expand(moduleDir, []byte("<!-- gen: doc check No Such Heading -->\n<!-- end gen -->\n"))
	if err == nil || !strings.Contains(err.Error(), "No Such Heading") {
		t.Fatalf("err = %v, want one naming the missing section", err)
	}
}

// TestDeclEmbedsTheSource: a decl block holds the declaration with its
// comments.
func TestDeclEmbedsTheSource(t *testing.T) {
	out, err := Expand(moduleDir, []byte("<!-- gen: decl history Op -->\n<!-- end gen -->\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"```go\n", "type Op struct", "// Session names the client session", "`json:\"session\"`"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// TestEveryProtocolHasAPackage: each registered protocol, variants
// included, maps to the package that documents it.
func TestEveryProtocolHasAPackage(t *testing.T) {
	for name, want := range map[string]string{"cops": "protocol/cops", "eventual": "protocol/eventual", "karma": "protocol/karma", "karma-nc": "protocol/karma", "cops-pr": "protocol/karma"} {
		got, err := protocolPackage(moduleDir, name)
		if err != nil || got != want {
			t.Errorf("protocolPackage(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := protocolPackage(moduleDir, "no-such"); err == nil {
		t.Error("an unknown protocol found a package")
	}
}
