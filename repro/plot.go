package repro

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// series is one named line or set of bars.
type series struct {
	name   string
	xs, ys []float64
}

// chart is one panel: a plot and how many lines its legend has, for which
// save leaves room above the data.
type chart struct {
	*plot.Plot
	entries int
}

func (c *chart) legend(name string, thumbs ...plot.Thumbnailer) {
	c.Legend.Add(name, thumbs...)
	c.entries++
}

// figure is a plot file pair (PNG and SVG) of one or more panels stacked
// vertically.
type figure struct {
	// file is the name without extension, e.g. "fig7".
	file   string
	panels []*chart
}

// panelWidth and panelHeight are the size of one panel.
const (
	panelWidth  = 16 * vg.Centimeter
	panelHeight = 8 * vg.Centimeter
)

// legendLine is the share of a panel's data height one legend line takes.
const legendLine = 0.085

// save writes f as dir/f.file.png and .svg.
func (f figure) save(dir string) error {
	rows := make([][]*plot.Plot, len(f.panels))
	for i, c := range f.panels {
		// Leave room at the top for the legend.
		if span := c.Y.Max - c.Y.Min; span > 0 && c.entries > 0 {
			share := min(0.6, legendLine*float64(c.entries))
			c.Y.Max += span * share / (1 - share)
		}
		rows[i] = []*plot.Plot{c.Plot}
	}
	for _, ext := range []string{"png", "svg"} {
		canvas, err := draw.NewFormattedCanvas(panelWidth, panelHeight*vg.Length(len(f.panels)), ext)
		if err != nil {
			return err
		}
		tiles := draw.Tiles{Rows: len(f.panels), Cols: 1, PadY: 5 * vg.Millimeter,
			PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
		canvases := plot.Align(rows, tiles, draw.New(canvas))
		for i, c := range f.panels {
			c.Draw(canvases[i][0])
		}
		out, err := os.Create(filepath.Join(dir, f.file+"."+ext))
		if err != nil {
			return err
		}
		if _, err := canvas.WriteTo(out); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
	return nil
}

// plainTicks are gonum's default ticks labelled without trailing zeros
// ("50000", not "50000.00").
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			v, _ := strconv.ParseFloat(strconv.FormatFloat(ts[i].Value, 'g', 10, 64), 64)
			ts[i].Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ts
}

// doublingAxis makes c's x axis logarithmic in base 2, for series whose x
// doubles from point to point (a thread sweep): the points are evenly
// spaced and each power of two in range is a labelled tick.
func doublingAxis(c *chart) {
	c.X.Scale = plot.LogScale{}
	c.X.Tick.Marker = doublingTicks{}
	// Half a doubling of room on each side keeps the end points off the
	// axes.
	c.X.Min, c.X.Max = c.X.Min/math.Sqrt2, c.X.Max*math.Sqrt2
}

// doublingTicks labels each power of two in [lo, hi].
type doublingTicks struct{}

// Ticks implements plot.Ticker.
func (doublingTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	if lo <= 0 {
		lo = 1
	}
	for v := math.Exp2(math.Ceil(math.Log2(lo))); v <= hi; v *= 2 {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return ts
}

func newChart(title, xLabel, yLabel string) *chart {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Tick.Marker = plainTicks{}
	p.Y.Tick.Marker = plainTicks{}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return &chart{Plot: p}
}

// linePlot draws each series as a line with points.
func linePlot(title, xLabel, yLabel string, ss []series) (*chart, error) {
	c := newChart(title, xLabel, yLabel)
	for i, s := range ss {
		xys := make(plotter.XYs, len(s.xs))
		for j := range s.xs {
			xys[j] = plotter.XY{X: s.xs[j], Y: s.ys[j]}
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("%s, %s: %w", title, s.name, err)
		}
		l.Color, l.Dashes = plotutil.Color(i), plotutil.Dashes(i)
		l.Width = vg.Points(1.5)
		pts.Color, pts.Shape = plotutil.Color(i), plotutil.Shape(i)
		c.Add(l, pts)
		c.legend(s.name, l, pts)
	}
	c.Y.Min = min(c.Y.Min, 0) // the axis starts at zero unless values are negative
	return c, nil
}

// barPlot draws grouped bars: one group per label, one bar per series
// (series ys are indexed like labels).
func barPlot(title, yLabel string, labels []string, ss []series) (*chart, error) {
	c := newChart(title, "", yLabel)
	width := vg.Points(min(36, 200/float64(max(1, len(ss)*len(labels)))))
	for i, s := range ss {
		b, err := plotter.NewBarChart(plotter.Values(s.ys), width)
		if err != nil {
			return nil, fmt.Errorf("%s, %s: %w", title, s.name, err)
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-float64(len(ss)-1)/2) * width
		c.Add(b)
		c.legend(s.name, b)
	}
	c.NominalX(labels...)
	c.Y.Min = min(c.Y.Min, 0)
	return c, nil
}

// vline adds a dashed grey vertical line at x from 0 to top.
func vline(c *chart, x, top float64) error {
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
	if err != nil {
		return err
	}
	l.Color = color.Gray{Y: 140}
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	c.Add(l)
	return nil
}

// hline adds a dashed line at y, named in the legend.
func hline(c *chart, name string, x0, x1, y float64) error {
	l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	if err != nil {
		return err
	}
	l.Color = color.Gray{Y: 90}
	l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	c.Add(l)
	c.legend(name, l)
	return nil
}
