// Package docgen generates the parts of the repository's docs/ that are
// derived from the code, so that they cannot drift from it:
//
//   - docs/cli/: the command-line reference, one page per command, from
//     the cobra command tree (github.com/spf13/cobra/doc);
//   - docs/protocols/: one page per registered protocol, from the doc
//     comment of the package that implements it (go/doc, rendered as
//     Markdown);
//   - generated blocks inside hand-written pages: between
//     "<!-- gen: doc PKG [SECTION; SECTION…] -->" and "<!-- end gen -->"
//     the doc comment of package PKG (a directory such as "check"), or
//     only the named "# Section"s of it; "<!-- gen: decl PKG NAME -->"
//     embeds the Go source of a declaration (a struct with its field
//     comments).
//
// `causeway gen-docs` (`make docs`) writes them; `causeway gen-docs
// --check` and the test in cmd/causeway report what is stale.
package docgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/causeway/causeway/protocol"
)

// Generated directories of docs/: every file in them is written by
// Generate, and a file Generate does not produce there is stale.
var generatedDirs = []string{"cli", "protocols"}

// RegenerateCommand is the one command that brings docs/ up to date.
const RegenerateCommand = "make docs"

// Generate returns every generated file of the docs directory docsDir,
// keyed by its slash-separated path relative to docsDir: the CLI pages of
// root, the protocol pages, and the hand-written pages of docsDir with
// their generated blocks expanded. moduleDir is the repository's root.
func Generate(root *cobra.Command, moduleDir, docsDir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if err := genCLI(root, out); err != nil {
		return nil, err
	}
	if err := genProtocols(moduleDir, out); err != nil {
		return nil, err
	}
	if err := expandPages(moduleDir, docsDir, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Write brings docsDir up to date with files: it writes every file whose
// content differs and removes stale files from the generated directories.
// It returns the paths it changed.
func Write(docsDir string, files map[string][]byte) ([]string, error) {
	changed, err := Stale(docsDir, files)
	if err != nil {
		return nil, err
	}
	for _, rel := range changed {
		path := filepath.Join(docsDir, filepath.FromSlash(rel))
		data, ok := files[rel]
		if !ok {
			if err := os.Remove(path); err != nil {
				return nil, err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

// Stale lists, sorted, the paths of docsDir that differ from files: a
// file missing or with other content, or a file in a generated directory
// that files does not have.
func Stale(docsDir string, files map[string][]byte) ([]string, error) {
	var stale []string
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(docsDir, filepath.FromSlash(rel)))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		if err != nil || !bytes.Equal(got, want) {
			stale = append(stale, rel)
		}
	}
	for _, dir := range generatedDirs {
		entries, err := os.ReadDir(filepath.Join(docsDir, dir))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		for _, e := range entries {
			rel := dir + "/" + e.Name()
			if _, ok := files[rel]; !ok && !e.IsDir() {
				stale = append(stale, rel)
			}
		}
	}
	sort.Strings(stale)
	return stale, nil
}

// genCLI renders one Markdown page per available command of root into
// cli/, without cobra's dated footer (so that regenerating is idempotent).
func genCLI(root *cobra.Command, out map[string][]byte) error {
	tmp, err := os.MkdirTemp("", "causeway-cli-docs")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var noDate func(*cobra.Command)
	noDate = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, s := range c.Commands() {
			noDate(s)
		}
	}
	noDate(root)
	if err := doc.GenMarkdownTree(root, tmp); err != nil {
		return fmt.Errorf("cli docs: %w", err)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(tmp, e.Name()))
		if err != nil {
			return err
		}
		out["cli/"+e.Name()] = data
	}
	return nil
}

// genProtocols renders docs/protocols/NAME.md for every registered
// protocol, and an index of them.
func genProtocols(moduleDir string, out map[string][]byte) error {
	names := protocol.Names()
	dirs := map[string]string{}
	byDir := map[string][]string{}
	for _, name := range names {
		dir, err := protocolPackage(moduleDir, name)
		if err != nil {
			return err
		}
		dirs[name] = dir
		byDir[dir] = append(byDir[dir], name)
	}
	var index bytes.Buffer
	index.WriteString(generatedNote("the registered protocols and their packages' doc comments"))
	index.WriteString("# Protocols\n\n")
	index.WriteString("Every protocol `causeway protocols` lists, one page each. A page is the doc\n")
	index.WriteString("comment of the package that implements the protocol: what it does, the\n")
	index.WriteString("paper and sections it follows, its messages and its deviations. Paper\n")
	index.WriteString("references such as \"karma.txt §5\" are explained in [../papers.md](../papers.md).\n\n")
	index.WriteString("| protocol | claims | summary |\n|---|---|---|\n")
	for _, name := range names {
		p, err := protocol.Lookup(name)
		if err != nil {
			return err
		}
		dir := dirs[name]
		pkg, err := loadPackage(moduleDir, dir)
		if err != nil {
			return err
		}
		body, err := pkg.markdown(3)
		if err != nil {
			return err
		}
		var page bytes.Buffer
		page.WriteString(generatedNote(dir + "/doc.go"))
		fmt.Fprintf(&page, "# %s\n\n", name)
		fmt.Fprintf(&page, "%s\n\n", p.Summary())
		fmt.Fprintf(&page, "- claims: %s\n", p.Guarantee())
		fmt.Fprintf(&page, "- implemented by: [%s](../../%s/doc.go)\n", dir, dir)
		if shared := byDir[dir]; len(shared) > 1 {
			fmt.Fprintf(&page, "- one package, several protocols: %s are modes of the same code, and the documentation below covers them all and says where each differs\n", strings.Join(shared, ", "))
		}
		if t, ok := p.(protocol.Tagger); ok && len(t.Tags()) > 0 {
			fmt.Fprintf(&page, "- tags reported in results (`protocol_metrics.<tag>_fraction`): %s\n", strings.Join(t.Tags(), ", "))
		}
		page.WriteString("- paper references: [../papers.md](../papers.md)\n\n")
		page.WriteString("## The package's documentation\n\n")
		page.Write(body)
		out["protocols/"+name+".md"] = page.Bytes()
		fmt.Fprintf(&index, "| [%s](%s.md) | %s | %s |\n", name, name, p.Guarantee(), strings.ReplaceAll(p.Summary(), "|", "\\|"))
	}
	out["protocols/README.md"] = index.Bytes()
	return nil
}

// generatedNote is the comment that opens a generated page.
func generatedNote(from string) string {
	return fmt.Sprintf("<!-- Generated by `%s` from %s. Do not edit: edit the source and regenerate. -->\n\n", RegenerateCommand, from)
}

// protocolPackage finds the directory (relative to moduleDir) of the
// package documenting protocol name: protocol/NAME when it exists, else
// the package under protocol/ that declares a constant Name… = "NAME" (a
// variant registered by another protocol's package, as karma-nc).
func protocolPackage(moduleDir, name string) (string, error) {
	if _, err := os.Stat(filepath.Join(moduleDir, "protocol", name, "doc.go")); err == nil {
		return "protocol/" + name, nil
	}
	dirs, err := filepath.Glob(filepath.Join(moduleDir, "protocol", "*", "doc.go"))
	if err != nil {
		return "", err
	}
	sort.Strings(dirs)
	want := regexp.MustCompile(`\bName\w*\s*=\s*"` + regexp.QuoteMeta(name) + `"`)
	for _, d := range dirs {
		dir := filepath.Dir(d)
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				return "", err
			}
			if want.Match(data) {
				return "protocol/" + filepath.Base(dir), nil
			}
		}
	}
	return "", fmt.Errorf("protocol %q: no package protocol/%s, and no package under protocol/ declares Name… = %q", name, name, name)
}

