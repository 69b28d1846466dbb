package docgen

import (
	"bytes"
	"go/ast"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/cluster/nemesis"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/topology"
)

// yamlBlock matches a fenced ```yaml block of a Markdown page.
var yamlBlock = regexp.MustCompile("(?ms)^```yaml\n(.*?)^```")

// yamlBlocks returns the ```yaml blocks of a page of docs/formats.
func yamlBlocks(t *testing.T, page string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "formats", page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range yamlBlock.FindAllStringSubmatch(string(data), -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatalf("%s: no ```yaml example", page)
	}
	return out
}

// TestFaultsPageExamplesParse parses every YAML example of
// docs/formats/faults.md as a fault schedule on karma-aws8, the topology
// the examples name, so that the page cannot describe a format the parser
// rejects.
func TestFaultsPageExamplesParse(t *testing.T) {
	topo, err := topology.Preset("karma-aws8")
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range yamlBlocks(t, "faults.md") {
		s, err := faults.Parse([]byte(b), topo)
		if err != nil {
			t.Errorf("faults.md example %d: %v\n%s", i+1, err, b)
		} else if len(s) == 0 {
			t.Errorf("faults.md example %d: no events", i+1)
		}
	}
}

// TestNemesisPageExamplesParse parses every YAML example of
// docs/formats/nemesis.md as a live schedule for a local3 cluster of cops
// and of karma, as the page says they are written, and the built-in
// schedule the page points to.
func TestNemesisPageExamplesParse(t *testing.T) {
	topo, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{"cops", "karma"} {
		cfg, err := cluster.Plan(topo, proto, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range append(yamlBlocks(t, "nemesis.md"), nemesis.DefaultSchedule) {
			s, err := nemesis.Parse([]byte(b), cfg)
			if err != nil {
				t.Errorf("nemesis.md example %d on %s: %v\n%s", i+1, proto, err, b)
			} else if len(s) == 0 {
				t.Errorf("nemesis.md example %d: no events", i+1)
			}
		}
	}
}

// TestTopologyPageExamplesParse parses every YAML example of
// docs/formats/topology.md as a topology.
func TestTopologyPageExamplesParse(t *testing.T) {
	for i, b := range yamlBlocks(t, "topology.md") {
		if _, err := topology.Parse([]byte(b)); err != nil {
			t.Errorf("topology.md example %d: %v\n%s", i+1, err, b)
		}
	}
}

// TestClusterPageExamplesParse parses every YAML example of
// docs/formats/cluster.md as a cluster file.
func TestClusterPageExamplesParse(t *testing.T) {
	for i, b := range yamlBlocks(t, "cluster.md") {
		if _, err := cluster.Parse([]byte(b)); err != nil {
			t.Errorf("cluster.md example %d: %v\n%s", i+1, err, b)
		}
	}
}

// TestExamplesCanFail: the YAML blocks are really checked — an example
// broken the way a stale page would be is rejected by the same parser.
func TestExamplesCanFail(t *testing.T) {
	topo, err := topology.Preset("karma-aws8")
	if err != nil {
		t.Fatal(err)
	}
	b := yamlBlocks(t, "faults.md")[0]
	broken := strings.Replace(b, "partition:", "partitions:", 1)
	if _, err := faults.Parse([]byte(broken), topo); err == nil {
		t.Fatalf("a renamed field parsed:\n%s", broken)
	}
}

// jsonlBlock matches a fenced ```jsonl block of a Markdown page.
var jsonlBlock = regexp.MustCompile("(?ms)^```jsonl\n(.*?)^```")

// TestHistoryPageExamples parses the histories of docs/formats/history.md
// and checks them: the first (every kind of operation) is causal+, the
// second is the stale read the page explains.
func TestHistoryPageExamples(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "formats", "history.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := jsonlBlock.FindAllSubmatch(data, -1)
	if len(blocks) != 2 {
		t.Fatalf("history.md: %d ```jsonl blocks, want 2 (the format, the stale read)", len(blocks))
	}
	want := []map[string]int{nil, {check.RuleStaleRead: 1}}
	for i, b := range blocks {
		h, err := history.Parse(bytes.NewReader(b[1]))
		if err != nil {
			t.Fatalf("history.md example %d: %v", i+1, err)
		}
		res := check.Check(h, check.Options{})
		if !maps.Equal(res.Counts, want[i]) {
			t.Errorf("history.md example %d: violations %v, want %v", i+1, res.Counts, want[i])
		}
	}
}

// TestHistoryPageCoversTheFormat fails when the history format grows a
// field or an operation kind that docs/formats/history.md does not name:
// every JSON field of history.Op and every operation kind (the string
// constants of the group declaring history.Get).
func TestHistoryPageCoversTheFormat(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "formats", "history.md"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	op := reflect.TypeOf(history.Op{})
	for i := 0; i < op.NumField(); i++ {
		if n, _, _ := strings.Cut(op.Field(i).Tag.Get("json"), ","); n != "" && n != "-" {
			names = append(names, n)
		}
	}
	kinds, err := constGroupValues("history", "Get")
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) < 4 {
		t.Fatalf("operation kinds %v: the constant group of history.Get was not found", kinds)
	}
	for _, n := range append(names, kinds...) {
		if !strings.Contains(string(page), "`"+n+"`") {
			t.Errorf("docs/formats/history.md does not describe %q (write it as `%s` in the field table)", n, n)
		}
	}
}

