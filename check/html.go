package check

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

//go:embed html.tmpl
var pageSource string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"plus":      func(a, b int) int { return a + b },
	"boxW":      func() int { return boxW },
	"boxH":      func() int { return boxH },
	"laneInner": func() int { return laneW - 12 },
	"arrowColors": func() map[string]string {
		return map[string]string{
			EdgeSessionOrder: "#6b7280",
			EdgeReadsFrom:    "#2563eb",
			EdgeConflict:     "#d97706",
			"violating":      "#dc2626",
		}
	},
}).Parse(pageSource))

// ruleMeaning says in a sentence what each rule forbids.
var ruleMeaning = map[string]string{
	RuleThinAir:              "A read returned a value that no write to its key wrote.",
	RuleCyclicCausality:      "Session order and reads-from form a cycle: an operation is in its own causal past.",
	RuleStaleRead:            "A read returned an older value (or null) although a newer write to its key was in its causal past.",
	RuleFracturedTransaction: "A read_txn saw part of a write_txn, or values that are not one causal snapshot.",
	RuleOrderDisagreement:    "Reads order concurrent writes in ways no single order explains: replicas cannot converge.",
	RuleDivergence:           "Replicas that saw the same writes disagree after the run quiesced.",
	RuleQuiescence:           "After the run healed and went quiet, something was still in flight that should have completed.",
}

// pageData is what html.tmpl renders.
type pageData struct {
	Title      string
	Summary    string
	OK         bool
	Violations []violationView
	NotShown   int
}

type violationView struct {
	N int
	Violation
	Meaning string
	Drawing drawing
}

// WriteHTML writes r as one self-contained HTML page (inline CSS and SVG,
// nothing fetched): the verdict, then each kept violation drawn from its
// Events and Edges — sessions as lanes, operations as boxes in causal
// order, session order, reads-from and conflict edges as arrows, the
// violating read and edge in red — with the rule broken and the
// explanation. title names the history (a file name).
func WriteHTML(w io.Writer, title string, r Result) error {
	d := pageData{Title: title, Summary: Summary(r), OK: r.OK && len(r.Violations) == 0, NotShown: r.Total - len(r.Violations)}
	for i, v := range r.Violations {
		d.Violations = append(d.Violations, violationView{
			N:         i + 1,
			Violation: v,
			Meaning:   ruleMeaning[v.Rule],
			Drawing:   layout(fmt.Sprintf("v%d", i+1), v),
		})
	}
	return page.Execute(w, d)
}