// genBlock matches a generated block of a hand-written page.
var genBlock = regexp.MustCompile(`(?s)<!-- gen: ([^>]*?) -->\n.*?<!-- end gen -->`)

// expandPages expands the generated blocks of every Markdown page of
// docsDir outside the generated directories, adding the pages that have
// any to out.
func expandPages(moduleDir, docsDir string, out map[string][]byte) error {
	return filepath.WalkDir(docsDir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(docsDir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, g := range generatedDirs {
				if rel == g {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".md") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !genBlock.Match(data) {
			return nil
		}
		expanded, err := Expand(moduleDir, data)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		out[rel] = expanded
		return nil
	})
}

// Expand replaces the content of every generated block of page with what
// its directive produces.
func Expand(moduleDir string, page []byte) ([]byte, error) {
	var firstErr error
	res := genBlock.ReplaceAllFunc(page, func(block []byte) []byte {
		m := genBlock.FindSubmatch(block)
		directive := string(m[1])
		body, err := runDirective(moduleDir, directive)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("gen: %s: %w", directive, err)
			}
			return block
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "<!-- gen: %s -->\n", directive)
		b.Write(body)
		if !bytes.HasSuffix(body, []byte("\n")) {
			b.WriteByte('\n')
		}
		b.WriteString("<!-- end gen -->")
		return b.Bytes()
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return res, nil
}

// runDirective produces the content of one generated block:
// "doc PKG [SECTION; SECTION…]" or "decl PKG NAME".
func runDirective(moduleDir, directive string) ([]byte, error) {
	verb, rest, _ := strings.Cut(strings.TrimSpace(directive), " ")
	dir, arg, _ := strings.Cut(strings.TrimSpace(rest), " ")
	if dir == "" {
		return nil, fmt.Errorf("want \"doc PKG [SECTION; …]\" or \"decl PKG NAME\"")
	}
	pkg, err := loadPackage(moduleDir, dir)
	if err != nil {
		return nil, err
	}
	switch verb {
	case "doc":
		var sections []string
		for _, s := range strings.Split(arg, ";") {
			if s = strings.TrimSpace(s); s != "" {
				sections = append(sections, s)
			}
		}
		return pkg.markdown(3, sections...)
	case "decl":
		if arg == "" {
			return nil, fmt.Errorf("decl needs a name")
		}
		return pkg.decl(strings.TrimSpace(arg))
	}
	return nil, fmt.Errorf("unknown directive %q (want doc or decl)", verb)
}
