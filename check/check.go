// Package check decides whether a history (package history) is causal+
// consistent: causal consistency with convergent conflict handling, CCv in
// Bouajjani, Enea, Guerraoui and Hamza, "On verifying causal consistency"
// (POPL 2017), extended to read-only and write-only transactions.
//
// # Model
//
// Writes are puts, dels and each key of a write_txn; reads are gets and
// each key of a read_txn. Write values are unique, so every read names the
// write it read from. A del is a write of a tombstone whose ID is its
// value, and a read that found the key deleted returns that ID (package
// history): a delete is checked exactly as a put, so a read of an older
// delete, of a value a delete in its causal past replaced, or of null after
// one, is a stale read, and explanations show what a read saw as
// "deleted(ID)". The causal order co is the transitive closure of session
// (program) order and reads-from; a transaction is one event of co, so a
// write_txn becomes visible as a whole and a read_txn reads at one point.
//
// Failed operations (ok:false): a failed read is ignored. A failed write may
// or may not have happened: when some successful read returns its value it
// is treated as a write that happened, with its session's earlier operations
// in its causal past; otherwise it is ignored. Since its session did not
// learn whether it took effect, the session's later operations are not
// ordered after it (no session-order edge out of a failed write), so a
// session that does not read back its own failed write is never blamed.
//
// # Rules
//
// A history passes when none of these occur (Violation.Rule):
//
//   - thin-air: a read returns a value no write (to that key) wrote;
//   - cyclic-causality: co has a cycle;
//   - stale-read: a read of x returns w1 although another write w2 to x has
//     w1 co w2 co read, or returns null although some write to x is
//     co-before the read (read-your-writes, monotonic reads,
//     writes-follow-reads and cross-key causality);
//   - fractured-transaction: a stale read inside a read_txn whose newer
//     write only entered the causal past through the read_txn's own other
//     reads — it saw part of a write_txn, or its values are not one causal
//     snapshot. (Reading for key x a write concurrent with a write_txn T
//     whose other key it read is not fractured: it only orders T's x before
//     that write, which the order-disagreement rule checks.);
//   - order-disagreement: the conflict edges w2 → w1 (w2 co r, r reads w1,
//     same key, w1 ≠ w2) together with co have a cycle: no single order of
//     the writes explains every read, so replicas cannot converge;
//   - divergence: replicas disagree after the run quiesced; only the
//     runtime can see replicas, and it builds these with Divergence.
//
// With unique values these rules are exactly CCv's bad patterns (CyclicCO,
// ThinAirRead, WriteCOInitRead, WriteCORead, CyclicCF), so the check is
// complete and sound for CCv.
//
// # Algorithm
//
// One node per operation; edges for session order and reads-from; Kahn's
// topological sort finds whether co is acyclic (cycles are reported from
// Tarjan's strongly connected components, and their reads-from edges are
// dropped so the rest of the history is still checked). Vector clocks
// indexed by session are then computed in topological order, stored as
// shared snapshots for writes only, and each read is tested against, per
// session, the last write to its key in its causal past. Conflict edges
// between concurrent writes are collected on the way and a second
// topological sort over co ∪ conflict finds order disagreements (across
// keys too). Time is O((N + E)·S) and memory O(N + S² + W·S) for N
// operations, S sessions and W writes.
//
// A read of key k that returned w1 has to consider, per session, the last
// write to k in its causal past that is not w1 nor in w1's past; in a
// causal history there is usually none. Rather than look at every session
// that wrote k (up to S per read, which made the checker superlinear: the
// longer the history, the more sessions have written each key), the
// writes to each key are numbered as the topological order visits them,
// the latest (up to 32) kept in a per-key ring, each with its cover: a
// number below which every write to the key is the write itself or in
// its causal past (the cover of the latest earlier write in its past,
// extended over the writes after that are in its past too; both steps
// bounded). Every candidate of the read was visited before it and lies
// past w1's cover, so the read walks only the writes from w1's cover to
// the latest — under one per read on genSC's histories, at 100k
// operations as at 4M — each decided from the read's clock and w1's
// alone. When those have left the ring, or outnumber the sessions that
// wrote k (a cover held back by a write nobody saw), the read searches
// each such session's writes instead, as before: the per-read work is
// the smaller of the two.
//
// The history is held as columns (table.go): per operation its session,
// DC, kind, key and value as int32 IDs of interned names, the keys of
// transactions beside them; no history.Op is kept. CheckReader fills the
// columns while it reads the file (history.ScanValuesUnchecked: the
// table, which interns every value anyway, checks that no value is
// written twice), so checking 4M operations holds under 200 bytes per
// operation, parser and checker together (docs/performance.md).
//
// # Explanations and the HTML page
//
// Each kept violation is explained twice over: Explanation is the chain
// in words ("session a put x=1 (line 1), then put y=2 (line 2); session b
// read y=2 (line 5), ..."), and Events and Edges are the same chain as a
// graph — the operations it names (line, session, DC, what each did, the
// read that breaks the rule) and the session-order, reads-from and
// conflict edges between them, the violating ones marked. Both are built
// from the same path through co, so they never disagree.
//
// WriteHTML (causeway check --html FILE) draws that graph, one figure per
// violation, on a self-contained HTML page: inline CSS and SVG, no script,
// nothing fetched, so it can be mailed or attached to an issue. Each
// session is a vertical lane headed by its name and DC; its operations
// are boxes down the lane in causal order (a topological order of the
// edges, one operation per row), each with its line number and what it
// did. Arrows: grey for session order ("…" when operations between are
// left out), blue for reads-from (labelled with the key), dashed for the
// conflict edges of an order disagreement ("before": the write must be
// ordered before the other, because a read that had it in its causal past
// returned the other). The read that breaks the rule, and the edge that
// does, are red; a stale read's newer write is noted "should have been
// seen". Under each figure are the rule broken, what it forbids, the
// explanation and the history's line numbers. Divergence and quiescence
// violations, which no history operation explains, have text only.
package check

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/causeway/causeway/history"
)

