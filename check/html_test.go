package check

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/causeway/causeway/history"
)

// violationsPage checks testdata/violations.jsonl (a stale read across
// two keys and an order disagreement) and renders its page.
func violationsPage(t *testing.T) (Result, []byte) {
	t.Helper()
	f, err := os.Open("testdata/violations.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := history.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	res := Check(h, Options{})
	if res.Total != 2 || res.Violations[0].Rule != RuleStaleRead || res.Violations[1].Rule != RuleOrderDisagreement {
		t.Fatalf("testdata/violations.jsonl: %s", Summary(res))
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, "violations.jsonl", res); err != nil {
		t.Fatal(err)
	}
	return res, b.Bytes()
}

// TestHTMLIsSelfContained: the page fetches nothing — no script, style
// sheet, image or frame, no URL but the page's own #fragments.
func TestHTMLIsSelfContained(t *testing.T) {
	_, page := violationsPage(t)
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "script", "link", "img", "iframe", "object", "embed", "image", "use", "foreignobject":
			t.Errorf("a <%s> element", n.Data)
		}
		for _, a := range n.Attr {
			switch {
			case a.Key == "src", a.Key == "href" && !strings.HasPrefix(a.Val, "#"):
				t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
			case strings.Contains(a.Val, "url(") && !strings.HasPrefix(a.Val, "url(#"):
				t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
			}
		}
	}
	if bytes.Contains(page, []byte("@import")) {
		t.Errorf("the style sheet imports another")
	}
	if n, svgs := bytes.Count(page, []byte("://")), bytes.Count(page, []byte(`xmlns="http://www.w3.org/2000/svg"`)); n != svgs || svgs != 2 {
		t.Errorf("%d URLs in the page, want only the SVG namespace of its 2 drawings (%d)", n, svgs)
	}
}

// TestHTMLEscapes: keys and values are text, never markup.
func TestHTMLEscapes(t *testing.T) {
	res := Check(parse(t, `{"session":"<b>s</b>","dc":"d","op":"put","key":"x<script>","value":"\"><i>1","start_ms":0,"end_ms":1}
{"session":"<b>s</b>","dc":"d","op":"get","key":"x<script>","value":null,"start_ms":1,"end_ms":2}
`), Options{})
	var b bytes.Buffer
	if err := WriteHTML(&b, "<h>.jsonl", res); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script>", "<b>", "<i>", "<h>"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("%q unescaped in the page", bad)
		}
	}
}

// drawn is what a page shows of one violation, read from its DOM.
type drawn struct {
	rule      string
	lanes     []string // data-session of the lanes, left to right
	ops       []string // "line session" of the operations
	violating []string // lines of the operations marked violating
	edges     []string // "from->to kind" of the arrows
	text      string   // all text of the section
}

// readPage collects, per violation section, what its SVG draws; the
// lanes, operations and arrows only count inside the section's <svg>.
func readPage(t *testing.T, doc *html.Node) []drawn {
	t.Helper()
	attr := func(n *html.Node, k string) string {
		for _, a := range n.Attr {
			if a.Key == k {
				return a.Val
			}
		}
		return ""
	}
	hasClass := func(n *html.Node, c string) bool { return slices.Contains(strings.Fields(attr(n, "class")), c) }
	var out []drawn
	for sec := range doc.Descendants() {
		if sec.Type != html.ElementNode || sec.Data != "section" || !hasClass(sec, "violation") {
			continue
		}
		d := drawn{rule: attr(sec, "data-rule")}
		var text strings.Builder
		for n := range sec.Descendants() {
			if n.Type == html.TextNode {
				text.WriteString(n.Data)
				continue
			}
			if n.Type != html.ElementNode || n.Data != "svg" {
				continue
			}
			if n.Namespace != "svg" {
				t.Errorf("<svg> parsed in namespace %q", n.Namespace)
			}
			for e := range n.Descendants() {
				switch {
				case e.Type != html.ElementNode:
				case e.Data == "g" && hasClass(e, "lane"):
					d.lanes = append(d.lanes, attr(e, "data-session"))
				case e.Data == "g" && hasClass(e, "op"):
					d.ops = append(d.ops, attr(e, "data-line")+" "+attr(e, "data-session"))
					if hasClass(e, "violating") {
						d.violating = append(d.violating, attr(e, "data-line"))
					}
				case e.Data == "path" && hasClass(e, "edge"):
					if attr(e, "d") == "" || !strings.HasPrefix(attr(e, "marker-end"), "url(#") {
						t.Errorf("arrow %v without a path or an arrowhead", e.Attr)
					}
					d.edges = append(d.edges, attr(e, "data-from")+"->"+attr(e, "data-to")+" "+attr(e, "data-kind"))
				}
			}
		}
		d.text = strings.Join(strings.Fields(text.String()), " ")
		out = append(out, d)
	}
	return out
}

