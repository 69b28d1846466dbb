package protocol_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bannedImports may not be imported by any package under protocol/: they
// give access to the network, files, locks, goroutine machinery, the wall
// clock or global randomness, which would make a protocol
// nondeterministic.
var bannedImports = map[string]string{
	"net": "network I/O", "os": "OS I/O", "os/exec": "OS I/O", "io/ioutil": "file I/O",
	"sync": "locks", "sync/atomic": "atomics", "syscall": "system calls", "runtime": "runtime control",
	"math/rand":   "global randomness (use the *rand.Rand of NodeConfig from math/rand/v2)",
	"crypto/rand": "nondeterministic randomness", "log": "I/O (return effects instead)",
	"unsafe": "unsafe memory", "context": "cancellation is a runtime concern",
}

// allowedSelectors are the only identifiers protocol code may use from
// packages that are otherwise dangerous.
var allowedSelectors = map[string]map[string]bool{
	"time": {"Duration": true, "Nanosecond": true, "Microsecond": true, "Millisecond": true,
		"Second": true, "Minute": true, "Hour": true},
	"math/rand/v2": {"Rand": true, "New": true, "NewPCG": true, "PCG": true, "Source": true},
}

// purityProblems returns what is wrong with one Go source file.
func purityProblems(fset *token.FileSet, f *ast.File) []string {
	var problems []string
	names := map[string]string{} // local name -> import path, for restricted packages
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if why, bad := bannedImports[path]; bad || strings.HasPrefix(path, "net/") {
			if !bad {
				why = "network I/O"
			}
			problems = append(problems, fset.Position(imp.Pos()).String()+": imports "+path+" ("+why+")")
			continue
		}
		if _, restricted := allowedSelectors[path]; restricted {
			local := filepath.Base(path)
			if path == "math/rand/v2" {
				local = "rand"
			}
			if imp.Name != nil {
				local = imp.Name.Name
			}
			names[local] = path
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			problems = append(problems, fset.Position(n.Pos()).String()+": starts a goroutine")
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				if path, ok := names[id.Name]; ok && !allowedSelectors[path][n.Sel.Name] {
					problems = append(problems, fset.Position(n.Pos()).String()+": uses "+path+"."+n.Sel.Name)
				}
			}
		}
		return true
	})
	return problems
}

// TestProtocolPackagesArePure scans every non-test Go file under protocol/.
func TestProtocolPackagesArePure(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		for _, p := range purityProblems(fset, f) {
			t.Error(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("found no protocol source files to scan")
	}
}

// TestPurityCheckCatches proves the scanner flags each kind of impurity.
func TestPurityCheckCatches(t *testing.T) {
	cases := []struct {
		name, src string
		bad       bool
	}{
		{"clean", `package p; import "time"; var d time.Duration = 3 * time.Millisecond`, false},
		{"rand instance", `package p; import "math/rand/v2"; func f(r *rand.Rand) int { return r.IntN(3) }`, false},
		{"wall clock", `package p; import "time"; func f() { _ = time.Now() }`, true},
		{"sleep", `package p; import "time"; func f() { time.Sleep(1) }`, true},
		{"renamed time", `package p; import tm "time"; func f() { _ = tm.Now() }`, true},
		{"global rand", `package p; import "math/rand/v2"; func f() int { return rand.IntN(3) }`, true},
		{"old rand", `package p; import "math/rand"; var _ = rand.Int`, true},
		{"goroutine", `package p; func f() { go f() }`, true},
		{"sync", `package p; import "sync"; var mu sync.Mutex`, true},
		{"net", `package p; import "net/http"; var _ = http.Get`, true},
		{"os", `package p; import "os"; var _ = os.Exit`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", c.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := purityProblems(fset, f)
			if (len(got) > 0) != c.bad {
				t.Fatalf("problems = %v, want bad=%v", got, c.bad)
			}
		})
	}
}
