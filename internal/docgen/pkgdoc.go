package docgen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

// pkgDoc is a parsed Go package: its documentation and its syntax, for
// rendering the package comment and declarations as Markdown.
type pkgDoc struct {
	fset  *token.FileSet
	files []*ast.File
	doc   *doc.Package
}

// loadPackage parses the non-test Go files of the package in dir (a
// directory relative to the module root moduleDir, such as "check").
func loadPackage(moduleDir, dir string) (*pkgDoc, error) {
	abs := filepath.Join(moduleDir, filepath.FromSlash(dir))
	names, err := filepath.Glob(filepath.Join(abs, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no Go files", dir)
	}
	d, err := doc.NewFromFiles(fset, files, modulePath+"/"+dir, doc.PreserveAST)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return &pkgDoc{fset: fset, files: files, doc: d}, nil
}

// modulePath is the import path of the repository's module.
const modulePath = "github.com/causeway/causeway"

// markdown renders the package comment as Markdown with headings at level
// headingLevel. With sections, only the content under those "# Heading"
// titles is rendered (each with its heading); a named section that does
// not exist is an error, so a renamed heading cannot silently empty a page.
func (p *pkgDoc) markdown(headingLevel int, sections ...string) ([]byte, error) {
	parsed := p.doc.Parser().Parse(p.doc.Doc)
	if len(sections) > 0 {
		var blocks []comment.Block
		for _, s := range sections {
			b, ok := section(parsed.Content, s)
			if !ok {
				return nil, fmt.Errorf("package %s: no section %q in its doc comment", p.doc.Name, s)
			}
			blocks = append(blocks, b...)
		}
		parsed = &comment.Doc{Content: blocks, Links: parsed.Links}
	}
	pr := &comment.Printer{
		HeadingLevel: headingLevel,
		// Doc links ([pkg.Name]) stay plain text: the pages point only
		// into the repository.
		DocLinkURL: func(*comment.DocLink) string { return "" },
		HeadingID:  func(*comment.Heading) string { return "" },
	}
	return pr.Markdown(parsed), nil
}

// section returns the blocks of the section titled title: its heading and
// everything up to the next heading.
func section(blocks []comment.Block, title string) ([]comment.Block, bool) {
	for i, b := range blocks {
		h, ok := b.(*comment.Heading)
		if !ok || headingText(h) != title {
			continue
		}
		j := i + 1
		for j < len(blocks) {
			if _, next := blocks[j].(*comment.Heading); next {
				break
			}
			j++
		}
		return blocks[i:j], true
	}
	return nil, false
}

// headingText is the plain text of a heading.
func headingText(h *comment.Heading) string {
	var sb strings.Builder
	for _, t := range h.Text {
		if p, ok := t.(comment.Plain); ok {
			sb.WriteString(string(p))
		}
	}
	return sb.String()
}

// decl renders the source of the declaration of the named type, constant
// group or function, comments included, as a fenced Go block.
func (p *pkgDoc) decl(name string) ([]byte, error) {
	for _, f := range p.files {
		for _, d := range f.Decls {
			var node ast.Node
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.Name == name {
							node = d
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name == name {
								node = d
							}
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == name {
					node = &ast.FuncDecl{Doc: d.Doc, Name: d.Name, Type: d.Type}
				}
			}
			if node == nil {
				continue
			}
			var buf bytes.Buffer
			buf.WriteString("```go\n")
			cn := &printer.CommentedNode{Node: node, Comments: f.Comments}
			if err := (&printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}).Fprint(&buf, p.fset, cn); err != nil {
				return nil, err
			}
			buf.WriteString("\n```\n")
			return buf.Bytes(), nil
		}
	}
	return nil, fmt.Errorf("package %s: no declaration of %s", p.doc.Name, name)
}