// Rule names, the values of Violation.Rule.
const (
	RuleThinAir              = "thin-air"
	RuleCyclicCausality      = "cyclic-causality"
	RuleStaleRead            = "stale-read"
	RuleOrderDisagreement    = "order-disagreement"
	RuleFracturedTransaction = "fractured-transaction"
	RuleDivergence           = "divergence"
)

// Options tunes Check.
type Options struct {
	// MaxViolations is how many violations to keep explained in
	// Result.Violations (0 means 10); all are counted in Result.Total.
	MaxViolations int
}

// Violation is one broken rule, explained.
type Violation struct {
	// Rule is thin-air, cyclic-causality, stale-read, order-disagreement,
	// fractured-transaction, divergence or quiescence.
	Rule string `json:"rule"`
	// Key is the key concerned, when there is one.
	Key string `json:"key,omitempty"`
	// Explanation is a chain a person can follow, naming sessions, lines,
	// keys and values.
	Explanation string `json:"explanation"`
	// Ops are the 1-based line numbers of the operations involved, ascending.
	Ops []int `json:"ops,omitempty"`
	// Events are the operations the explanation follows, in the order it
	// names them (a superset of Ops: an order disagreement also shows the
	// path that put a write in a read's causal past), and Edges the
	// session-order, reads-from and conflict edges between them: the
	// explanation as a graph, which WriteHTML draws. Empty for divergence
	// and quiescence, which no history operation explains.
	Events []Event `json:"events,omitempty"`
	Edges  []Edge  `json:"edges,omitempty"`
}

// Result is the checker's verdict.
type Result struct {
	// OK is true when no violation was found.
	OK bool
	// Operations is the number of operations in the history.
	Operations int
	// Total counts all violations found.
	Total int
	// Violations are the first violations (by line of the offending
	// operation), at most Options.MaxViolations of them, explained.
	Violations []Violation
	// Counts is the number of violations per rule (nil when OK).
	Counts map[string]int
}

// Check decides whether h is causal+ consistent. It expects a history as
// Parse returns it (unique write values); when a value is written twice
// anyway, reads of it are attributed to its first writer.
func Check(h *history.History, opt Options) Result {
	return checkTable(tableOf(h), opt)
}

// CheckReader reads a history (strictly, as history.Parse does; a
// malformed one is a *history.FormatError) and checks it as Check does,
// in one pass over the input that keeps only the checker's columns: no
// history.Op is held, so memory stays a few dozen bytes per operation
// plus the checker's own.
func CheckReader(r io.Reader, opt Options) (Result, error) {
	t, err := scanTable(r)
	if err != nil {
		return Result{}, err
	}
	return checkTable(t, opt), nil
}

// afterRunHook, when set (by a benchmark), is called once the checker has
// run, while the table and the checker's state are still held.
var afterRunHook func()

func checkTable(t *table, opt Options) Result {
	if opt.MaxViolations <= 0 {
		opt.MaxViolations = 10
	}
	c := newChecker(t)
	c.run()
	if afterRunHook != nil {
		afterRunHook()
	}
	res := Result{Operations: t.n, Total: len(c.recs)}
	res.OK = res.Total == 0
	if res.OK {
		return res
	}
	res.Counts = map[string]int{}
	for _, r := range c.recs {
		res.Counts[ruleNames[r.rule]]++
	}
	sort.Slice(c.recs, func(i, j int) bool {
		a, b := &c.recs[i], &c.recs[j]
		if a.node != b.node {
			return a.node < b.node
		}
		if a.rule != b.rule {
			return a.rule < b.rule
		}
		return a.item < b.item
	})
	keep := min(opt.MaxViolations, len(c.recs))
	for i := range keep {
		res.Violations = append(res.Violations, c.explain(&c.recs[i]))
	}
	return res
}

