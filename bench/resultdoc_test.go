package bench

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/causeway/causeway/faults"
)

// TestEveryResultFieldIsDocumented fails when a JSON field of the result
// (Result and the structs it holds) is not defined in
// docs/formats/results.md: a field added to Result needs a row there.
func TestEveryResultFieldIsDocumented(t *testing.T) {
	page, err := os.ReadFile("../docs/formats/results.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range resultFields(reflect.TypeOf(Result{}), "", map[reflect.Type]bool{}) {
		name := f[strings.LastIndex(f, ".")+1:]
		if !regexp.MustCompile("[`.]" + regexp.QuoteMeta(name) + "`").Match(page) {
			t.Errorf("result field %s is not defined in docs/formats/results.md (add it, as `%s`)", f, name)
		}
	}
}

// TestResultFieldsAreFound: the walk sees nested fields, so the test above
// can fail.
func TestResultFieldsAreFound(t *testing.T) {
	got := strings.Join(resultFields(reflect.TypeOf(Result{}), "", map[reflect.Type]bool{}), " ")
	for _, want := range []string{"throughput_ops_s", "latency_ms.p99", "check.violations.explanation", "per_dc.visibility_bound_ms.p50", "timeline.issued"} {
		if !strings.Contains(got, want) {
			t.Errorf("field %s not found in %s", want, got)
		}
	}
}

// resultFields lists the JSON field paths of t, descending into structs,
// pointers, slices and maps; the fault schedule is documented with its own
// format (docs/formats/faults.md).
func resultFields(t reflect.Type, prefix string, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] || t == reflect.TypeOf(faults.Event{}) {
		return nil
	}
	seen[t] = true
	defer delete(seen, t)
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		path := prefix + name
		out = append(out, path)
		out = append(out, resultFields(f.Type, path+".", seen)...)
	}
	return out
}