// constGroupValues returns the string values of the constant group of
// package dir that declares name.
func constGroupValues(dir, name string) ([]string, error) {
	pkg, err := loadPackage(moduleDir, dir)
	if err != nil {
		return nil, err
	}
	for _, c := range pkg.doc.Consts {
		if !slices.Contains(c.Names, name) {
			continue
		}
		var out []string
		for _, s := range c.Decl.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					u, err := strconv.Unquote(lit.Value)
					if err != nil {
						return nil, err
					}
					out = append(out, u)
				}
			}
		}
		return out, nil
	}
	return nil, nil
}

// TestFormatPagesNameEveryField fails when a YAML file format grows a
// field its page does not name (as `field` or as "field:" in an example).
func TestFormatPagesNameEveryField(t *testing.T) {
	for page, typ := range map[string]reflect.Type{
		"faults.md":   reflect.TypeOf(faults.Event{}),
		"nemesis.md":  reflect.TypeOf(nemesis.Event{}),
		"topology.md": reflect.TypeOf(topology.Topology{}),
		"cluster.md":  reflect.TypeOf(cluster.Config{}),
	} {
		data, err := os.ReadFile(filepath.Join("..", "..", "docs", "formats", page))
		if err != nil {
			t.Fatal(err)
		}
		fields := yamlFields(typ, map[reflect.Type]bool{})
		if want := map[string]string{"faults.md": "max_ms", "topology.md": "chain_length", "cluster.md": "bind", "nemesis.md": "add_ms"}[page]; !slices.Contains(fields, want) {
			t.Fatalf("%s: nested field %s not found among %v", page, want, fields)
		}
		for _, f := range fields {
			if !strings.Contains(string(data), "`"+f+"`") && !strings.Contains(string(data), f+":") {
				t.Errorf("%s does not name the field %s", page, f)
			}
		}
	}
}

// yamlFields lists the YAML field names of t and of the structs it holds
// (the topology inside a cluster file is topology.md's).
func yamlFields(t reflect.Type, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] || t.PkgPath() == "time" {
		return nil
	}
	seen[t] = true
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		n, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if n == "" || n == "-" {
			continue
		}
		out = append(out, n)
		if f.Type != reflect.TypeOf(&topology.Topology{}) {
			out = append(out, yamlFields(f.Type, seen)...)
		}
	}
	return out
}
