package check

import (
	"fmt"
	"math"
	"sort"
)

// Geometry of a violation's drawing: sessions are vertical lanes, left to
// right in order of first mention; operations are boxes, one per row, top
// to bottom in causal order (a topological order of the edges, ties and
// cycles broken by line).
const (
	laneW    = 264 // width of a lane
	boxW     = 228 // width of an operation's box
	boxH     = 46  // height of an operation's box
	rowH     = 84  // distance between rows
	headH    = 58  // height of the lane headers
	marginX  = 16
	bottomH  = 24
	textMax  = 28 // characters of an operation's text shown in its box
	bulgeOut = 40 // control points of a same-lane arrow, right of the box: it peaks 30 out, in the gap between lanes
	rightM   = 48 // room right of the last lane for its same-lane arrows
)

// drawing is one violation laid out for the template.
type drawing struct {
	ID            string // prefix of element ids, unique in the page
	Width, Height int
	Lanes         []laneBox
	Ops           []opBox
	Arrows        []arrow
}

type laneBox struct {
	Session, DC string
	X, CX       int // left edge, centre
}

type opBox struct {
	Event
	X, Y  int // top left
	CX    int // centre x
	Label string
}

type arrow struct {
	Edge
	Class  string // session-order, reads-from or conflict, plus " violating"
	Marker string // id of the arrowhead
	D      string // SVG path
	LX, LY int    // label position
	Anchor string // the label's text-anchor: start or end
	Label  string
}

// layout places the events and edges of v.
func layout(id string, v Violation) drawing {
	d := drawing{ID: id}
	laneOf := map[string]int{}
	for _, e := range v.Events {
		if _, ok := laneOf[e.Session]; !ok {
			laneOf[e.Session] = len(d.Lanes)
			x := marginX + len(d.Lanes)*laneW
			d.Lanes = append(d.Lanes, laneBox{Session: e.Session, DC: e.DC, X: x, CX: x + laneW/2})
		}
	}
	rows := causalRows(v)
	byLine := map[int]int{}
	for i, e := range v.Events {
		l := d.Lanes[laneOf[e.Session]]
		b := opBox{Event: e, CX: l.CX, X: l.CX - boxW/2, Y: headH + rows[i]*rowH + (rowH-boxH)/2}
		b.Label = e.Text
		if r := []rune(b.Label); len(r) > textMax {
			b.Label = string(r[:textMax-1]) + "…"
		}
		byLine[e.Line] = len(d.Ops)
		d.Ops = append(d.Ops, b)
	}
	d.Width = 2*marginX + len(d.Lanes)*laneW + rightM
	d.Height = headH + len(v.Events)*rowH + bottomH
	for _, e := range v.Edges {
		fi, ok1 := byLine[e.From]
		ti, ok2 := byLine[e.To]
		if !ok1 || !ok2 {
			continue
		}
		d.Arrows = append(d.Arrows, route(id, e, d.Ops[fi], d.Ops[ti]))
	}
	return d
}

