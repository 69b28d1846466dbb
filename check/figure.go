package check

import "sort"

// Edge kinds, the values of Edge.Kind: the relations of CCv (Bouajjani et
// al.) that an explanation follows.
const (
	// EdgeSessionOrder: From came before To in one session (program order).
	EdgeSessionOrder = "session-order"
	// EdgeReadsFrom: To read the value From wrote.
	EdgeReadsFrom = "reads-from"
	// EdgeConflict: From must be ordered before To, both writes of Key,
	// because a read that had From in its causal past returned To.
	EdgeConflict = "conflict"
)

// Event is one operation of a violation, as the explanation names it.
type Event struct {
	// Line is the operation's 1-based line in the history.
	Line int `json:"line"`
	// Session and DC are the operation's session and datacenter.
	Session string `json:"session"`
	DC      string `json:"dc"`
	// Text is what it did, focused on the key concerned: "put x=1",
	// "read x=null", "read x=1 in a read_txn", "ran write_txn {x=1, y=2}".
	Text string `json:"text"`
	// Failed: the operation did not succeed (a write that may or may not
	// have happened, counted because a read returned its value).
	Failed bool `json:"failed,omitempty"`
	// Violating marks the operation at which the rule is broken: the read
	// that returned the wrong value.
	Violating bool `json:"violating,omitempty"`
	// Note says what part the operation plays, when the edges do not:
	// "should have been seen" (a stale read's newer write), "returned
	// instead" (its older one), "wrote it to another key" (thin air),
	// "puts line 7 before line 6" (a read that orders two conflicting
	// writes).
	Note string `json:"note,omitempty"`
}

// Edge is one relation between two events of a violation.
type Edge struct {
	// From and To are the events' lines.
	From int `json:"from"`
	To   int `json:"to"`
	// Kind is session-order, reads-from or conflict.
	Kind string `json:"kind"`
	// Key is the key of a reads-from or conflict edge.
	Key string `json:"key,omitempty"`
	// Later marks a session-order edge over operations left out of the
	// explanation (To is not the next operation of the session).
	Later bool `json:"later,omitempty"`
	// Violating marks the edge that breaks the rule: the reads-from edge
	// of a stale or cyclic read, the conflict edges of an order
	// disagreement.
	Violating bool `json:"violating,omitempty"`
}

// figure collects a violation's events and edges while it is explained;
// checker.fig is nil when nothing is being collected.
type figure struct {
	c      *checker
	at     map[int32]int // node -> index in events
	events []Event
	edges  []Edge
	seen   map[Edge]int // edge without Violating -> index in edges
}

func newFigure(c *checker) *figure {
	return &figure{c: c, at: map[int32]int{}, seen: map[Edge]int{}}
}

// event adds node v (described focused on key k, or whole when k < 0)
// once, in order of first mention.
func (f *figure) event(v int32, k int32) {
	if f == nil {
		return
	}
	if _, ok := f.at[v]; ok {
		return
	}
	c := f.c
	op := &c.h.Ops[v]
	f.at[v] = len(f.events)
	f.events = append(f.events, Event{
		Line:    c.line(v),
		Session: c.sessNames[c.sess[v]],
		DC:      op.DC,
		Text:    c.opVerb(v, k),
		Failed:  op.Failed(),
	})
}

// edge adds an edge between two nodes already added as events, once.
func (f *figure) edge(from, to int32, kind string, key int32, later, violating bool) {
	if f == nil {
		return
	}
	e := Edge{From: f.c.line(from), To: f.c.line(to), Kind: kind, Later: later}
	if key >= 0 {
		e.Key = f.c.keyNames[key]
	}
	if i, ok := f.seen[e]; ok {
		f.edges[i].Violating = f.edges[i].Violating || violating
		return
	}
	f.seen[e] = len(f.edges)
	e.Violating = violating
	f.edges = append(f.edges, e)
}

// stepEdge adds the edge of a path step from -> to with label lab.
func (f *figure) stepEdge(from, to, lab int32, later bool) {
	if f == nil {
		return
	}
	c := f.c
	switch {
	case isWeight0(lab):
		f.edge(from, to, EdgeSessionOrder, -1, later, false)
	case isCF(lab):
		f.edge(from, to, EdgeConflict, c.items[c.cfs[cfIndex(lab)].item].key, false, false)
	default:
		f.edge(from, to, EdgeReadsFrom, c.items[lab].key, false, false)
	}
}

// violating marks node v as the operation that breaks the rule.
func (f *figure) violating(v int32) {
	if f == nil {
		return
	}
	if i, ok := f.at[v]; ok {
		f.events[i].Violating = true
	}
}

// note sets the note of node v, added as an event if it is not one yet.
func (f *figure) note(v int32, k int32, text string) {
	if f == nil {
		return
	}
	f.event(v, k)
	f.events[f.at[v]].Note = text
}

// finish adds the operations of lines that no chain mentioned and stores
// the figure in v.
func (f *figure) finish(v *Violation) {
	c := f.c
	for _, l := range v.Ops {
		n := int32(sort.Search(c.n, func(i int) bool { return c.line(int32(i)) >= l }))
		if int(n) < c.n && c.line(n) == l {
			f.event(n, -1)
		}
	}
	v.Events, v.Edges = f.events, f.edges
}
