package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // png
	_ "gonum.org/v1/plot/vg/vgpdf" // pdf
	_ "gonum.org/v1/plot/vg/vgsvg" // svg

	"github.com/causeway/causeway/bench"
)

// plotFormats are the --plot file extensions compare draws.
var plotFormats = []string{"svg", "png", "pdf"}

// plotFormatOK checks that path's extension names a format compare draws.
func plotFormatOK(path string) error {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	for _, f := range plotFormats {
		if ext == f {
			return nil
		}
	}
	return fmt.Errorf("unknown format %q: name the file .svg, .png or .pdf", ext)
}

// plotPanels are the metrics compare plots, in order, with a title; the
// first latency p99 present (get, else another type) is drawn.
var plotPanels = []struct{ metric, title string }{
	{"throughput_ops_s", "throughput (ops/s)"},
	{"latency_ms.get.p99", "get p99 latency (ms)"},
	{"latency_ms.put.p99", "put p99 latency (ms)"},
	{"visibility_ms.p50", "visibility p50 from acknowledgement (ms)"},
	{"wan_bytes_per_op", "WAN payload bytes per operation"},
	{"local_fraction", "operations answered without a wide-area round trip"},
}

// plotComparison draws one bar panel per metric of plotPanels that some
// run has, one bar per run, stacked vertically, into path.
func plotComparison(path string, labels []string, rows []bench.CompareRow) error {
	byName := map[string]bench.CompareRow{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	var panels [][]*plot.Plot
	for _, pp := range plotPanels {
		row, ok := byName[pp.metric]
		if !ok {
			continue
		}
		p := plot.New()
		p.Title.Text = pp.title
		values := make(plotter.Values, len(row.Values))
		for i, v := range row.Values {
			if v != nil {
				values[i] = *v
			}
		}
		width := vg.Points(min(40, 300/float64(max(1, len(labels)))))
		bars, err := plotter.NewBarChart(values, width)
		if err != nil {
			return fmt.Errorf("%s: %w", pp.metric, err)
		}
		bars.Color = plotutil.Color(0)
		bars.LineStyle.Width = 0
		p.Add(plotter.NewGrid(), bars)
		p.NominalX(labels...)
		p.Y.Min = 0
		panels = append(panels, []*plot.Plot{p})
	}
	if len(panels) == 0 {
		return fmt.Errorf("none of the runs has a metric to plot")
	}
	const panelW, panelH = 16 * vg.Centimeter, 6 * vg.Centimeter
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	canvas, err := draw.NewFormattedCanvas(panelW, panelH*vg.Length(len(panels)), ext)
	if err != nil {
		return err
	}
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: 4 * vg.Millimeter, PadTop: 2 * vg.Millimeter,
		PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	cs := plot.Align(panels, tiles, draw.New(canvas))
	for i := range panels {
		panels[i][0].Draw(cs[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := canvas.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