// want is what the page must draw of each violation: its structured data.
func wantDrawn(res Result) []drawn {
	var out []drawn
	for _, v := range res.Violations {
		d := drawn{rule: v.Rule}
		for _, e := range v.Events {
			if !slices.Contains(d.lanes, e.Session) {
				d.lanes = append(d.lanes, e.Session)
			}
			d.ops = append(d.ops, fmt.Sprintf("%d %s", e.Line, e.Session))
			if e.Violating {
				d.violating = append(d.violating, fmt.Sprint(e.Line))
			}
		}
		for _, e := range v.Edges {
			d.edges = append(d.edges, fmt.Sprintf("%d->%d %s", e.From, e.To, e.Kind))
		}
		out = append(out, d)
	}
	return out
}

// compareDrawn checks that a page's DOM draws each violation of res as
// its Events and Edges say, with its explanation and the rule's meaning.
func compareDrawn(t *testing.T, doc *html.Node, res Result) []drawn {
	t.Helper()
	got, want := readPage(t, doc), wantDrawn(res)
	if len(got) != len(want) {
		t.Fatalf("%d violations drawn, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.rule != w.rule || !slices.Equal(g.lanes, w.lanes) || !slices.Equal(g.ops, w.ops) ||
			!slices.Equal(g.violating, w.violating) || !slices.Equal(g.edges, w.edges) {
			t.Errorf("violation %d drawn as\n%+v\nwant\n%+v", i+1, g, w)
		}
		if v := res.Violations[i]; !strings.Contains(g.text, v.Explanation) || !strings.Contains(g.text, ruleMeaning[v.Rule]) {
			t.Errorf("violation %d: the explanation or the rule's meaning is missing from %q", i+1, g.text)
		}
	}
	return got
}

// checkDrawn compares a page's DOM with the violations it shows, and the
// first (the stale read of testdata/violations.jsonl) with what a person
// reading the history would draw.
func checkDrawn(t *testing.T, doc *html.Node, res Result) {
	t.Helper()
	got := compareDrawn(t, doc, res)
	stale := drawn{
		rule:      RuleStaleRead,
		lanes:     []string{"alice", "bob"},
		ops:       []string{"1 alice", "3 alice", "4 bob", "5 bob"},
		violating: []string{"5"},
		edges:     []string{"1->3 session-order", "3->4 reads-from", "4->5 session-order"},
	}
	g := got[0]
	if g.rule != stale.rule || !slices.Equal(g.lanes, stale.lanes) || !slices.Equal(g.ops, stale.ops) ||
		!slices.Equal(g.violating, stale.violating) || !slices.Equal(g.edges, stale.edges) {
		t.Errorf("the stale read drawn as\n%+v\nwant\n%+v", g, stale)
	}
	for _, s := range []string{"session alice", "us-east", "session bob", "tokyo", "put photo=alice-1", "read photo=null",
		"should have been seen", "breaks the rule", "album"} {
		if !strings.Contains(g.text, s) {
			t.Errorf("the stale read's drawing does not show %q: %q", s, g.text)
		}
	}
	if got[1].rule != RuleOrderDisagreement || !slices.Contains(got[1].edges, "7->6 conflict") || !slices.Contains(got[1].edges, "6->7 conflict") {
		t.Errorf("the order disagreement drawn without both conflict edges: %+v", got[1])
	}
}

// TestHTMLDrawsTheViolations: the page's DOM (as Go's HTML5 parser reads
// it) draws each violation's lanes, operations and arrows.
func TestHTMLDrawsTheViolations(t *testing.T) {
	res, page := violationsPage(t)
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	checkDrawn(t, doc, res)
}

// TestHTMLEveryRule: a violation of each rule — thin air, a cycle, a
// fractured read_txn, a stale read through a failed write, a stale read in
// one session (its arrows within one lane), and divergence and quiescence,
// which have no operations to draw — renders with its figure or, for the
// last two, its text alone.
func TestHTMLEveryRule(t *testing.T) {
	f, err := os.Open("testdata/every-rule.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := history.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	res := Check(h, Options{})
	a, b := "1", "2"
	res.Violations = append(res.Violations, Divergence("k", map[string]*string{"us/s0": &a, "eu/s0": &b}), Quiescence("a/cc0: 2 writes in flight"))
	res.Total = len(res.Violations)
	var rules []string
	for _, v := range res.Violations {
		rules = append(rules, v.Rule)
	}
	want := []string{RuleThinAir, RuleCyclicCausality, RuleFracturedTransaction, RuleStaleRead, RuleStaleRead, RuleDivergence, RuleQuiescence}
	if !slices.Equal(rules, want) {
		t.Fatalf("testdata/every-rule.jsonl: rules %v, want %v", rules, want)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, "every-rule.jsonl", res); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("CAUSEWAY_HTML"); out != "" { // to look at it
		_ = os.WriteFile(out, page.Bytes(), 0o644)
	}
	doc, err := html.Parse(&page)
	if err != nil {
		t.Fatal(err)
	}
	got := compareDrawn(t, doc, res)
	for i, g := range got {
		if drawnOps := len(g.ops) > 0; drawnOps != (i < 5) {
			t.Errorf("violation %d (%s): %d operations drawn", i+1, g.rule, len(g.ops))
		}
	}
	if failed := got[3]; !strings.Contains(failed.text, "line 10 · failed") {
		t.Errorf("the failed write is not marked: %q", failed.text)
	}
}