// Summary returns a one-line verdict, e.g. "causal+: OK (123456
// operations)" or "causal+: 3 violations in 123456 operations (stale-read
// 2, thin-air 1)".
func Summary(r Result) string {
	if r.OK {
		return fmt.Sprintf("causal+: OK (%d operations)", r.Operations)
	}
	s := "violations"
	if r.Total == 1 {
		s = "violation"
	}
	out := fmt.Sprintf("causal+: %d %s in %d operations", r.Total, s, r.Operations)
	if c := countsText(r); c != "" {
		out += " (" + c + ")"
	}
	return out
}

func countsText(r Result) string {
	counts := r.Counts
	if counts == nil {
		counts = map[string]int{}
		for _, v := range r.Violations {
			counts[v.Rule]++
		}
	}
	var parts []string
	for _, name := range ruleNames {
		if n := counts[name]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	return strings.Join(parts, ", ")
}

// Explain writes each kept violation (rule, key, lines, explanation) and
// the total count.
func Explain(w io.Writer, r Result) {
	if r.OK && len(r.Violations) == 0 {
		fmt.Fprintln(w, Summary(r))
		return
	}
	for i, v := range r.Violations {
		fmt.Fprintf(w, "%d. %s", i+1, v.Rule)
		if v.Key != "" {
			fmt.Fprintf(w, " on key %s", v.Key)
		}
		if len(v.Ops) > 0 {
			ls := make([]string, len(v.Ops))
			for j, l := range v.Ops {
				ls[j] = fmt.Sprint(l)
			}
			fmt.Fprintf(w, " (lines %s)", strings.Join(ls, ", "))
		}
		fmt.Fprintf(w, ":\n   %s\n", v.Explanation)
	}
	fmt.Fprintln(w, Summary(r))
	if r.Total > len(r.Violations) {
		fmt.Fprintf(w, "(%d explained above, %d more not shown)\n", len(r.Violations), r.Total-len(r.Violations))
	}
}

// Divergence builds the "divergence" violation for a key whose replicas
// disagree after quiescence. replicas maps a replica's name to the value it
// holds (nil: no value). The explanation groups replicas by value, sorted by
// name.
func Divergence(key string, replicas map[string]*string) Violation {
	names := make([]string, 0, len(replicas))
	for n := range replicas {
		names = append(names, n)
	}
	sort.Strings(names)
	type group struct {
		val   string
		names []string
	}
	var groups []*group
	byVal := map[string]*group{}
	for _, n := range names {
		v := "no value"
		if p := replicas[n]; p != nil {
			v = *p
		}
		g := byVal[v]
		if g == nil {
			g = &group{val: v}
			byVal[v] = g
			groups = append(groups, g)
		}
		g.names = append(g.names, n)
	}
	var parts []string
	for _, g := range groups {
		verb := "holds"
		if len(g.names) > 1 {
			verb = "hold"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", strings.Join(g.names, ", "), verb, g.val))
	}
	return Violation{
		Rule: RuleDivergence,
		Key:  key,
		Explanation: fmt.Sprintf("after the run quiesced the replicas of key %s disagree: %s; causal+ requires replicas that saw the same writes to converge",
			key, strings.Join(parts, "; ")),
	}
}

// Stream checks a history handed to it one operation at a time, in
// history order, as CheckReader checks the same operations written by a
// history.Writer and read back (every line validated, values written
// twice refused, line i+1 for the i-th operation), without the JSON round
// trip: a simulator feeds it the operations it records. Strings are taken
// as they are; a Writer would have replaced invalid UTF-8.
type Stream struct {
	t   *table
	err error
}

// NewStream returns an empty Stream.
func NewStream() *Stream {
	t := newTable()
	t.firstWrite = []int32{}
	return &Stream{t: t}
}

// Add appends op. An operation that would not parse, or that writes a
// value written before, is an error (a *history.FormatError, as
// CheckReader's), and so is every Add and Check after it.
func (s *Stream) Add(op *history.Op) error {
	if s.err != nil {
		return s.err
	}
	line := s.t.n + 1
	if err := op.Validate(); err != nil {
		s.err = &history.FormatError{Line: line, Msg: err.Error()}
		return s.err
	}
	if err := s.t.add(line, op); err != nil {
		s.err = err
	}
	return s.err
}

// Check checks the operations added so far, as Check does; the Stream is
// not to be used after.
func (s *Stream) Check(opt Options) (Result, error) {
	if s.err != nil {
		return Result{}, s.err
	}
	return checkTable(s.t, opt), nil
}