// causalRows returns each event's row: Kahn's order over the edges, the
// smallest line first among the ready ones; on a cycle (cyclic causality,
// or conflict edges) the smallest line left goes next.
func causalRows(v Violation) []int {
	n := len(v.Events)
	idx := map[int]int{}
	for i, e := range v.Events {
		idx[e.Line] = i
	}
	indeg := make([]int, n)
	succ := make([][]int, n)
	for _, e := range v.Edges {
		f, ok1 := idx[e.From]
		t, ok2 := idx[e.To]
		if !ok1 || !ok2 || f == t || e.Kind == EdgeConflict {
			continue
		}
		succ[f] = append(succ[f], t)
		indeg[t]++
	}
	rows := make([]int, n)
	done := make([]bool, n)
	byLine := make([]int, n)
	for i := range byLine {
		byLine[i] = i
	}
	sort.Slice(byLine, func(a, b int) bool { return v.Events[byLine[a]].Line < v.Events[byLine[b]].Line })
	for r := range n {
		next := -1
		for _, i := range byLine {
			if !done[i] && indeg[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 { // a cycle: break it at the smallest line
			for _, i := range byLine {
				if !done[i] {
					next = i
					break
				}
			}
		}
		done[next] = true
		rows[next] = r
		for _, t := range succ[next] {
			indeg[t]--
		}
	}
	return rows
}

// route draws edge e from box a to box b: straight down the lane for
// session order, a curve between lanes otherwise (bulging out of the lane
// when both ends are in one lane).
func route(id string, e Edge, a, b opBox) arrow {
	ar := arrow{Edge: e, Class: e.Kind, Marker: id + "-" + e.Kind}
	if e.Violating {
		ar.Class += " violating"
		ar.Marker = id + "-violating"
	}
	switch e.Kind {
	case EdgeReadsFrom:
		ar.Label = e.Key
	case EdgeConflict:
		ar.Label = "before"
	case EdgeSessionOrder:
		if e.Later {
			ar.Label = "…"
		}
	}
	down := b.Y > a.Y
	ar.Anchor = "start"
	switch {
	case a.CX == b.CX && e.Kind == EdgeSessionOrder && down:
		y1, y2 := a.Y+boxH, b.Y
		ar.D = fmt.Sprintf("M%d %d L%d %d", a.CX, y1, b.CX, y2-1)
		ar.LX, ar.LY = a.CX+8, (y1+y2)/2+4
	case e.Kind == EdgeConflict:
		ar.D, ar.LX, ar.LY = arc(a, b)
	case a.CX == b.CX:
		// Out of the right side and back in, bulging out of the lane.
		x := a.X + boxW
		y1, y2 := a.Y+boxH/2, b.Y+boxH/2
		ar.D = fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x, y1, x+bulgeOut, y1, x+bulgeOut, y2, x+2, y2)
		ar.LX, ar.LY = x+bulgeOut*3/4+3, (y1+y2)/2+4
	default:
		// From the side of a facing b to the side of b facing a; the label
		// beside b's end, in its row, where no other box is.
		x1, x2 := a.X+boxW, b.X
		ar.LX, ar.Anchor = x2-14, "end"
		if b.CX < a.CX {
			x1, x2 = a.X, b.X+boxW
			ar.LX, ar.Anchor = x2+14, "start"
		}
		y1, y2 := a.Y+boxH/2, b.Y+boxH/2
		if !down {
			// Upwards (a cycle): leave from the top, arrive at the
			// bottom, so the curve does not cross the boxes.
			y1, y2 = a.Y, b.Y+boxH
		}
		mx := (x1 + x2) / 2
		ar.D = fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x1, y1, mx, y1, mx, y2, x2, y2)
		ar.LY = y2 - 8
		if !down {
			ar.LY = y2 + 16
		}
	}
	return ar
}

// arc is a conflict edge: a quadratic curve between the boxes' borders
// bowed to the left of the direction a → b, so that the two edges of a
// pair of writes ordered both ways do not overlap. It returns the path and
// the label position (the curve's middle).
func arc(a, b opBox) (d string, lx, ly int) {
	ax, ay := float64(a.CX), float64(a.Y+boxH/2)
	bx, by := float64(b.CX), float64(b.Y+boxH/2)
	dx, dy := bx-ax, by-ay
	l := math.Hypot(dx, dy)
	if l == 0 {
		l = 1
	}
	const bow = 60.0
	cx, cy := (ax+bx)/2+dy/l*bow, (ay+by)/2-dx/l*bow
	x1, y1 := border(ax, ay, cx, cy)
	x2, y2 := border(bx, by, cx, cy)
	mx, my := (x1+2*cx+x2)/4, (y1+2*cy+y2)/4
	return fmt.Sprintf("M%.0f %.0f Q%.0f %.0f %.0f %.0f", x1, y1, cx, cy, x2, y2), int(mx) + 6, int(my) + 4
}

// border returns where the ray from a box's centre (x, y) towards (tx, ty)
// leaves the box.
func border(x, y, tx, ty float64) (float64, float64) {
	dx, dy := tx-x, ty-y
	t := math.Inf(1)
	if dx != 0 {
		t = math.Min(t, boxW/2/math.Abs(dx))
	}
	if dy != 0 {
		t = math.Min(t, boxH/2/math.Abs(dy))
	}
	if math.IsInf(t, 1) {
		return x, y
	}
	return x + dx*t, y + dy*t
}
